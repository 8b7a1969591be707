"""Real polls of a driven snmpsim agent through the rules, mails to a real SMTP server on loopback."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from monitor.alerts import defaults, delivery
from monitor.alerts.models import AlertState, Event, Maintenance
from monitor.devstack.processes import free_udp_port
from monitor.polling.run import run_poll
from tests import test_alert_kit as kit
from tests.conftest import wait_for
from tests.test_alert_kit import HIGH, make_switch, poll, prime, subjects, util_rule

smtp, restore_rates = kit.smtp, kit.restore_rates  # fixtures

pytestmark = pytest.mark.django_db


def kinds(rule) -> list[tuple[str, str]]:
    return list(Event.objects.filter(rule=rule).order_by("id").values_list("kind", "mail"))


def test_one_mail_on_fire_one_on_clear_none_while_pending(agent, clean_backends, smtp, restore_rates):
    device = make_switch(agent, name='sw<"core">')
    rule = util_rule(device, for_polls=3)
    prime(device, rule)  # the first poll stores counters only
    agent.set_rate("1/g1-in", HIGH)
    seen = []  # (value, state) after each poll
    for _ in range(6):
        poll(device)
        state = AlertState.objects.get(rule=rule)
        seen.append((state.value, state.state))
        sent = delivery.send_due()["sent"]
        if state.state == "firing":
            break
        assert sent == 0 and smtp.messages == [], seen  # nothing while pending
    # The first interval mixes the old and new rates; it fires exactly on the third poll above 80 %.
    assert seen[-1][1] == "firing" and [v > 80 for v, _ in seen[-3:]] == [True] * 3, seen
    assert all(s == "pending" for _, s in seen[-3:-1]) and (len(seen) == 3 or seen[-4][0] <= 80), seen
    assert seen[-1][0] == pytest.approx(96.0, abs=2.0)
    assert len(smtp.messages) == 1
    poll(device)  # still above: no second mail
    assert delivery.send_due()["sent"] == 0 and len(smtp.messages) == 1
    mail = smtp.messages[0]
    assert str(mail["Subject"]).startswith('[FIRING] sw<"core"> 1/g1: Port utilisation')
    assert smtp.sink.recipients[0] == ["ops@example.com"]
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    assert "is above 80.0 %" in text and "(3 polls in a row)" in text
    assert "Current value: 9" in text
    assert f"/devices/{device.pk}/?start=" in text and "&end=" in text
    assert "(<b>port 1</b>)" in text  # plain text is not HTML: the alias as the switch reports it
    assert "&lt;b&gt;port 1&lt;/b&gt;" in html and "<b>port 1</b>" not in html
    assert "sw&lt;&quot;core&quot;&gt;" in html and 'sw<"core">' not in html
    assert "community" not in (text + html).lower()

    agent.set_rate("1/g1-in", 1_250_000.0)
    for _ in range(2):  # 1 %: at or below the clear level at the latest on the first unmixed interval
        poll(device)
        delivery.send_due()
    assert len(smtp.messages) == 2
    assert str(smtp.messages[1]["Subject"]).startswith('[RECOVERED] sw<"core"> 1/g1')
    assert "back to or below the clear level 70.0 %" in smtp.messages[1].get_body(("plain",)).get_content()
    assert [k for k, _ in kinds(rule)][-2:] == ["fire", "clear"]
    assert [m for k, m in kinds(rule) if k in ("fire", "clear")] == ["sent", "sent"]


def drive(agent, device, rate: float, polls: int = 2) -> None:
    """Set 1/g1's rate and poll: the first interval mixes old and new rates, the second is pure."""
    agent.set_rate("1/g1-in", rate)
    for _ in range(polls):
        poll(device)
        delivery.send_due()


def test_hysteresis_keeps_firing_between_clear_and_fire_levels(agent, clean_backends, smtp, restore_rates):
    device = make_switch(agent)
    rule = util_rule(device, for_polls=1)
    prime(device, rule)
    drive(agent, device, HIGH)
    drive(agent, device, 95_000_000.0)  # 76 %: below fire, above clear
    state = AlertState.objects.get(rule=rule)
    assert state.state == "firing" and 70 < state.value < 80
    assert [s.split(":")[0] for s in subjects(smtp)] == ["[FIRING] alert-switch 1/g1"]


def test_flapping_is_one_notice_then_one_settled_mail(agent, clean_backends, smtp, restore_rates, settings):
    settings.ALERTS_FLAP_CHANGES = 3
    device = make_switch(agent)
    rule = util_rule(device, for_polls=1)
    prime(device, rule)
    for rate in [HIGH, 1_250_000.0] * 3:  # six changes: fire, clear, fire, clear (flap), fire, clear
        drive(agent, device, rate)
    heads = [s.split("]")[0] + "]" for s in subjects(smtp)]
    assert heads == ["[FIRING]", "[RECOVERED]", "[FIRING]", "[FLAPPING]"]
    assert [k for k, m in kinds(rule) if m == "suppressed"] == ["clear", "fire", "clear"]
    assert "more than 3 times" in smtp.messages[3].get_body(("plain",)).get_content()

    settings.ALERTS_FLAP_WINDOW_S = 2  # settle quickly: no change for a whole window
    time.sleep(2.1)
    poll(device)
    delivery.send_due()
    assert len(smtp.messages) == 5
    assert str(smtp.messages[4]["Subject"]).startswith("[STOPPED FLAPPING] alert-switch 1/g1")
    state = AlertState.objects.get(rule=rule)
    assert not state.flapping and state.state == "ok"


def test_no_mail_during_maintenance_and_one_when_it_is_over(agent, clean_backends, smtp, restore_rates):
    device = make_switch(agent)
    rule = util_rule(device, for_polls=1)
    window = Maintenance.objects.create(
        device=device, starts_at=timezone.now() - timedelta(minutes=1), ends_at=timezone.now() + timedelta(hours=1)
    )
    prime(device, rule)
    agent.set_rate("1/g1-in", HIGH)
    poll(device)
    poll(device)
    assert delivery.send_due()["sent"] == 0
    assert smtp.messages == []
    assert kinds(rule) == [("fire", "muted")]  # recorded, not mailed

    window.ends_at = timezone.now()
    window.save()
    poll(device)  # still firing after the window: now it is mailed, once
    poll(device)
    delivery.send_due()
    assert [s.split(":")[0] for s in subjects(smtp)] == ["[FIRING] alert-switch 1/g1"]


def test_device_not_answering_default_fires_after_three_polls_and_recovers(agent, clean_backends, smtp, admin_user):
    admin_user.email = "admin@example.com"
    admin_user.save()
    device = make_switch(agent, name="flaky", port=free_udp_port(), timeout_s=0.3, retries=0)
    defaults.enable(device, "not_answering", admin_user)
    for _ in range(2):
        assert "no SNMP response" in run_poll(device.pk)
    assert delivery.send_due()["sent"] == 0
    run_poll(device.pk)
    assert delivery.send_due()["sent"] == 1
    assert str(smtp.messages[0]["Subject"]).startswith("[FIRING] flaky: Device not answering")
    assert "has not answered for 3 polls" in smtp.messages[0].get_body(("plain",)).get_content()
    assert smtp.sink.recipients[0] == ["admin@example.com"]

    device.port = agent.port
    device.save()
    poll(device, gap=0)
    assert delivery.send_due()["sent"] == 1
    assert str(smtp.messages[1]["Subject"]).startswith("[RECOVERED] flaky")


@pytest.mark.django_db(transaction=True)
def test_device_strings_add_no_header_nor_recipient_to_a_mail(clean_backends, smtp):
    """A device's name and a syslog line carrying CR/LF (and the other line breaks of Python's email parser, and a
    bidi override) end up in the subject: they stay in it, on one line; no Bcc, no extra header, no other recipient."""
    from monitor.alerts import eventrules  # noqa: F401 - the rule hangs off the receiver's events_stored signal
    from monitor.alerts.models import Rule
    from monitor.events.syslogd import SyslogReceiver
    from monitor.models import Device
    from tests import eventkit

    device = Device.objects.create(name="sw\r\nBcc: victim@evil.example\u202e", host="127.0.0.1", community="x")
    Rule.objects.create(name="raid", metric="event", scope="device", device=device, for_polls=1, fire_level=0.5,
                        clear_level=0.5, event_kind="syslog", recipient_emails="ops@example.com")  # fmt: skip
    line = ("<27>raidd: degraded\r\nBcc: victim2@evil.example\r\nX-Injected: crlf\u2028X-Injected: ls"
            "\x85X-Injected: nel\x0bX-Injected: vt\x1cX-Injected: fs")  # fmt: skip
    receiver = SyslogReceiver("127.0.0.1", 0, name="syslog@mail").start()
    try:
        eventkit.send_udp(receiver.port, line.encode())
        stored = eventkit.events_of(device, 1, source="syslog")
        wait_for(lambda: Event.objects.filter(rule__device=device, mail="queued").exists(), 15, "the alert mail queued")
    finally:
        receiver.stop()
    assert "X-Injected" in stored[0].text  # the device's words are kept, as text
    assert delivery.send_due()["sent"] == 1
    assert smtp.sink.recipients == [["ops@example.com"]]
    mail = smtp.messages[0]
    expected = {"Content-Type", "MIME-Version", "Subject", "From", "To", "Date", "Message-ID", "X-Monitor-Event"}
    assert set(mail.keys()) <= expected, mail.keys()
    subject = str(mail["Subject"]).strip()  # a folded, encoded subject reads back with a leading space
    assert subject.startswith("[FIRING] sw Bcc: victim@evil.example : syslog message — raidd: degraded Bcc: victim2")
    assert not any(c in subject for c in "\r\n\x0b\x1c\x85\u2028\u202e")  # nor a bidi override to spoof it
