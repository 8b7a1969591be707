"""Sign-in with directory accounts against a real slapd: directory groups become Django groups at login, and the
trees granted to a group are what its members read; local accounts keep working; a directory that is down or a
wrong password is a refused login, never an error page."""

# ruff: noqa: F401, F811 (the sign-in fixtures: imported from tests/signin.py, named as arguments)
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from monitor.core.directory import ldap_settings
from monitor.graphs.trees.models import Tree
from tests.ldapserver import GROUPS, PEOPLE, group, person
from tests.signin import directory, ldap_on, log_in

pytestmark = pytest.mark.django_db


def test_directory_groups_map_to_tree_read_permissions_at_login(ldap_on, client):
    network, storage = Tree.objects.create(name="Network"), Tree.objects.create(name="Storage")
    assert log_in(client, "alice", "alice-pass-1") == 302
    alice = get_user_model().objects.get(username="alice")
    assert alice.email == "alice@example.org" and alice.first_name == "Alice"
    assert sorted(alice.groups.values_list("name", flat=True)) == ["monitor-admins", "netops"]
    assert alice.is_staff and not alice.is_superuser  # the staff group of MONITOR_LDAP_STAFF_GROUP
    assert not alice.has_usable_password()  # no local password: the directory decides

    # An administrator grants trees to the (mirrored) groups; their members read them from then on.
    from django.contrib.auth.models import Group

    network.read_groups.add(Group.objects.get(name="netops"))  # mirrored at alice's login
    storage.read_groups.add(Group.objects.get_or_create(name="storage")[0])  # named before anyone logged in
    client.logout()
    assert log_in(client, "bob", "bob-pass-1") == 302
    assert client.get(f"/trees/{storage.pk}/").status_code == 200
    assert client.get(f"/trees/{network.pk}/").status_code == 404  # as if it did not exist
    bob = get_user_model().objects.get(username="bob")
    assert not bob.is_staff


def test_leaving_a_directory_group_takes_the_tree_away_at_the_next_login(ldap_on, client):
    import subprocess

    from tests.ldapserver import ADMIN_DN, ADMIN_PASSWORD

    ldap_on.add(person("carol", "carol-pass-1", "carol@example.org") + group("noc", ["carol", "alice"]))
    assert log_in(client, "carol", "carol-pass-1") == 302
    carol = get_user_model().objects.get(username="carol")
    assert list(carol.groups.values_list("name", flat=True)) == ["noc"]
    change = f"dn: cn=noc,{GROUPS}\nchangetype: modify\ndelete: member\nmember: uid=carol,{PEOPLE}\n"
    subprocess.run(
        ["ldapmodify", "-x", "-H", ldap_on.uri, "-D", ADMIN_DN, "-w", ADMIN_PASSWORD],
        input=change, text=True, check=True, capture_output=True,
    )  # fmt: skip
    client.logout()
    assert log_in(client, "carol", "carol-pass-1") == 302
    assert list(carol.groups.values_list("name", flat=True)) == []
    assert sorted(get_user_model().objects.get(username="carol").groups.values_list("name", flat=True)) == []


def test_wrong_passwords_local_accounts_and_a_directory_that_is_down(ldap_on, client, settings):
    assert log_in(client, "alice", "wrong") == 200
    assert "_auth_user_id" not in client.session
    get_user_model().objects.create_user("local-admin", password="local-pass-123")
    assert log_in(client, "local-admin", "local-pass-123") == 302  # local accounts keep working
    client.logout()
    settings.AUTH_LDAP_SERVER_URI = "ldap://127.0.0.1:9"  # nothing listens: the directory is down
    response = client.post("/login/", {"username": "alice", "password": "alice-pass-1"})
    assert response.status_code == 200 and "did not match" in response.content.decode()
    assert log_in(client, "local-admin", "local-pass-123") == 302
    assert "adm1n-secret" not in response.content.decode()


def test_bad_directory_settings_are_refused_with_the_variable_named(monkeypatch):
    from monitor.core.config import ConfigError

    monkeypatch.setenv("MONITOR_LDAP_URI", "ldap://127.0.0.1:389")
    with pytest.raises(ConfigError, match="MONITOR_LDAP_USER_BASE is needed"):
        ldap_settings()
    monkeypatch.setenv("MONITOR_LDAP_USER_BASE", PEOPLE)
    monkeypatch.setenv("MONITOR_LDAP_GROUP_TYPE", "activeDirectory")
    with pytest.raises(ConfigError, match="MONITOR_LDAP_GROUP_TYPE='activeDirectory' is not one of"):
        ldap_settings()
    monkeypatch.delenv("MONITOR_LDAP_URI")
    assert ldap_settings() == {}


def test_a_directory_user_never_becomes_a_local_or_single_sign_on_account_of_the_same_name(ldap_on, client):
    from monitor.core.identities import OidcIdentity

    ldap_on.add(person("root", "directory-root-1", "root@example.org") + person("ivy", "ivy-pass-1", "ivy@example.org"))
    users = get_user_model().objects
    root = users.create_superuser("root", "admin@localhost", "local-root-pass-1")  # made by `createsuperuser`
    for typed in ("root", "ROOT", " Root "):  # the directory matches names in any case, django-auth-ldap strips
        response = client.post("/login/", {"username": typed, "password": "directory-root-1"})
        assert response.status_code == 200 and "did not match" in response.content.decode(), typed
        assert "_auth_user_id" not in client.session
    assert log_in(client, "root", "local-root-pass-1") == 302  # the local password is still the local account's
    assert client.session["_auth_user_id"] == str(root.pk)
    client.logout()
    ivy = users.create_user("ivy", "ivy@sso.example.org")  # made by a single sign-on
    OidcIdentity.objects.create(user=ivy, issuer="https://sso.example.org", subject="42")
    assert log_in(client, "ivy", "ivy-pass-1") == 200 and "_auth_user_id" not in client.session
    ivy.refresh_from_db()
    assert ivy.email == "ivy@sso.example.org" and not ivy.groups.exists()  # not overwritten by the directory's
    root.refresh_from_db()
    assert root.email == "admin@localhost" and root.is_superuser
    root.set_unusable_password()  # the administrator hands the account over (docs/signin.md)
    root.save()
    assert log_in(client, "root", "directory-root-1") == 302 and client.session["_auth_user_id"] == str(root.pk)
