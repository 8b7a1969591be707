"""API tokens played by whoever holds one: a token ends at its expiry, a read-only token never writes, a deactivated
account's token stops at once, a staff user issues tokens only for themself, and a directory (LDAP) account's token
reads what the directory's groups grant now, not what they granted at the last sign-in (real slapd)."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import timedelta

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import connection
from django.test import Client
from django.utils import timezone

from monitor.core import directory as directory_backend
from monitor.core.directory import ldap_settings
from monitor.graphs.trees.models import ApiToken, DirectoryAccount, Tree, TreeNode, place_device
from monitor.models import Device, Graph
from tests.ldapserver import ADMIN_DN, ADMIN_PASSWORD, GROUPS, PEOPLE, Directory, group, person

pytestmark = pytest.mark.django_db
UNSAFE = ("post", "put", "patch", "delete")


def bearer(raw: str) -> dict:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


@pytest.fixture
def fleet(stack_env, django_user_model):
    """A switch placed in a tree that `reader` may read, with one graph."""
    switch = Device.objects.create(name="edge-sw", host="127.0.0.1", community="t0ken-c0mmunity", poll_interval_s=60)
    graph = Graph.objects.create(device=switch, template="traffic", instance="1/g1", title="Traffic 1/g1")
    tree = Tree.objects.create(name="Edge")
    place_device(switch, TreeNode.objects.create(tree=tree, kind="header", title="Site"))
    reader = django_user_model.objects.create_user("reader", password="r3ader-pass-123")
    tree.read_users.add(reader)
    return {"switch": switch, "graph": graph, "tree": tree, "reader": reader}


def reads(client: Client, raw: str, fleet: dict) -> list[int]:
    """The status of a read through each kind of API door: DRF, a JSON view, and the event markers."""
    paths = ["/api/devices/", f"/api/graphs/{fleet['graph'].pk}/", f"/api/events/markers?graph={fleet['graph'].pk}"]
    return [client.get(path, **bearer(raw)).status_code for path in paths]


def test_a_token_works_until_its_expiry_and_not_a_moment_after(client, fleet, settings):
    settings.API_TOKEN_DAYS, settings.API_TOKEN_MAX_DAYS = 90, 365
    token, raw = ApiToken.issue(fleet["reader"], "grafana")
    lifetime = token.expires_at - timezone.now()
    assert timedelta(days=89, hours=23) < lifetime <= timedelta(days=90)  # the default lifetime
    assert reads(client, raw, fleet) == [200, 200, 200]
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert reads(client, raw, fleet) == [401, 401, 401]
    refused = client.get("/api/devices/", **bearer(raw))
    assert "expired" in refused.json()["detail"] and refused["WWW-Authenticate"] == "Bearer"
    assert "expired" in client.get(f"/api/events/markers?graph={fleet['graph'].pk}", **bearer(raw)).json()["error"]
    short, _ = ApiToken.issue(fleet["reader"], "one day", days=1)
    assert timedelta(hours=23) < short.expires_at - timezone.now() <= timedelta(days=1)
    with pytest.raises(ValueError, match="from 1 to 365 days"):
        ApiToken.issue(fleet["reader"], "forever", days=366)


def test_a_read_only_token_is_refused_every_unsafe_method_on_every_door(client, fleet, admin_user):
    _, admin_raw = ApiToken.issue(admin_user, "reads all", scope=ApiToken.Scope.READ)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json", **bearer(admin_raw))
    paths = list(json.loads(schema.content)["paths"])
    assert len(paths) >= 10
    doors = [re.sub(r"\{\w+\}", str(fleet["switch"].pk), path) for path in paths]  # any id: refused before it is read
    before = list(Device.objects.values())
    for path in sorted(set(doors)):
        for method in UNSAFE:
            response = getattr(client, method)(path, "{}", content_type="application/json", **bearer(admin_raw))
            assert response.status_code == 403, (method, path, response.status_code)
            assert "read-only" in response.content.decode(), (method, path)
    for path in ("/metrics", "/pollers/history", f"/storage/api/arrays/{fleet['switch'].pk}/path"):  # GET-only views
        for method in UNSAFE:
            response = getattr(client, method)(path, "{}", content_type="application/json", **bearer(admin_raw))
            assert response.status_code in (403, 405), (method, path, response.status_code)
    assert list(Device.objects.values()) == before and Device.objects.get().community == "t0ken-c0mmunity"
    _, writer = ApiToken.issue(admin_user, "writes", scope=ApiToken.Scope.WRITE)
    rediscover = client.post(f"/api/devices/{fleet['switch'].pk}/rediscover/", **bearer(writer))
    assert rediscover.status_code == 200 and Device.objects.get().rediscover is True
    assert client.delete(f"/api/devices/{fleet['switch'].pk}/", **bearer(writer)).status_code == 204


def test_a_deactivated_accounts_token_stops_on_its_next_request(client, fleet, admin_user):
    _, raw = ApiToken.issue(fleet["reader"], "grafana")
    _, staff = ApiToken.issue(admin_user, "prometheus")
    assert reads(client, raw, fleet) == [200, 200, 200]
    assert client.get("/metrics", **bearer(staff)).status_code == 200
    get_user_model().objects.filter(pk__in=[fleet["reader"].pk, admin_user.pk]).update(is_active=False)
    assert reads(client, raw, fleet) == [401, 401, 401]
    assert client.get("/metrics", **bearer(staff)).status_code == 401


def test_a_staff_user_issues_tokens_only_for_themself_and_sees_only_their_own(fleet, admin_user, settings):
    settings.API_TOKEN_DAYS, settings.API_TOKEN_MAX_DAYS = 90, 365
    staff = get_user_model().objects.create_user("helpdesk", password="h3lpdesk-pass-1", is_staff=True)
    staff.user_permissions.add(*Permission.objects.filter(codename__endswith="_apitoken"))
    ApiToken.issue(admin_user, "admin's own")
    client = Client()
    client.force_login(staff)
    add_page = client.get("/admin/trees/apitoken/add/").content.decode()
    assert "Lifetime (days)" in add_page and 'name="user"' not in add_page  # whose: not asked, their own
    form = {"user": admin_user.pk, "name": "escalate", "scope": "write", "days": 30}
    response = client.post("/admin/trees/apitoken/add/", form, follow=True)
    assert response.status_code == 200
    token = ApiToken.objects.get(name="escalate")
    assert token.user == staff and not ApiToken.objects.filter(user=admin_user, name="escalate").exists()
    assert token.scope == "write" and timedelta(days=29) < token.expires_at - timezone.now() <= timedelta(days=30)
    raw = next(str(m) for m in response.context["messages"]).rsplit(" ", 1)[-1]
    assert ApiToken.hash(raw) == token.digest
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM trees_apitoken")
        stored = repr(cursor.fetchall())
    assert raw not in stored and token.digest in stored  # only the SHA-256 is kept
    listing = client.get("/admin/trees/apitoken/").content.decode()
    shown_again = client.get(f"/admin/trees/apitoken/{token.pk}/change/").content.decode()
    assert raw not in listing and raw not in shown_again and raw not in repr(list(LogEntry.objects.values()))
    assert "escalate" in listing and "admin&#x27;s own" not in listing and "admin's own" not in listing
    assert "Expires" in listing and "Last used" in listing
    theirs = ApiToken.objects.get(name="admin's own")  # another's token is not there to open or delete
    assert client.get(f"/admin/trees/apitoken/{theirs.pk}/change/").status_code == 302
    client.post(f"/admin/trees/apitoken/{theirs.pk}/delete/", {"post": "yes"})
    assert ApiToken.objects.filter(pk=theirs.pk).exists()
    too_long = client.post("/admin/trees/apitoken/add/", form | {"name": "forever", "days": 400})
    assert too_long.status_code == 200 and "at most 365" in too_long.content.decode()
    assert not ApiToken.objects.filter(name="forever").exists()
    boss = Client()
    boss.force_login(admin_user)
    assert 'name="user"' in boss.get("/admin/trees/apitoken/add/").content.decode()
    assert boss.post("/admin/trees/apitoken/add/", form | {"user": staff.pk, "name": "for helpdesk"}).status_code == 302
    assert ApiToken.objects.get(name="for helpdesk").user == staff  # a superuser may issue for anyone
    assert "admin&#x27;s own" in boss.get("/admin/trees/apitoken/").content.decode()


@pytest.fixture(scope="module")
def directory(tmp_path_factory, stack_dir):
    server = Directory(tmp_path_factory.mktemp("slapd-tokens"), stack_dir / "log")
    server.add(
        person("dora", "dora-pass-1", "dora@example.org")
        + group("netops", ["dora", "keeper"])  # a groupOfNames keeps one member
        + group("monitor-admins", ["dora", "keeper"])
    )
    yield server
    server.stop()


@pytest.fixture
def ldap_on(directory, settings, monkeypatch):
    monkeypatch.setenv("MONITOR_LDAP_URI", directory.uri)
    monkeypatch.setenv("MONITOR_LDAP_USER_BASE", PEOPLE)
    monkeypatch.setenv("MONITOR_LDAP_GROUP_BASE", GROUPS)
    monkeypatch.setenv("MONITOR_LDAP_STAFF_GROUP", f"cn=monitor-admins,{GROUPS}")
    for name, value in ldap_settings().items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [  # as monitor/settings.py installs them with MONITOR_LDAP_URI set
        "axes.backends.AxesStandaloneBackend",
        directory_backend.BACKEND,
        "django.contrib.auth.backends.ModelBackend",
    ]
    return directory


def ldap(directory: Directory, tool: str, change: str) -> None:
    subprocess.run(
        [tool, "-x", "-H", directory.uri, "-D", ADMIN_DN, "-w", ADMIN_PASSWORD],
        input=change, text=True, check=True, capture_output=True,
    )  # fmt: skip


def test_a_directory_accounts_token_reads_what_the_directory_grants_now(ldap_on, fleet, settings):
    netops = Tree.objects.create(name="Netops")
    place_device(fleet["switch"], TreeNode.objects.create(tree=netops, kind="header", title="Core"))
    browser = Client()
    assert browser.post("/login/", {"username": "dora", "password": "dora-pass-1"}).status_code == 302
    dora = get_user_model().objects.get(username="dora")
    assert dora.is_staff and sorted(dora.groups.values_list("name", flat=True)) == ["monitor-admins", "netops"]
    netops.read_groups.add(Group.objects.get(name="netops"))
    _, raw = ApiToken.issue(dora, "script")
    api = Client(**bearer(raw))
    assert api.get(f"/api/trees/{netops.pk}/").status_code == 200
    assert api.get("/metrics").status_code == 200  # staff, through the directory's staff group
    # The directory takes dora out of both groups; she does not sign in again, her script goes on with the token.
    for cn in ("netops", "monitor-admins"):
        leave = f"dn: cn={cn},{GROUPS}\nchangetype: modify\ndelete: member\nmember: uid=dora,{PEOPLE}\n"
        ldap(ldap_on, "ldapmodify", leave)
    settings.API_TOKEN_DIRECTORY_CHECK_S = 3600  # read again at most hourly: within the hour the last answer holds
    assert api.get(f"/api/trees/{netops.pk}/").status_code == 200
    settings.API_TOKEN_DIRECTORY_CHECK_S = 0  # the hour has passed
    assert api.get(f"/api/trees/{netops.pk}/").status_code == 404
    assert api.get("/api/trees/").json()["count"] == 0
    assert api.get("/metrics").status_code == 403  # no longer staff
    dora.refresh_from_db()
    assert not dora.is_staff and list(dora.groups.values_list("name", flat=True)) == []
    # The directory deletes her account: the token is refused, and so it is while the directory is down.
    ldap(ldap_on, "ldapdelete", f"uid=dora,{PEOPLE}\n")
    refused = api.get("/api/devices/")
    assert refused.status_code == 401 and "directory" in refused.json()["detail"]
    assert api.get(f"/api/events/markers?graph={fleet['graph'].pk}").status_code == 401
    ldap(ldap_on, "ldapadd", person("dora", "dora-pass-1", "dora@example.org"))
    assert api.get("/api/devices/").status_code == 200
    working = settings.AUTH_LDAP_SERVER_URI
    settings.AUTH_LDAP_SERVER_URI = "ldap://127.0.0.1:9"  # nothing listens
    down = api.get("/api/devices/")
    assert down.status_code == 401 and "adm1n-secret" not in down.content.decode()
    # After a refusal the directory is asked again at most once a minute: a silent one holds up no request more.
    settings.API_TOKEN_DIRECTORY_CHECK_S = 3600
    DirectoryAccount.objects.filter(user=dora).update(checked_at=timezone.now() - timedelta(hours=2))
    assert api.get("/api/devices/").status_code == 401  # asked, and no answer
    settings.AUTH_LDAP_SERVER_URI = working  # it answers again, but is not asked within the minute
    assert api.get("/api/devices/").status_code == 401
    DirectoryAccount.objects.filter(user=dora).update(failed_at=timezone.now() - timedelta(seconds=61))
    assert api.get("/api/devices/").status_code == 200  # the minute is over: asked, and confirmed
    assert DirectoryAccount.objects.get(user=dora).failed_at is None
    # A local account is no directory account: its token is not sent to the directory at all.
    _, local = ApiToken.issue(fleet["reader"], "local")
    assert Client(**bearer(local)).get(f"/api/graphs/{fleet['graph'].pk}/").status_code == 200
