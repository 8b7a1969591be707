"""Alert rules on events, end to end: real senders, the receivers, the rule's state machine, one mail through a
real SMTP server (aiosmtpd); hold, clearing events, quiet time and maintenance as for threshold rules."""

from __future__ import annotations

import subprocess
from datetime import timedelta

import pytest
from django.utils import timezone

from monitor.alerts import delivery, eventrules
from monitor.alerts.forms import RuleForm
from monitor.alerts.models import AlertState, Maintenance, Rule
from monitor.alerts.models import Event as AlertEvent
from monitor.events.models import Event
from monitor.events.syslogd import SyslogReceiver
from monitor.events.traps import TrapReceiver
from monitor.models import Device, Interface
from tests import eventkit as kit
from tests import test_alert_kit
from tests.conftest import wait_for

smtp = test_alert_kit.smtp  # fixture: a real SMTP server on loopback
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def device(stack_env):
    found = Device.objects.create(name="rule-switch", host="127.0.0.1", community="traps")
    Interface.objects.create(device=found, name="1/g5", if_index=5, alias="<i>server-05</i>")
    return found


def rule(device, **fields) -> Rule:
    defaults = {"name": "port down", "metric": "event", "scope": "device", "device": device,
                "fire_level": 0.5, "clear_level": 0.5, "recipient_emails": "ops@example.com"}  # fmt: skip
    return Rule.objects.create(**(defaults | fields))


def subjects(server) -> list[str]:
    return [str(m["Subject"]).strip() for m in server.messages]


def state_of(found_rule, instance: str = "") -> str:
    row = AlertState.objects.filter(rule=found_rule, instance=instance).first()
    return row.state if row else "none"


def test_a_linkdown_trap_rule_mails_once_and_recovers_on_linkup(device, smtp):
    watched = rule(device, event_kind="link_down")
    traps = TrapReceiver("127.0.0.1", 0, name="trap@rules").start()
    try:
        kit.snmptrap(*kit.link_trap_args(traps.port, 5, down=True))
        wait_for(lambda: state_of(watched, "1/g5") == "firing", 15, "the rule firing")
        kit.snmptrap(*kit.link_trap_args(traps.port, 5, down=True))  # again: still firing, no second mail
        kit.events_of(device, 2, kind="link_down")
        assert delivery.send_due()["sent"] == 1 and delivery.send_due()["sent"] == 0
        assert subjects(smtp) == ["[FIRING] rule-switch 1/g5: linkDown trap — Link down on 1/g5 (admin up, oper down)"]
        body = smtp.messages[0].get_body(("plain",)).get_content()
        assert "Link down on 1/g5 (admin up, oper down)" in body and "(<i>server-05</i>)" in body
        html = smtp.messages[0].get_body(("html",)).get_content()
        assert "&lt;i&gt;server-05&lt;/i&gt;" in html and "<i>server-05</i>" not in html
        kit.snmptrap(*kit.link_trap_args(traps.port, 5, down=False))
        wait_for(lambda: state_of(watched, "1/g5") == "ok", 15, "the rule clearing on linkUp")
    finally:
        traps.stop()
    assert delivery.send_due()["sent"] == 1
    assert subjects(smtp)[1].startswith("[RECOVERED] rule-switch 1/g5: linkDown trap — Link up on 1/g5")
    assert len(smtp.messages) == 2 and smtp.sink.recipients[0] == ["ops@example.com"]
    # The alert is on the port's timeline too (fire and recovery), as markers on its graphs.
    timeline = list(
        Event.objects.filter(device=device, kind__startswith="alert_").order_by("id").values_list("kind", "port")
    )
    assert timeline == [("alert_fire", "1/g5"), ("alert_clear", "1/g5")]


def test_a_syslog_pattern_rule_with_severity_and_quiet_time(device, smtp):
    watched = rule(device, name="raid", event_kind="syslog", event_severity=4, event_pattern=r"raid .*degraded",
                   quiet_minutes=15)  # fmt: skip
    syslog = SyslogReceiver("127.0.0.1", 0, name="syslog@rules").start()
    try:
        for priority, text in (("daemon.info", "RAID set degraded"), ("daemon.err", "disk sda ok"),
                               ("daemon.err", "RAID set 2 DEGRADED")):  # fmt: skip
            result = subprocess.run(["logger", "-n", "127.0.0.1", "-P", str(syslog.port), "-d", "-p", priority,
                                     "-t", "raidd", text], capture_output=True, timeout=20)  # fmt: skip
            assert result.returncode == 0
        kit.events_of(device, 3, source="syslog")
        wait_for(lambda: state_of(watched) == "firing", 15, "the rule firing")
    finally:
        syslog.stop()
    assert delivery.send_due()["sent"] == 1
    assert subjects(smtp) == ["[FIRING] rule-switch: syslog message — raidd: RAID set 2 DEGRADED"]
    (fired,) = AlertEvent.objects.filter(rule=watched, kind="fire")
    assert fired.detail == "raidd: RAID set 2 DEGRADED"
    AlertState.objects.filter(rule=watched).update(updated_at=timezone.now() - timedelta(minutes=10))
    assert eventrules.quiet() == 0  # not quiet long enough
    AlertState.objects.filter(rule=watched).update(updated_at=timezone.now() - timedelta(minutes=16))
    assert eventrules.quiet() == 1
    assert delivery.send_due()["sent"] == 1 and subjects(smtp)[1].startswith("[RECOVERED] rule-switch: syslog message")
    assert "15 min without a match" in smtp.messages[1].get_body(("plain",)).get_content()


def test_one_trap_fires_a_rule_saved_with_the_forms_defaults_and_mails(device, smtp):
    """The rule form as a newcomer leaves it (For (polls): 3 is a threshold rule's): one linkDown trap mails."""
    data = {"name": "link down", "enabled": "on", "metric": "event", "scope": "device", "device": device.pk,
            "event_kind": "link_down", "quiet_minutes": 15, "for_polls": 3, "repeat_minutes": 0,
            "recipient_emails": "ops@example.com", "direction": "above", "unit": "absolute"}  # fmt: skip
    form = RuleForm(data)
    assert form.is_valid(), form.errors
    watched = form.save()
    assert (watched.events_needed, watched.within_minutes) == (1, 10)
    traps = TrapReceiver("127.0.0.1", 0, name="trap@defaults").start()
    try:
        kit.snmptrap(*kit.link_trap_args(traps.port, 5, down=True))
        wait_for(lambda: state_of(watched, "1/g5") == "firing", 15, "the rule firing on the first trap")
    finally:
        traps.stop()
    assert delivery.send_due()["sent"] == 1
    assert subjects(smtp) == ["[FIRING] rule-switch 1/g5: linkDown trap — Link down on 1/g5 (admin up, oper down)"]
    assert smtp.sink.recipients[0] == ["ops@example.com"]


def test_a_hold_of_events_counts_those_within_its_window_from_the_first(device, smtp):
    """2 events within 10 minutes: 0 and 11 min are 11 apart (the second starts a window), 11 and 12 fire."""
    held = rule(device, name="twice", event_kind="auth_failure", events_needed=2, within_minutes=10)
    start = timezone.now() - timedelta(minutes=30)
    for minute, expected in ((0, "pending"), (11, "pending"), (12, "firing")):
        at = start + timedelta(minutes=minute)
        stored = Event.objects.create(device=device, time=at, source="trap", kind="auth_failure", severity=4,
                                      text=f"auth at {minute}")  # fmt: skip
        eventrules.evaluate_events([stored], now=at)
        assert state_of(held) == expected, minute
    assert list(AlertEvent.objects.filter(rule=held, kind="fire").values_list("detail", flat=True)) == ["auth at 12"]
    assert delivery.send_due()["sent"] == 1
    body = smtp.messages[0].get_body(("plain",)).get_content()
    assert "(2 events within 10 min)" in body


def test_the_migration_keeps_the_hold_of_event_rules_saved_before(device):
    """Event rules from before counted for_polls events in a row with no window: they keep both."""
    from importlib import import_module

    from django.apps import apps

    old = rule(device, name="old hold", event_kind="syslog", for_polls=3)
    single = rule(device, name="old single", event_kind="syslog", for_polls=1)
    threshold = Rule.objects.create(name="cpu", metric="cpu", scope="device", device=device, fire_level=90,
                                    clear_level=80, for_polls=3, recipient_emails="ops@example.com")  # fmt: skip
    import_module("monitor.alerts.migrations.0007_event_rule_hold").keep_holds(apps, None)
    found = {
        r.name: (r.events_needed, r.within_minutes)
        for r in Rule.objects.filter(pk__in=[old.pk, single.pk, threshold.pk])
    }
    assert found == {"old hold": (3, 10080), "old single": (1, 10), "cpu": (1, 10)}


def test_hold_flapping_and_maintenance_are_the_threshold_rules(device, smtp):
    held = rule(device, name="held", event_kind="auth_failure", events_needed=3)
    now = timezone.now()
    for n in range(2):
        eventrules.evaluate_events([Event.objects.create(device=device, time=now, source="trap", kind="auth_failure",
                                                         severity=4, text=f"auth {n}")])  # fmt: skip
    assert state_of(held) == "pending"
    Maintenance.objects.create(device=device, starts_at=now - timedelta(minutes=1), ends_at=now + timedelta(hours=1))
    eventrules.evaluate_events(
        [Event.objects.create(device=device, time=now, source="trap", kind="auth_failure", severity=4, text="auth 3")]
    )
    assert state_of(held) == "firing"
    assert list(AlertEvent.objects.filter(rule=held, kind="fire").values_list("mail", flat=True)) == ["muted"]
    assert delivery.send_due()["sent"] == 0 and smtp.messages == []
    window = Event.objects.get(device=device, kind="maintenance")
    assert window.ends_at is not None and window.text == "Maintenance"


def test_the_rule_form_takes_event_fields_and_refuses_a_bad_pattern(device):
    data = {"name": "r", "enabled": "on", "metric": "event", "scope": "device", "device": device.pk,
            "event_kind": "syslog", "event_pattern": "([unclosed", "quiet_minutes": 15, "for_polls": 1,
            "repeat_minutes": 0, "recipient_emails": "ops@example.com", "direction": "above",
            "unit": "absolute"}  # fmt: skip
    form = RuleForm(data)
    assert not form.is_valid() and form.errors["event_pattern"][0].startswith("Not a pattern this monitor can run:")
    form = RuleForm(data | {"event_pattern": "link.*down"})
    assert form.is_valid(), form.errors
    saved = form.save()
    assert (saved.fire_level, saved.clear_level, saved.event_pattern) == (0.5, 0.5, "link.*down")
    assert not RuleForm(data | {"metric": "cpu", "event_pattern": ""}).is_valid()  # thresholds still need levels


def test_a_flood_costs_each_target_at_most_its_hold_plus_one_step_with_the_same_outcome(device, smtp):
    """A batch's runs of one value for one target keep the hold's steps and the last; the machine ends the same."""
    held = rule(device, name="flood", event_kind="syslog", events_needed=3)
    quiet_rule = rule(device, name="ports", event_kind="link_down")
    ev = [Event(device=device, time=timezone.now(), kind="syslog", text=f"line {n}") for n in range(8)]
    port = Event(device=device, time=timezone.now(), kind="link_up", port="1/g5")
    steps = [(held, device, "", eventrules.MATCHED, e) for e in ev[:6]]
    steps += [(quiet_rule, device, "1/g5", eventrules.QUIET, port), (held, device, "", eventrules.QUIET, ev[6])]
    steps += [(held, device, "", eventrules.MATCHED, ev[7])]
    assert [s[4].text for s in eventrules.coalesce(steps)] == [
        "line 0", "line 1", "line 2", "line 5", "", "line 6", "line 7"
    ]  # fmt: skip
    now = timezone.now()
    flood = Event.objects.bulk_create(
        [Event(device=device, time=now, source="syslog", kind="syslog", severity=4, text=f"flood {n}")
         for n in range(300)]
    )  # fmt: skip
    eventrules.evaluate_events(flood)
    fired = list(AlertEvent.objects.filter(rule=held).order_by("id").values_list("kind", "detail"))
    assert fired == [("pending", "flood 0"), ("fire", "flood 2")] and state_of(held) == "firing"
    assert AlertState.objects.get(rule=held).value == 1.0
