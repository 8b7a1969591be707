"""Staff users who may only view: every admin change page opens for them and none shows a stored secret (Django shows
a view-only user each field as the model's value in plain text; the write-only inputs are not used then)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.utils import timezone

from monitor.events.models import TrapCredential
from monitor.models import Device
from tests.staffkit import signed_in, staff_with

pytestmark = pytest.mark.django_db

SECRET_V3 = {"v3_auth_key": "auth-key-S3CRET-1", "v3_priv_key": "priv-key-S3CRET-2"}
# Their admins are on branch sec/alerts2 (another part of issue 40): this test checks their pages open; the secret
# check of their values joins once that branch is merged (remove the exemption then).
SECRETS_CHECKED_ELSEWHERE: set[str] = set()
SUPERUSER_ONLY = {"alerts.mailserver"}  # refused (403) to every other user, view permission or not


def _device(name: str = "sw-1", **more) -> Device:
    return Device.objects.create(name=name, host="127.0.0.1", community="dev-community-S3CRET", **more)


def test_a_view_only_user_sees_whether_device_and_trap_secrets_are_stored_never_their_values(client, django_user_model):
    device = _device(snmp_version="3", v3_user="monitor", v3_security_level="authPriv", **SECRET_V3)
    trap = TrapCredential.objects.create(device=device, community="trap-community-S3CRET", v3_user="traps", **SECRET_V3)
    viewer = staff_with(django_user_model, "viewer", "monitor.view_device", "events.view_trapcredential")
    signed_in(client, viewer)
    for path in (f"/admin/monitor/device/{device.pk}/change/", f"/admin/events/trapcredential/{trap.pk}/change/"):
        response = client.get(path)
        page = response.content.decode()
        assert response.status_code == 200, path
        assert "S3CRET" not in page, (path, [line for line in page.splitlines() if "S3CRET" in line])
        assert page.count("A value is stored (hidden).") == 3, path  # community and both keys: set, not shown
    page = client.get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert "monitor" in page and "sw-1" in page  # what is no secret is still shown


def test_an_editor_still_gets_the_write_only_inputs(client, django_user_model):
    device = _device()
    editor = staff_with(django_user_model, "editor", "monitor.view_device", "monitor.change_device")
    page = signed_in(client, editor).get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert 'type="password" name="community"' in page and "S3CRET" not in page
    assert "A value is stored (hidden)." not in page


def test_a_view_only_staff_user_can_open_a_device_in_the_admin(client, django_user_model):
    """With the view permission alone the device page answers (DeviceForm raised KeyError 'v3_user': a 500)."""
    device = _device()
    signed_in(client, staff_with(django_user_model, "viewer", "monitor.view_device"))
    client.raise_request_exception = False
    response = client.get(f"/admin/monitor/device/{device.pk}/change/")
    assert response.status_code == 200
    assert "sw-1" in response.content.decode()


def _one_of_each(viewer) -> dict[str, tuple[object, list[str]]]:
    """A row of every registered model, by label, with the stored secrets its page must not show."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    from monitor.alerts.models import AlertState, Channel, Delivery, MailServer, Maintenance, Rule
    from monitor.alerts.models import Event as AlertEvent
    from monitor.events.models import Event, Receiver
    from monitor.graphs.trees.models import AggregateGraph, ApiToken, DashboardItem, Tree, TreeNode
    from monitor.models import Graph
    from monitor.storage.models import HeatmapLevels, PartState, PathLink
    from monitor.topology.models import Upstream

    now = timezone.now()
    device = _device(snmp_version="3", v3_user="monitor", v3_security_level="authPriv", **SECRET_V3)
    other = _device("sw-2")
    graph = Graph.objects.create(device=device, template="traffic", instance="1/g1", title="Traffic 1/g1")
    tree = Tree.objects.create(name="Net")
    rule = Rule.objects.create(name="cpu", metric="cpu", fire_level=90, clear_level=80)
    state = AlertState.objects.create(rule=rule, device=device)
    event = AlertEvent.objects.create(state=state, rule=rule, device=device, kind="fire", to_state="firing")
    channel = Channel.objects.create(
        name="slack", kind="slack", url="https://hooks.slack.example/services/T0/B0/S3CRET", secret="hmac-S3CRET"
    )
    mail = MailServer.objects.create(host="smtp.example.com", username="mon", password="mail-S3CRET")
    token = ApiToken(user=viewer, name="mine")
    token.arm(30)
    token.save()
    aggregate = AggregateGraph.objects.create(title="LAG", template="traffic")
    ask = {"user_agent": "ua", "http_accept": "*/*", "path_info": "/login/"}
    found = {
        "auth.group": (Group.objects.create(name="noc"), []),
        "auth.user": (viewer, [viewer.password.rsplit("$", 1)[-1]]),
        "events.trapcredential": (
            TrapCredential.objects.create(device=device, community="trap-S3CRET", **SECRET_V3),
            ["trap-S3CRET", *SECRET_V3.values()],
        ),
        "events.event": (
            Event.objects.create(time=now, device=device, source="trap", kind="linkDown", severity=3, text="down"),
            [],
        ),
        "events.receiver": (
            Receiver.objects.create(name="trap@0.0.0.0:162", kind="trap", started_at=now, last_seen=now),
            [],
        ),
        "alerts.rule": (rule, []),
        "alerts.maintenance": (Maintenance.objects.create(device=device, starts_at=now, ends_at=now), []),
        "alerts.alertstate": (state, []),
        "alerts.event": (event, []),
        "alerts.mailserver": (mail, ["mail-S3CRET"]),
        "alerts.channel": (channel, ["S3CRET"]),
        "alerts.delivery": (Delivery.objects.create(event=event, channel=channel), []),
        "monitor.device": (device, ["dev-community-S3CRET", *SECRET_V3.values()]),
        "monitor.graph": (graph, []),
        "trees.tree": (tree, []),
        "trees.treenode": (TreeNode.objects.create(tree=tree, kind="header", title="Core"), []),
        "trees.aggregategraph": (aggregate, []),
        "trees.dashboarditem": (DashboardItem.objects.create(user=viewer, graph=graph), []),
        "trees.apitoken": (token, [token.digest]),
        "storage.heatmaplevels": (HeatmapLevels.objects.create(device=device), []),
        "storage.pathlink": (
            PathLink.objects.create(array=device, array_port="eth0", switch=other, switch_port="1/g1", learned_at=now),
            [],
        ),
        "storage.partstate": (
            PartState.objects.create(device=device, part="Disk 1", state="failed", since=now, seen_at=now),
            [],
        ),
        "topology.upstream": (Upstream.objects.create(device=other, parent=device), []),
        "axes.accessattempt": (
            AccessAttempt.objects.create(**ask, get_data="", post_data="", failures_since_start=1),
            [],
        ),
        "axes.accesslog": (AccessLog.objects.create(**ask), []),
        "axes.accessfailurelog": (AccessFailureLog.objects.create(**ask), []),
    }
    return found


def test_every_admin_change_page_opens_for_a_view_only_user_and_shows_no_stored_secret(client, django_user_model):
    registered = {model._meta.label_lower: model for model in admin.site._registry}
    viewer = staff_with(
        django_user_model, "viewer", *(f"{m._meta.app_label}.view_{m._meta.model_name}" for m in registered.values())
    )
    rows = _one_of_each(viewer)
    assert set(rows) == set(registered), "a newly registered admin needs a row here"
    signed_in(client, viewer)
    client.raise_request_exception = False
    answers, leaks = {}, {}
    for label, (obj, secrets) in rows.items():
        model = registered[label]
        path = f"/admin/{model._meta.app_label}/{model._meta.model_name}/{obj.pk}/change/"
        response = client.get(path)
        answers[label] = response.status_code
        if label not in SECRETS_CHECKED_ELSEWHERE:
            leaks[label] = [s for s in secrets if s and s in response.content.decode()]
    expected = {label: 403 if label in SUPERUSER_ONLY else 200 for label in rows}
    assert answers == expected
    assert {label: found for label, found in leaks.items() if found} == {}
