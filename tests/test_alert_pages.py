"""Rule forms (admin and device page), device defaults, current alerts with acknowledge, history, escaping."""

from __future__ import annotations

import pytest
from django.utils import timezone

from monitor.alerts.models import AlertState, Event, Rule
from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device

pytestmark = pytest.mark.django_db

GOOD = {
    "name": "core uplink",
    "enabled": "on",
    "metric": "port_in",
    "scope": "series",
    "instance": "1/g1",
    "direction": "above",
    "unit": "percent",
    "fire_level": "80",
    "clear_level": "70",
    "for_polls": "3",
    "repeat_minutes": "0",
    "recipient_emails": "ops@example.com",
}


@pytest.fixture
def device(db) -> Device:
    return Device.objects.create(name="<i>edge</i>", host="127.0.0.1", community="s3cret-community")


def field_errors(response) -> dict[str, list[str]]:
    return {name: list(errors) for name, errors in response.context["form"].errors.items()}


def test_a_valid_rule_is_saved_from_the_device_page(client, admin_user, device):
    client.force_login(admin_user)
    response = client.post(f"/alerts/rules/new/?device={device.pk}", {**GOOD, "device": device.pk})
    assert response.status_code == 302 and response["Location"] == f"/devices/{device.pk}/"
    rule = Rule.objects.get(name="core uplink")
    assert (rule.metric, rule.unit, rule.fire_level, rule.clear_level) == ("port_in", "percent", 80.0, 70.0)
    assert rule.recipients() == ["ops@example.com"]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"clear_level": "85"}, "clear_level", "clear level must be at or below the fire level (80)"),
        ({"direction": "below", "clear_level": "70"}, "clear_level", "must be at or above the fire level (80)"),
        ({"recipient_emails": ""}, "recipient_emails", "Add at least one recipient"),
        ({"recipient_emails": "not-an-address"}, "recipient_emails", "'not-an-address' is not an email address"),
        ({"metric": "port_temperature_of_doom"}, "metric", "Unknown metric port_temperature_of_doom"),
        ({"metric": "cpu"}, "unit", "Percent of port speed only applies to port metrics"),
        ({"instance": ""}, "instance", "Name the port, volume or sensor"),
        ({"scope": "branch"}, "", ""),
    ],
)
def test_invalid_rules_get_a_message_next_to_the_field(client, admin_user, device, change, field, message):
    client.force_login(admin_user)
    response = client.post("/alerts/rules/new/", {**GOOD, "device": device.pk, **change})
    assert response.status_code == 200 and not Rule.objects.exists()
    errors = field_errors(response)
    if not field:  # branch scope: an error on scope or branch, whichever applies with or without the trees app
        assert set(errors) & {"scope", "branch"}
        return
    assert any(message in e for e in errors[field]), errors
    page = response.content.decode()
    assert f'data-field="{field}"' in page


def test_admin_uses_the_same_checks(client, admin_user, device):
    client.force_login(admin_user)
    response = client.post("/admin/alerts/rule/add/", {**GOOD, "device": device.pk, "clear_level": "90"})
    assert response.status_code == 200 and not Rule.objects.exists()
    assert "clear level must be at or below the fire level" in response.content.decode()


def test_defaults_are_turned_on_and_off_from_the_device_page(client, admin_user, device):
    admin_user.email = "admin@example.com"
    admin_user.save()
    client.force_login(admin_user)
    page = client.get(f"/devices/{device.pk}/").content.decode()
    assert 'id="alerts-panel"' in page and "Port utilisation above 80 %" in page
    client.post(f"/alerts/devices/{device.pk}/defaults", {"default": ["port_util", "not_answering"]})
    rules = {r.builtin: r for r in Rule.objects.filter(device=device)}
    assert set(rules) == {"port_util", "not_answering"}
    assert (rules["port_util"].fire_level, rules["port_util"].clear_level, rules["port_util"].unit) == (
        80,
        70,
        "percent",
    )
    assert rules["not_answering"].for_polls == 3 and rules["port_util"].recipients() == ["admin@example.com"]
    client.post(f"/alerts/devices/{device.pk}/defaults", {"default": ["not_answering"]})
    assert not Rule.objects.get(builtin="port_util").enabled
    assert 'name="default" value="not_answering" checked' in client.get(f"/devices/{device.pk}/").content.decode()


def test_defaults_need_an_email_address(client, admin_user, device):
    admin_user.email = ""
    admin_user.save()
    client.force_login(admin_user)
    response = client.post(f"/alerts/devices/{device.pk}/defaults", {"default": ["cpu"]}, follow=True)
    assert not Rule.objects.exists()
    assert "Your account has no email address" in response.content.decode()


def firing(device: Device) -> AlertState:
    rule = Rule.objects.create(
        name="<b>hot</b>", metric="cpu", scope="device", device=device, fire_level=90, clear_level=80
    )
    state = AlertState.objects.create(rule=rule, device=device, state="firing", value=97.5, since=timezone.now())
    Event.objects.create(state=state, rule=rule, device=device, kind="fire", to_state="firing", value=97.5, mail="sent")
    return state


def test_current_alerts_escape_device_strings_and_can_be_acknowledged(client, admin_user, device):
    state = firing(device)
    client.force_login(admin_user)
    page = client.get("/alerts/").content.decode()
    assert "&lt;i&gt;edge&lt;/i&gt;" in page and "<i>edge</i>" not in page
    assert "&lt;b&gt;hot&lt;/b&gt;" in page and "97.50" in page
    assert "s3cret-community" not in page
    client.post(f"/alerts/{state.pk}/acknowledge")
    state.refresh_from_db()
    assert state.acknowledged_by == admin_user.username and state.acknowledged_at is not None
    assert f"acknowledged by {admin_user.username}" in client.get("/alerts/").content.decode()


def test_history_filters_by_device(client, admin_user, device):
    firing(device)
    other = Device.objects.create(name="other-box", host="127.0.0.1")
    firing(other)
    client.force_login(admin_user)
    page = client.get("/alerts/history/", {"device": device.pk}).content.decode()
    assert page.count("<td>firing</td>") == 1 and "other-box</a></td>" not in page
    page = client.get("/alerts/history/").content.decode()
    assert page.count("<td>firing</td>") == 2


def test_pages_need_a_login(client, device):
    for url in ("/alerts/", "/alerts/history/", "/alerts/rules/new/", "/alerts/mail/"):
        response = client.get(url)
        assert response.status_code == 302 and "login" in response["Location"], url


def test_maintenance_form_checks_the_period(client, admin_user, device):
    client.force_login(admin_user)
    bad = {"device": device.pk, "starts_at": "2030-01-02T10:00", "ends_at": "2030-01-02T09:00", "reason": "swap"}
    response = client.post("/alerts/maintenance/new/", bad)
    assert response.status_code == 200
    assert field_errors(response)["ends_at"] == ["The end must be after the start."]
    response = client.post("/alerts/maintenance/new/", {**bad, "device": "", "branch": ""})
    assert "Choose a device or a tree branch" in field_errors(response)["device"][0]
    response = client.post("/alerts/maintenance/new/", {**bad, "ends_at": "2030-01-02T12:00"})
    assert response.status_code == 302 and device.maintenance_windows.count() == 1


def test_captured_mail_page_shows_file_backend_mail_escaped(client, admin_user, device, settings, tmp_path):
    from monitor.alerts.messages import build_message

    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path)
    state = firing(device)
    state.rule.recipient_emails = "ops@example.com"
    state.rule.save()
    build_message(state.events.get()).send()
    client.force_login(admin_user)
    page = client.get("/alerts/mail/").content.decode()
    assert "[FIRING] &lt;i&gt;edge&lt;/i&gt;: CPU utilisation 97.5 %" in page
    assert "To ops@example.com" in page and "Rule: &lt;b&gt;hot&lt;/b&gt;" in page


def test_users_without_the_permission_cannot_edit_rules_but_can_mail_themselves(client, django_user_model, device):
    user = django_user_model.objects.create_user("viewer", "viewer@example.com", "pw-for-tests-only")
    tree = Tree.objects.create(name="Edge")  # the viewer may read the device, nothing more
    place_device(device, TreeNode.objects.create(tree=tree, kind="header", title="Sites"))
    tree.read_users.add(user)
    client.force_login(user)
    assert client.post("/alerts/rules/new/", {**GOOD, "device": device.pk}).status_code == 403
    assert client.get("/alerts/maintenance/new/").status_code == 403
    assert "Add a rule" not in client.get(f"/devices/{device.pk}/").content.decode()
    client.post(f"/alerts/devices/{device.pk}/defaults", {"default": ["cpu"]})
    assert Rule.objects.get().recipients() == ["viewer@example.com"]


def test_the_home_page_shows_current_alerts_first_and_only_on_devices_the_reader_may_read(client, django_user_model):
    seen = Device.objects.create(name="<i>edge</i>", host="127.0.0.1", community="s3cret-community")
    hidden = Device.objects.create(name="hidden-core", host="127.0.0.2")
    firing(seen)
    rule = Rule.objects.create(name="slow", metric="cpu", scope="device", device=seen, fire_level=90, clear_level=80)
    AlertState.objects.create(rule=rule, device=seen, state="pending", value=91.0, since=timezone.now())
    firing(hidden)
    user = django_user_model.objects.create_user("viewer", "viewer@example.com", "pw-for-tests-only")
    tree = Tree.objects.create(name="Edge")
    place_device(seen, TreeNode.objects.create(tree=tree, kind="header", title="Sites"))
    tree.read_users.add(user)
    client.force_login(user)
    page = client.get("/?range=1h").content.decode()
    panel = page.split('<section id="current-alerts">')[1].split("</section>")[0]
    assert panel.index("firing") < panel.index("pending") and "97.50" in panel and "91.00" in panel
    assert "&lt;b&gt;hot&lt;/b&gt;" in panel and "<b>hot</b>" not in panel and "&lt;i&gt;edge&lt;/i&gt;" in panel
    assert "hidden-core" not in page  # another tree's device: neither its alert nor its name
    assert page.index('id="current-alerts"') < page.index('id="devices"')  # what is wrong comes first
    Rule.objects.update(enabled=False)
    assert "Nothing is firing." in client.get("/?range=1h").content.decode()
