"""Alert rules and channels as a narrow user tries them: a rule author who reads one tree is told nothing about the
devices of other trees, an admin's "every device" rule is not another's to read or redirect, unticking a built-in
alert takes only the caller off it, and a view-only staff user sees no channel URL or signing key in the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone

from monitor.alerts import eventrules
from monitor.alerts.messages import build_message
from monitor.alerts.models import Channel, Rule
from monitor.alerts.models import Event as AlertEvent
from monitor.events.models import Event
from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device

pytestmark = pytest.mark.django_db
RULE = {"enabled": "on", "metric": "cpu", "scope": "device", "direction": "above", "unit": "absolute",
        "fire_level": "90", "clear_level": "80", "for_polls": "3", "repeat_minutes": "0"}  # fmt: skip


@pytest.fixture
def world(clean_backends, django_user_model):
    """Tree-Net (read by alice) holds net-switch; Tree-Secret (no grants) holds secret-box; sam is staff."""
    net = Device.objects.create(name="net-switch", host="10.0.0.1", community="x", profile="powerconnect")
    secret = Device.objects.create(name="secret-box", host="10.0.0.4", community="x", profile="powerconnect")
    tnet = Tree.objects.create(name="Tree-Net", position=1)
    core = TreeNode.objects.create(tree=tnet, kind="header", title="Core", position=1)
    place_device(net, core)
    tsecret = Tree.objects.create(name="Tree-Secret", position=2)
    place_device(secret, TreeNode.objects.create(tree=tsecret, kind="header", title="Vault", position=1))
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "s3cret-pass-123")
    sam = django_user_model.objects.create_user("sam", "sam@example.com", "s3cret-pass-123", is_staff=True)
    tnet.read_users.add(alice)
    return {"net": net, "secret": secret, "core": core, "alice": alice, "sam": sam}


def as_user(client, user):
    client.logout()
    client.force_login(user)
    return client


def grant(user, *codenames: str) -> None:
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))


def mails_about(device: Device, address: str) -> list:
    """The alert mails built for `device`'s events that go to `address`."""
    return [m for m in map(build_message, AlertEvent.objects.filter(device=device)) if address in m.to]


@pytest.mark.parametrize("scope", ["all", "profile"])
def test_a_rule_author_who_reads_one_tree_gets_no_mail_about_the_devices_of_others(client, world, scope):
    grant(world["alice"], "add_rule")
    as_user(client, world["alice"])
    posted = {**RULE, "name": "everything", "metric": "event", "scope": scope, "event_kind": "syslog"}
    posted |= {"profile": "powerconnect", "recipient_emails": "alice@outside.example", "for_polls": "1"}
    response = client.post("/alerts/rules/new/", posted)
    event = Event.objects.create(time=timezone.now(), device=world["secret"], source="syslog", kind="syslog",
                                 severity=3, text="vault: root pw reset")  # fmt: skip
    eventrules.evaluate_events([event])
    assert mails_about(world["secret"], "alice@outside.example") == []
    assert response.status_code == 200
    assert "only devices you can see" in " ".join(response.context["form"].errors["scope"])
    assert not Rule.objects.filter(name="everything").exists()
    page = client.get("/alerts/rules/new/").content.decode()
    assert 'value="device"' in page and 'value="all"' not in page and 'value="profile"' not in page


def test_a_rule_author_who_reads_one_tree_may_watch_its_branch_and_staff_may_watch_every_device(client, world):
    grant(world["alice"], "add_rule")
    as_user(client, world["alice"])
    posted = {**RULE, "name": "core", "scope": "branch", "branch": str(world["core"].pk)}
    assert client.post("/alerts/rules/new/", {**posted, "recipient_emails": "a@example.com"}).status_code == 302
    grant(world["sam"], "add_rule")
    as_user(client, world["sam"])
    fleet = {**RULE, "name": "fleet", "scope": "all", "recipient_emails": "noc@example.com"}
    assert client.post("/alerts/rules/new/", fleet).status_code == 302
    assert set(Rule.objects.values_list("name", "scope")) == {("core", "branch"), ("fleet", "all")}


def test_a_rule_editor_who_reads_one_tree_cannot_read_or_take_over_an_every_device_rule(client, world):
    fleet = Rule.objects.create(name="fleet cpu", metric="cpu", scope="all", fire_level=90, clear_level=80,
                                recipient_emails="noc@corp.example")  # fmt: skip
    by_profile = Rule.objects.create(name="pc cpu", metric="cpu", scope="profile", profile="powerconnect",
                                     fire_level=90, clear_level=80, recipient_emails="noc@corp.example")  # fmt: skip
    grant(world["alice"], "change_rule")
    as_user(client, world["alice"])
    for rule in (fleet, by_profile):
        assert client.get(f"/alerts/rules/{rule.pk}/").status_code == 404
        posted = {**RULE, "name": rule.name, "scope": "device", "device": world["net"].pk}
        posted.pop("enabled")  # unticked: off
        response = client.post(f"/alerts/rules/{rule.pk}/", {**posted, "recipient_emails": "alice@outside.example"})
        assert response.status_code == 404
        rule.refresh_from_db()
        assert (rule.enabled, rule.recipient_emails, rule.device_id) == (True, "noc@corp.example", None)
    assert "fleet cpu" not in client.get(f"/devices/{world['net'].pk}/").content.decode()


def test_a_reader_cannot_switch_off_the_builtin_alerts_someone_else_turned_on(client, world):
    net, alice, sam = world["net"], world["alice"], world["sam"]
    defaults_url = f"/alerts/devices/{net.pk}/defaults"
    as_user(client, sam)
    assert client.post(defaults_url, {"default": ["cpu", "not_answering"]}).status_code == 302
    as_user(client, alice)
    assert client.post(defaults_url, {}).status_code == 302  # the attack: nothing ticked
    on = Rule.objects.filter(device=net, enabled=True)
    assert set(on.values_list("builtin", flat=True)) == {"cpu", "not_answering"}
    assert all(list(rule.recipient_users.all()) == [sam] for rule in on)
    assert 'value="cpu" checked' not in client.get(f"/devices/{net.pk}/").content.decode()  # not mailed to her

    assert client.post(defaults_url, {"default": ["cpu"]}).status_code == 302  # alice joins the CPU alert
    cpu = Rule.objects.get(device=net, builtin="cpu")
    assert set(cpu.recipient_users.all()) == {alice, sam}
    assert 'value="cpu" checked' in client.get(f"/devices/{net.pk}/").content.decode()
    assert client.post(defaults_url, {}).status_code == 302  # and leaves it: sam's stays
    cpu.refresh_from_db()
    assert cpu.enabled and list(cpu.recipient_users.all()) == [sam]

    as_user(client, sam)
    assert client.post(defaults_url, {"default": ["cpu"]}).status_code == 302  # the last recipient leaves
    assert set(Rule.objects.filter(device=net, enabled=True).values_list("builtin", flat=True)) == {"cpu"}


def test_a_view_only_staff_user_sees_no_channel_url_or_signing_key_in_the_admin(client, world, django_user_model):
    slack = Channel.objects.create(
        name="slack", kind="slack", url="https://hooks.slack.example/services/T0/B0/SLACKTOK"
    )
    hook = Channel.objects.create(name="hook", kind="webhook", url="https://hooks.example/in/HOOKPATH", secret="HMACK")
    viewer = django_user_model.objects.create_user("viewer", "v@example.com", "s3cret-pass-123", is_staff=True)
    grant(viewer, "view_channel")
    as_user(client, viewer)
    for channel, secrets in ((slack, ["SLACKTOK"]), (hook, ["HOOKPATH", "HMACK"])):
        page = client.get(f"/admin/alerts/channel/{channel.pk}/change/")
        assert page.status_code == 200
        text = page.content.decode()
        assert [s for s in secrets if s in text] == []
        assert channel.name in text and "A value is stored (hidden)." in text
    assert client.post(f"/admin/alerts/channel/{hook.pk}/change/", {"name": "x"}).status_code == 403
    grant(viewer, "change_channel")  # an editor gets the form: empty password inputs, the values kept
    viewer = django_user_model.objects.get(pk=viewer.pk)
    text = as_user(client, viewer).get(f"/admin/alerts/channel/{hook.pk}/change/").content.decode()
    assert 'type="password" name="secret"' in text and "HMACK" not in text and "HOOKPATH" not in text
