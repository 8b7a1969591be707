"""Alerts to webhook, Slack and Teams channels, delivered to real HTTP receivers on loopback: a firing and a
recovered message once per channel, signed webhooks, retries while a receiver is down, one channel's failure
holding back no other, the admin's Test button, and no webhook URL or key in any page, row or log."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.contrib.auth import get_user_model

from monitor.alerts import channels
from monitor.alerts.models import Channel, Delivery, Event
from monitor.devstack.processes import free_port
from tests import test_alert_kit as kit
from tests.test_alert_kit import BASE, HIGH, make_switch, poll, prime, util_rule

smtp, restore_rates = kit.smtp, kit.restore_rates  # fixtures
pytestmark = pytest.mark.django_db
KEY = "hmac-k3y-for-tests"


@pytest.fixture(autouse=True)
def loopback_receivers(settings):
    """The receivers here listen on loopback, which channels reach only when the operator allows it."""
    settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK = True


class Receiver:
    """An HTTP server on loopback that records each POST and answers with the next status of `statuses`."""

    def __init__(self, statuses: list[int] | None = None, port: int = 0):
        self.requests: list[dict] = []
        self.statuses = list(statuses or [])
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/T0K3N-in-the-path"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self) -> list[dict]:
        return [json.loads(r["body"]) for r in self.requests]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receivers():
    made: list[Receiver] = []

    def make(*args, **kwargs) -> Receiver:
        made.append(Receiver(*args, **kwargs))
        return made[-1]

    yield make
    for receiver in made:
        receiver.close()


def drive(agent, device, rule, rate: float, kind: str) -> None:
    """Set the port's rate and poll until the rule records an event of `kind` (at most six polls)."""
    agent.set_rate("1/g1-in", rate)
    for _ in range(6):
        poll(device)
        if Event.objects.filter(rule=rule, kind=kind).exists():
            return
    raise AssertionError(f"no {kind} event after six polls")


def fire_then_clear(agent, device, rule) -> None:
    """Drive the port above the rule, poll until it fires, then back down until it clears."""
    prime(device, rule)
    drive(agent, device, rule, HIGH, "fire")
    channels.send_due()
    drive(agent, device, rule, BASE["1/g1-in"], "clear")


def test_each_channel_gets_the_firing_and_the_recovered_message_once(agent, clean_backends, restore_rates, receivers):
    hook, slack, teams = receivers(), receivers(), receivers()
    device = make_switch(agent, name="sw<b>1</b>")
    rule = util_rule(device, recipient_emails="")  # channels only: no mail is wanted
    rule.channels.set(
        [
            Channel.objects.create(name="hook", kind="webhook", url=hook.url, secret=KEY),
            Channel.objects.create(name="slack", kind="slack", url=slack.url),
            Channel.objects.create(name="teams", kind="teams", url=teams.url),
        ]
    )
    fire_then_clear(agent, device, rule)
    assert channels.send_due()["sent"] == 3
    assert channels.send_due() == {"sent": 0, "failed": 0, "skipped": 0}  # nothing twice

    assert [b["kind"] for b in hook.bodies()] == ["fire", "clear"]
    first = hook.requests[0]
    stamp, signature = first["headers"]["X-Monitor-Timestamp"], first["headers"]["X-Monitor-Signature"]
    expected = hmac.new(KEY.encode(), stamp.encode() + b"." + first["body"], hashlib.sha256).hexdigest()
    assert signature == f"sha256={expected}" and abs(int(stamp) - time.time()) < 120
    fired = hook.bodies()[0]
    assert fired["summary"].startswith("[FIRING] sw<b>1</b> 1/g1: Port utilisation")
    assert fired["device"] == {"id": device.pk, "name": "sw<b>1</b>"} and fired["value"] > 80
    assert f"/devices/{device.pk}/?start=" in fired["link"]

    texts = [b["text"] for b in slack.bodies()]
    assert texts[0].startswith("[FIRING]") and texts[1].startswith("[RECOVERED]")
    block = slack.bodies()[0]["attachments"][0]["blocks"][0]["text"]["text"]
    assert "sw&lt;b&gt;1&lt;/b&gt;" in block and "<b>" not in block  # a device string makes no Slack markup

    cards = [b["attachments"][0] for b in teams.bodies()]
    assert all(c["contentType"] == "application/vnd.microsoft.card.adaptive" for c in cards)
    assert cards[1]["content"]["body"][0]["inlines"][0]["text"].startswith("[RECOVERED]")

    assert set(Event.objects.filter(rule=rule).values_list("mail", flat=True)) <= {"norecipient", "none"}
    assert Delivery.objects.filter(status="sent").count() == 6


def test_a_channel_that_is_down_is_retried_and_holds_back_no_other(
    agent, clean_backends, restore_rates, receivers, settings, smtp
):
    settings.ALERTS_RETRY_BASE_S = 1
    good = receivers()
    down_port = free_port()
    flaky = receivers(statuses=[503])
    device = make_switch(agent)
    rule = util_rule(device)  # mail too: the mail goes whatever the channels do
    down = Channel.objects.create(name="down", kind="webhook", url=f"http://127.0.0.1:{down_port}/x/S3CRET-path")
    rule.channels.set(
        [
            down,
            Channel.objects.create(name="good", kind="slack", url=good.url),
            Channel.objects.create(name="flaky", kind="teams", url=flaky.url),
        ]
    )
    prime(device, rule)
    drive(agent, device, rule, HIGH, "fire")
    from monitor.alerts.tasks import send_pending

    counts = send_pending()
    assert counts["sent"] == 2 and counts["failed"] == 2  # the mail and the good channel; the others wait
    assert len(smtp.messages) == 1 and len(good.requests) == 1 and len(flaky.requests) == 1
    waiting = Delivery.objects.get(channel=down)
    assert waiting.status == "queued" and waiting.attempts == 1 and "ConnectionRefused" in waiting.last_error
    assert "S3CRET" not in waiting.last_error
    assert Delivery.objects.get(channel__name="flaky").last_status == 503
    from django.test import Client

    page = Client()
    page.force_login(get_user_model().objects.create_superuser("boss", "boss@example.org", "x-pass-12345"))
    notice = page.get("/alerts/").content.decode()
    assert "<b>Channel down is failing:</b> 1 message waiting" in notice and "S3CRET" not in notice

    time.sleep(1.2)  # the back-off: one base interval
    assert channels.send_due() == {"sent": 1, "failed": 1, "skipped": 0}  # flaky is back, down is still down
    assert len(flaky.requests) == 2 and len(good.requests) == 1
    back = receivers(port=down_port)  # the receiver comes back on its address
    time.sleep(2.2)  # the second back-off doubles
    assert channels.send_due()["sent"] == 1
    assert len(back.requests) == 1 and back.bodies()[0]["kind"] == "fire"
    row = Delivery.objects.get(channel=down)
    assert row.status == "sent" and row.attempts == 3 and row.last_status == 200 and row.last_error == ""
    assert channels.claim(row.pk) is None  # sent rows cannot be claimed again


def test_the_admin_test_button_says_what_the_receiver_answered_and_never_shows_the_url(admin_client, receivers):
    ok, refusing = receivers(), receivers(statuses=[500])
    form = {"name": "ops", "kind": "slack", "url": ok.url, "secret": "", "enabled": "on", "timeout_s": "5"}
    response = admin_client.post("/admin/alerts/channel/add/", {**form, "_send_test": "1"}, follow=True)
    page = response.content.decode()
    assert "Test message delivered: the receiver answered HTTP 200" in page
    assert ok.bodies()[0]["text"].startswith("Test message from the SNMP monitor, sent by admin")
    assert "T0K3N" not in page
    channel = Channel.objects.get(name="ops")
    assert channel.url == ok.url
    kept = admin_client.post(f"/admin/alerts/channel/{channel.pk}/change/", {**form, "url": ""}, follow=True)
    assert kept.status_code == 200 and Channel.objects.get(pk=channel.pk).url == ok.url  # empty keeps it
    assert "A value is stored" in admin_client.get(f"/admin/alerts/channel/{channel.pk}/change/").content.decode()
    bad = {**form, "name": "bad", "url": refusing.url, "_send_test": "1"}
    page = admin_client.post("/admin/alerts/channel/add/", bad, follow=True).content.decode()
    assert "Test message NOT delivered: HTTP 500" in page and "T0K3N" not in page
    wrong = admin_client.post("/admin/alerts/channel/add/", {**form, "name": "x", "url": "file:///etc/passwd"})
    assert wrong.status_code == 200 and "http:// or https:// URL" in wrong.content.decode()
    assert not Channel.objects.filter(name="x").exists()
    log = admin_client.get("/admin/alerts/delivery/")
    assert log.status_code == 200
