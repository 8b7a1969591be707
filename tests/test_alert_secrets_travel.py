"""A channel's signing key and the mail server's password stay with the destination they were entered for.

Someone who may change a webhook channel or the mail server, but does not know its stored secret, points it at a
receiver they control (another host, port or scheme; for mail also a security that drops TLS) and presses the
"send a test" button. The receiver is real and on loopback: an HTTP server that records the signature of every
POST, an SMTP server that takes any login and records the password. Nothing reaches it, the change is refused
naming the secret to type again; typing one lets the change through and the new receiver sees only the new one.
And a mail server that trickles its greeting is given up inside the claim's lease: no second worker sends meanwhile.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from monitor.alerts import delivery
from monitor.alerts.models import AlertState, Channel, Event, MailServer, Rule
from monitor.devstack.processes import free_port
from monitor.models import Device
from tests.smtpkit import RecordingSmtp, TricklingSmtp
from tests.test_alert_kit import use_smtp
from tests.webhookkit import Scripted, race_while_claimed

pytestmark = pytest.mark.django_db(transaction=True)
STORED_KEY, NEW_KEY = "hmac-Zq7stored-key", "hmac-Zq7typed-key"
STORED_PW, NEW_PW = "smtp-Zq7stored-pw", "smtp-Zq7typed-pw"
CHANNEL_URL, MAIL_URL = "/admin/alerts/channel/", "/admin/alerts/mailserver/"


@pytest.fixture(autouse=True)
def loopback_receivers(settings):
    """The receivers listen on loopback, which channels reach only when the operator allows it."""
    settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK = True


@pytest.fixture
def receiver():
    server = Scripted()
    yield server
    server.close()


def signed_with(request: dict, key: str) -> bool:
    """True when the request's X-Monitor-Signature is the HMAC of its timestamp and body under `key`."""
    stamp, body = request["headers"].get("X-Monitor-Timestamp", ""), request["body"]
    expected = hmac.new(key.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(request["headers"].get("X-Monitor-Signature", ""), f"sha256={expected}")


def channel_form(url: str, **overrides) -> dict:
    return {"name": "hook", "kind": "webhook", "url": url, "secret": "", "enabled": "on", "timeout_s": "5",
            "_send_test": "1", **overrides}  # fmt: skip


def moved_from(receiver: Scripted, change: str) -> str:
    """The channel's stored URL, differing from the receiver's in `change` only."""
    port = receiver.port
    return {
        "port": f"http://127.0.0.1:{free_port()}/hooks/in",
        "host": f"http://127.0.0.2:{port}/hooks/in",
        "scheme": f"https://127.0.0.1:{port}/hooks/in",
    }[change]


@pytest.mark.parametrize("change", ["host", "port", "scheme"])
def test_a_webhook_moved_elsewhere_sends_nothing_signed_with_its_stored_key(admin_client, receiver, change):
    original = moved_from(receiver, change)
    channel = Channel.objects.create(name="hook", kind="webhook", url=original, secret=STORED_KEY)
    attacker = f"http://127.0.0.1:{receiver.port}/hooks/in"

    response = admin_client.post(f"{CHANNEL_URL}{channel.pk}/change/", channel_form(attacker))
    assert receiver.requests == []  # nothing went to the new receiver, signed or not
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["secret"] and f"the {change} changed" in errors["secret"][0], errors
    channel.refresh_from_db()
    assert (channel.url, channel.secret) == (original, STORED_KEY)

    typed = admin_client.post(f"{CHANNEL_URL}{channel.pk}/change/", channel_form(attacker, secret=NEW_KEY))
    assert typed.status_code == 302
    assert len(receiver.requests) == 1
    assert signed_with(receiver.requests[0], NEW_KEY) and not signed_with(receiver.requests[0], STORED_KEY)


def test_a_webhook_keeps_its_key_on_the_same_receiver_and_drops_it_when_cleared(admin_client, receiver):
    channel = Channel.objects.create(name="hook", kind="webhook", url=f"{receiver.url}/hooks/a", secret=STORED_KEY)
    change = f"{CHANNEL_URL}{channel.pk}/change/"
    assert admin_client.post(change, channel_form(f"{receiver.url}/hooks/b?v=2")).status_code == 302  # same place
    assert signed_with(receiver.requests[-1], STORED_KEY)
    elsewhere = Scripted()
    try:
        cleared = admin_client.post(change, channel_form(f"{elsewhere.url}/hooks/b", clear_secret="on"))
        assert cleared.status_code == 302
        assert len(elsewhere.requests) == 1 and "X-Monitor-Signature" not in elsewhere.requests[0]["headers"]
    finally:
        elsewhere.close()
    channel.refresh_from_db()
    assert (channel.url, channel.secret) == (f"{elsewhere.url}/hooks/b", "")
    both = admin_client.post(change, channel_form(channel.url, secret=NEW_KEY, clear_secret="on"))
    assert "not both" in both.context["adminform"].form.errors["clear_secret"][0]


def mail_form(port: int, **overrides) -> dict:
    data = {"host": "127.0.0.1", "port": str(port), "security": "none", "timeout_s": "5", "username": "mailer",
            "password": "", "from_email": "monitor@example.com", "_send_test": "1"}  # fmt: skip
    return {**data, **overrides}


@pytest.mark.parametrize("change", ["host", "port", "security"])
def test_a_mail_server_moved_elsewhere_is_not_given_the_stored_password(admin_client, change):
    with RecordingSmtp() as attacker:
        stored = {"host": "127.0.0.1", "port": attacker.port, "security": "none"}
        stored |= {"host": {"host": "127.0.0.2"}, "port": {"port": free_port()}, "security": {"security": "starttls"}}[
            change
        ]
        MailServer.objects.create(username="mailer", password=STORED_PW, from_email="monitor@example.com", **stored)
        change_url = f"{MAIL_URL}{MailServer.objects.get().pk}/change/"

        response = admin_client.post(change_url, mail_form(attacker.port))
        assert attacker.passwords == [] and attacker.sink.messages == []
        assert response.status_code == 200
        errors = response.context["adminform"].form.errors
        assert list(errors) == ["password"] and f"the {change} changed" in errors["password"][0], errors
        row = MailServer.objects.get()
        assert (row.host, row.port, row.security, row.password) == (*stored.values(), STORED_PW)

        typed = admin_client.post(change_url, mail_form(attacker.port, password=NEW_PW), follow=True)
        assert "Test mail sent" in typed.content.decode()
        assert set(attacker.passwords) == {NEW_PW} and len(attacker.sink.messages) == 1


def test_a_moved_mail_server_may_drop_its_password_and_keeps_it_where_it_was(admin_client):
    with RecordingSmtp() as server:
        MailServer.objects.create(host="127.0.0.1", port=server.port, security="none", username="mailer",
                                  password=STORED_PW, from_email="monitor@example.com")  # fmt: skip
        change_url = f"{MAIL_URL}{MailServer.objects.get().pk}/change/"
        same = admin_client.post(change_url, mail_form(server.port, timeout_s="9"), follow=True)
        assert "Test mail sent" in same.content.decode() and server.passwords[-1] == STORED_PW
    with RecordingSmtp() as elsewhere:
        cleared = admin_client.post(change_url, mail_form(elsewhere.port, clear_password="on"), follow=True)
        assert "Test mail sent" in cleared.content.decode()
        assert elsewhere.passwords == [] and len(elsewhere.sink.messages) == 1
    assert MailServer.objects.get().password == ""


def queued_mail(device: Device) -> Event:
    rule = Rule.objects.create(name="cpu", metric="cpu", scope="device", device=device, fire_level=90,
                               clear_level=80, recipient_emails="ops@example.com")  # fmt: skip
    state = AlertState.objects.create(rule=rule, device=device, instance="", state="firing", value=96.0)
    now = timezone.now()
    return Event.objects.create(state=state, rule=rule, device=device, kind="fire", to_state="firing", value=96.0,
                                fire_level=90, clear_level=80, since=now - timedelta(minutes=1),
                                mail=Event.Mail.QUEUED, next_attempt_at=now)  # fmt: skip


def test_a_trickling_mail_server_is_given_up_inside_the_lease_and_no_second_worker_sends_meanwhile(
    clean_backends, settings
):
    settings.ALERTS_SEND_LEASE_S = 6
    settings.ALERTS_RETRY_BASE_S = 600  # no retry within the test: every connection seen is a send while claimed
    slow = TricklingSmtp(interval=0.5)  # its greeting takes minutes, a byte every half second
    use_smtp(settings, slow.port)
    settings.EMAIL_TIMEOUT = 60  # per read: never reached, a byte comes every half second
    event = queued_mail(Device.objects.create(name="mail-switch", host="127.0.0.1", community="x"))
    first, second, lease_end = race_while_claimed(  # a second worker, again and again, on the real claim path
        delivery.send_one,
        event.pk,
        lambda: Event.objects.get(pk=event.pk).claimed_until,
        lambda: len(slow.connections),
        slow,
    )

    assert len(slow.connections) == 1, (first, second)  # sent once: nobody else sent it while the first held it
    assert set(second) == {"claimed elsewhere"}
    assert re.fullmatch(r"failed: no complete answer within [345] s \(the mail server is too slow\)", first["outcome"])
    assert first["at"] < lease_end  # gave up strictly inside the lease
    event.refresh_from_db()
    assert (event.mail, event.attempts, event.claimed_by, event.claimed_until) == ("queued", 1, "", None)
    assert event.next_attempt_at > lease_end  # a failure like another: retried after the back-off
