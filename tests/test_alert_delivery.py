"""Mail delivery on real parts: two Celery workers racing for one row, SMTP down then back, crash recovery."""

from __future__ import annotations

import time

import pytest

from monitor.alerts import delivery
from monitor.alerts.models import AlertState, Event
from monitor.celery import app
from monitor.devstack.processes import free_port
from tests import test_alert_kit as kit
from tests.conftest import start_celery, wait_for
from tests.test_alert_kit import HIGH, SmtpServer, make_switch, poll, prime, subjects, use_smtp, util_rule

smtp, restore_rates = kit.smtp, kit.restore_rates  # fixtures


def fire_one(agent, device, **rule_fields) -> Event:
    """Drive 1/g1 above 80 % for one poll with a one-poll rule: one queued alert mail."""
    rule = util_rule(device, for_polls=1, **rule_fields)
    prime(device, rule)
    agent.set_rate("1/g1-in", HIGH)
    for _ in range(3):  # the first interval mixes the old and new rates; it is above 80 % on a calm machine
        poll(device)
        if Event.objects.filter(rule=rule, kind="fire").exists():
            break
    values = list(AlertState.objects.filter(rule=rule).values_list("state", "value"))
    return Event.objects.get(rule=rule, kind="fire"), values


@pytest.mark.django_db(transaction=True)
def test_two_workers_racing_for_one_row_send_exactly_one_mail(agent, clean_backends, restore_rates, stack_dir):
    server = SmtpServer(delay=1.0).start()  # a slow server keeps the first send open while the second tries
    env = {**clean_backends, **server.env()}
    logs = stack_dir / "log"
    workers = [
        start_celery("worker", env, logs, "-Q", f"alerts-{n}", "-n", f"alerts-{n}@%h", "--concurrency", "1")
        for n in ("a", "b")
    ]
    try:
        device = make_switch(agent, name="race-switch")
        event, _ = fire_one(agent, device)
        assert event.mail == "queued"
        wait_for(lambda: len(app.control.ping(timeout=0.5)) >= 2, 60, "both workers to start")
        for name in ("a", "b"):
            app.send_task("alerts.send_event", args=(event.pk,), queue=f"alerts-{name}")
        wait_for(lambda: Event.objects.get(pk=event.pk).mail == "sent", 30, "the mail to be sent")
        line = f"alert event {event.pk}: "
        wait_for(
            lambda: all(line in w.log_path.read_text(errors="replace") for w in workers), 30, "both workers to try"
        )
        time.sleep(1.5)  # a duplicate would arrive within the server's delay
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
    outcomes = sorted(
        "sent" if "mail sent by" in text else "claimed" if "already claimed" in text else "?"
        for text in (w.log_path.read_text(errors="replace") for w in workers)
    )
    assert outcomes == ["claimed", "sent"]
    assert len(server.messages) == 1
    assert str(server.messages[0]["Subject"]).startswith("[FIRING] race-switch 1/g1")


@pytest.mark.django_db(transaction=True)
def test_worker_sends_after_a_poll_and_retries_until_the_smtp_server_is_back(
    agent, clean_backends, restore_rates, stack_dir
):
    server = SmtpServer()  # its port is chosen, nothing listens yet
    env = {**clean_backends, **server.env(), "ALERTS_RETRY_BASE_S": "2"}
    worker = start_celery("worker", env, stack_dir / "log", "-n", "alerts-retry@%h", "--concurrency", "1")
    try:
        wait_for(lambda: app.control.ping(timeout=0.5), 60, "the worker to start")
        device = make_switch(agent, name="kick-switch")
        event, _ = fire_one(agent, device)  # committed: the evaluator asks the worker to send at once
        failed = wait_for(
            lambda: (e := Event.objects.get(pk=event.pk)).attempts >= 1 and e, 30, "the worker's first attempt"
        )
        assert failed.mail == "queued" and "Connection refused" in failed.last_error
        assert server.messages == []
        server.start()
        wait_for(lambda: Event.objects.get(pk=event.pk).mail == "sent", 30, "the retry after the server is back")
        time.sleep(1)
    finally:
        worker.stop()
        server.stop()
    assert len(server.messages) == 1
    assert str(server.messages[0]["Subject"]).startswith("[FIRING] kick-switch 1/g1")


@pytest.mark.django_db
def test_mail_waits_while_smtp_is_down_and_is_sent_when_it_is_back(
    agent, clean_backends, restore_rates, settings, client, admin_user
):
    port = free_port()  # nothing listens here yet
    use_smtp(settings, port)
    settings.ALERTS_RETRY_BASE_S = 3
    settings.EMAIL_HOST_PASSWORD = "smtp-pw-n0t-for-pages"
    device = make_switch(agent, name="retry-switch")
    event, _ = fire_one(agent, device)
    agent.set_rate("1/g1-in", 1_250_000.0)
    poll(device)  # recovers while the server is down: the recovery mail waits behind the alert mail
    assert delivery.send_due() == {"sent": 0, "failed": 1, "skipped": 0}
    event.refresh_from_db()
    assert (event.mail, event.attempts) == ("queued", 1)
    assert "Connection refused" in event.last_error or "ConnectionRefused" in event.last_error
    assert delivery.send_due() == {"sent": 0, "failed": 0, "skipped": 0}  # back-off: not due yet

    client.force_login(admin_user)
    page = client.get("/alerts/").content.decode()
    assert "Mail delivery is failing" in page and "2 mails waiting" in page
    assert "smtp-pw-n0t-for-pages" not in page
    history = client.get("/alerts/history/", {"device": device.pk}).content.decode()
    assert "attempt 1 failed" in history

    server = SmtpServer(port=port).start()
    try:
        time.sleep(3.2)
        assert delivery.send_due()["sent"] == 2
    finally:
        server.stop()
    heads = [s.split(":")[0] for s in subjects(server)]
    assert heads == ["[FIRING] retry-switch 1/g1", "[RECOVERED] retry-switch 1/g1"]  # in order, once each
    event.refresh_from_db()
    assert (event.mail, event.attempts, event.last_error) == ("sent", 2, "")
    assert "Mail delivery is failing" not in client.get("/alerts/").content.decode()


@pytest.mark.django_db
def test_a_worker_that_crashed_mid_send_loses_nothing(agent, clean_backends, restore_rates, settings, smtp):
    settings.ALERTS_SEND_LEASE_S = 1
    device = make_switch(agent, name="crash-switch")
    event, _ = fire_one(agent, device)
    assert delivery.claim(event.pk, "worker-that-dies") is not None  # claimed, then the worker is gone
    assert delivery.send_due()["sent"] == 0  # nobody else sends it while the claim holds
    assert smtp.messages == []
    time.sleep(1.1)
    assert delivery.send_due()["sent"] == 1  # the lease ran out: another worker sends it
    assert len(smtp.messages) == 1
