"""Channel deliveries played against hostile or broken receivers on loopback: redirects are not followed (nothing
goes to the Location), a receiver that trickles its answer is given up inside the claim's lease (no second worker
sends it meanwhile), failures that cannot recover are given up and shown, not retried for ever, and webhooks to the
monitor's own host or the cloud metadata address are refused."""

from __future__ import annotations

import json
import logging
import re

import pytest
from django.utils import timezone

from monitor.alerts import channels, eventrules
from monitor.alerts.models import Channel, Delivery, Rule
from monitor.events.models import Event
from monitor.models import Device
from tests.conftest import wait_for
from tests.webhookkit import ForwardProxy, Scripted, Trickler, certificates, race_while_claimed

pytestmark = pytest.mark.django_db(transaction=True)
KEY = "hmac-k3y-for-doors"


@pytest.fixture(autouse=True)
def loopback_receivers(settings):
    """These receivers listen on loopback, which a webhook may reach only when the operator allows it."""
    settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK = True
    settings.ALERTS_RETRY_BASE_S = 1


@pytest.fixture
def device(clean_backends):
    return Device.objects.create(name="door-switch", host="127.0.0.1", community="doors")


@pytest.fixture
def servers():
    made: list = []

    def keep(server):
        made.append(server)
        return server

    yield keep
    for server in made:
        server.close()


def queued(device: Device, channel: Channel, text: str = "raidd: RAID set 2 degraded") -> Delivery:
    """A stored syslog event through an event rule with this channel only: one queued delivery of its firing."""
    rule = Rule.objects.create(name=f"raid to {channel.name}"[:200], metric="event", scope="device", device=device,
                               for_polls=1, fire_level=0.5, clear_level=0.5, event_kind="syslog")  # fmt: skip
    rule.channels.set([channel])
    stored = Event.objects.create(device=device, time=timezone.now(), source="syslog", kind="syslog", severity=3,
                                  text=text)  # fmt: skip
    eventrules.evaluate_events([stored])
    return Delivery.objects.get(channel=channel)


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_followed_and_the_alert_waits_for_its_retry(code, device, servers, admin_client):
    target = servers(Scripted())
    moved = f"{target.url}/moved?from=monitor"
    answers = [code]
    hook = servers(Scripted(lambda request: (answers[0], {"Location": moved}, b"moved")))
    channel = Channel.objects.create(name="hook", kind="webhook", url=f"{hook.url}/hooks/T0K3N", secret=KEY)
    row = queued(device, channel)

    assert channels.send_due() == {"sent": 0, "failed": 1, "skipped": 0}
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_status) == ("queued", 1, code)
    assert row.last_error == f"redirected to {moved} (not followed)"
    assert [r["method"] for r in hook.requests] == ["POST"] and "X-Monitor-Signature" in hook.requests[0]["headers"]
    assert target.requests == []  # neither the body nor the signature went to the Location
    log = admin_client.get("/admin/alerts/delivery/").content.decode()
    assert f"redirected to {moved} (not followed)".replace("&", "&amp;") in log

    answers[0] = 200  # the receiver is fixed: the retry after the back-off delivers it
    wait_for(lambda: channels.send_due()["sent"] == 1, 20, "the retry after the back-off")
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_status, row.last_error) == ("sent", 2, 200, "")
    assert target.requests == [] and len(hook.requests) == 2


def test_a_hostile_location_is_escaped_and_keeps_the_channels_secret(device, servers, client, admin_user, caplog):
    secret_path = "/services/T0K3N/S3CRET"
    location = f"https://127.0.0.1:9{secret_path}?\x1b[2J<script>alert(1)</script>"  # the https twin, and worse
    long = f"https://127.0.0.1:9/{'p' * 270}{secret_path}"  # the secret across the shown text's 300 characters
    locations = iter([location, long])
    hook = servers(Scripted(lambda request: (301, {"Location": next(locations)}, b"")))
    channel = Channel.objects.create(name="slack", kind="slack", url=f"{hook.url}{secret_path}")
    row = queued(device, channel)
    client.force_login(admin_user)
    with caplog.at_level(logging.INFO, logger="monitor.alerts"):
        assert channels.send_due()["failed"] == 1
        row.refresh_from_db()
        assert row.last_error == "redirected to https://127.0.0.1:9***?\\x1b[2J<script>alert(1)</script> (not followed)"
        for page in ("/admin/alerts/delivery/", "/alerts/"):
            html = client.get(page).content.decode()
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html, page
            assert "T0K3N" not in html and "\x1b" not in html, page
        wait_for(lambda: channels.send_due()["failed"], 20, "the retry")
    row.refresh_from_db()
    assert row.last_error == f"redirected to https://127.0.0.1:9/{'p' * 270}*** (not followed)"
    assert "T0K3N" not in caplog.text and "\x1b" not in caplog.text and "redirected to https" in caplog.text


def test_device_strings_make_no_mention_link_or_markdown_in_slack_and_teams(device, servers):
    device.name = "<!channel> [log in](https://evil.example/x) <https://evil.example|here>"
    device.save()
    slack, teams = servers(Scripted()), servers(Scripted())
    queued(device, Channel.objects.create(name="slack", kind="slack", url=f"{slack.url}/services/T0K3N"))
    queued(device, Channel.objects.create(name="teams", kind="teams", url=f"{teams.url}/workflows/x"))
    assert channels.send_due()["sent"] == 2
    said = json.loads(slack.requests[0]["body"])
    assert "<!channel>" not in said["text"] and "<https" not in said["text"]  # the notification's own text too
    assert said["text"].startswith("[FIRING] &lt;!channel&gt; [log in](https://evil.example/x) &lt;https://evil")
    card = json.loads(teams.requests[0]["body"])["attachments"][0]["content"]
    blocks = [b for b in card["body"] if device.name in json.dumps(b, ensure_ascii=False)]
    assert blocks and all(b["type"] == "RichTextBlock" for b in blocks)  # TextRuns: Teams renders no markdown
    assert blocks[0]["inlines"][0]["text"].startswith(f"[FIRING] {device.name}: syslog message")


def test_a_trickling_receiver_is_given_up_inside_the_lease_and_no_second_worker_sends_meanwhile(
    device, servers, settings
):
    settings.ALERTS_SEND_LEASE_S = 6
    settings.ALERTS_RETRY_BASE_S = 600  # no retry within the test: every request seen is a send while claimed
    slow = servers(Trickler(interval=0.5))  # its answer's head takes minutes, a byte every half second
    channel = Channel.objects.create(name="slow", kind="webhook", url=slow.url, timeout_s=60)
    row = queued(device, channel)
    first, second, lease_end = race_while_claimed(  # a second worker, again and again, on the real claim path
        channels.send_one,
        row.pk,
        lambda: Delivery.objects.get(pk=row.pk).claimed_until,
        lambda: len(slow.requests),
        slow,
    )

    assert len(slow.requests) == 1, (first, second)  # sent once: nobody else sent it while the first held it
    assert set(second) == {"claimed elsewhere"}
    assert re.fullmatch(r"failed: no complete answer within [34] s \(the receiver is too slow\)", first["outcome"])
    assert first["at"] < lease_end  # gave up strictly inside the lease
    row.refresh_from_db()
    assert (row.status, row.attempts, row.claimed_by, row.claimed_until) == ("queued", 1, "", None)
    assert row.next_attempt_at > lease_end  # a failure like another: retried after the back-off


def test_an_https_receiver_gets_it_with_its_certificate_checked(device, servers, tmp_path, monkeypatch):
    ca, cert, key = certificates(tmp_path, "localhost")
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))  # OpenSSL's trust store for this test: the test CA only
    hook = servers(Scripted(tls=(cert, key)))
    good = queued(device, Channel.objects.create(name="tls", kind="webhook", url=f"https://localhost:{hook.port}/h"))
    wrong_name = Channel.objects.create(name="ip", kind="webhook", url=f"https://127.0.0.1:{hook.port}/h")
    wrong = queued(device, wrong_name, text="raidd: RAID set 3 degraded")
    assert channels.send_due() == {"sent": 1, "failed": 1, "skipped": 0}
    assert Delivery.objects.get(pk=good.pk).status == "sent" and len(hook.requests) == 1
    assert hook.requests[0]["headers"]["Host"] == f"localhost:{hook.port}"
    refused = Delivery.objects.get(pk=wrong.pk)
    assert refused.status == "queued" and refused.last_error.startswith("SSLCertVerificationError: ")
    assert "IP address mismatch" in refused.last_error


def test_the_operators_proxy_tunnels_https_and_forwards_http_unless_no_proxy_exempts(
    device, servers, tmp_path, monkeypatch
):
    ca, cert, key = certificates(tmp_path, "localhost")
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    secure, plain, proxy = servers(Scripted(tls=(cert, key))), servers(Scripted()), servers(ForwardProxy())
    for name in ("https_proxy", "http_proxy", "no_proxy", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("https_proxy", f"http://monitor:pr0xy-pw@127.0.0.1:{proxy.port}")
    monkeypatch.setenv("http_proxy", f"127.0.0.1:{proxy.port}")
    queued(device, Channel.objects.create(name="tls", kind="slack", url=f"https://localhost:{secure.port}/s/T0K3N"))
    queued(device, Channel.objects.create(name="plain", kind="webhook", url=f"{plain.url}/hooks/x?a=1"),
           text="raidd: RAID set 3 degraded")  # fmt: skip
    assert channels.send_due() == {"sent": 2, "failed": 0, "skipped": 0}
    assert proxy.seen == [
        (f"CONNECT localhost:{secure.port} HTTP/1.1", "Basic bW9uaXRvcjpwcjB4eS1wdw=="),  # monitor:pr0xy-pw
        (f"POST {plain.url}/hooks/x?a=1 HTTP/1.1", ""),
    ]
    assert (
        secure.requests[0]["path"] == "/s/T0K3N" and secure.requests[0]["headers"]["Host"] == f"localhost:{secure.port}"
    )
    assert plain.requests[0]["path"] == "/hooks/x?a=1" and json.loads(plain.requests[0]["body"])["kind"] == "fire"

    monkeypatch.setenv("no_proxy", "127.0.0.1")  # exempted: straight to the receiver
    queued(device, Channel.objects.create(name="direct", kind="webhook", url=f"{plain.url}/direct"),
           text="raidd: RAID set 4 degraded")  # fmt: skip
    assert channels.send_due()["sent"] == 1 and len(proxy.seen) == 2 and plain.requests[1]["path"] == "/direct"


@pytest.mark.parametrize(
    "code, gives_up",
    [(400, True), (401, True), (403, True), (404, True), (410, True), (422, True),
     (408, False), (429, False), (500, False), (503, False)],
)  # fmt: skip
def test_a_failure_that_cannot_recover_is_given_up_and_one_that_can_is_retried(code, gives_up, device, servers):
    hook = servers(Scripted(lambda request: (code, {}, b"no")))
    channel = Channel.objects.create(name="hook", kind="teams", url=f"{hook.url}/workflows/x")
    row = queued(device, channel)
    assert channels.send_due() == {"sent": 0, "failed": 1, "skipped": 0}
    row.refresh_from_db()
    assert (row.attempts, row.last_status) == (1, code) and row.last_error.startswith(f"HTTP {code} ")
    if gives_up:
        assert (row.status, row.next_attempt_at) == ("failed", None)
        assert row.last_error.endswith(
            "(given up: the receiver refuses this message; fix the channel, then send it again)"
        )
        assert channels.due() == [] and channels.next_due_in() is None  # never tried again by itself
    else:
        assert row.status == "queued" and row.next_attempt_at is not None
        wait_for(lambda: channels.send_due()["failed"] and len(hook.requests) >= 2, 20, "the retry")


def test_a_malformed_url_is_given_up_at_once_and_a_given_up_row_can_be_sent_again(device, servers, admin_client):
    hook = servers(Scripted(lambda request: (404, {}, b"")))
    broken = Channel.objects.create(name="broken", kind="webhook", url="http://127.0.0.1:99999/x")  # an old row
    row = queued(device, broken)
    assert channels.send_due()["failed"] == 1
    row.refresh_from_db()
    assert row.status == "failed" and row.last_error.startswith("the channel's URL is malformed: Port out of range")
    refused = Channel.objects.create(name="gone", kind="webhook", url=f"{hook.url}/gone")
    gone = queued(device, refused, text="raidd: RAID set 3 degraded")
    assert channels.send_due()["failed"] == 1 and Delivery.objects.get(pk=gone.pk).status == "failed"
    page = admin_client.get("/alerts/").content.decode()
    assert "Channel gone gave up on 1 message:" in page and "Channel broken gave up on 1 message:" in page

    hook.answer = lambda request: (200, {}, b"ok")  # the receiver is back: the admin sends the row again
    response = admin_client.post(
        "/admin/alerts/delivery/", {"action": "send_again", "_selected_action": [gone.pk]}, follow=True
    )
    assert "1 delivery queued to be sent again." in response.content.decode()
    assert channels.send_due() == {"sent": 1, "failed": 0, "skipped": 0}  # the malformed one waits for its fix
    assert Delivery.objects.get(pk=gone.pk).status == "sent" and len(hook.requests) == 2


def test_webhooks_to_the_monitors_own_host_or_the_metadata_address_are_refused(device, servers, settings, admin_client):
    settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK = False
    local = servers(Scripted())
    urls = [f"http://localhost:{local.port}/x", f"http://127.0.0.1:{local.port}/x",
            f"http://[::ffff:127.0.0.1]:{local.port}/x", f"http://0.0.0.0:{local.port}/x",
            "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/latest/"]  # fmt: skip
    for n, url in enumerate(urls):
        row = queued(device, Channel.objects.create(name=f"inside {n}", kind="webhook", url=url))
        assert channels.send_due()["failed"] == 1, url
        row.refresh_from_db()
        assert row.status == "failed" and "is not a receiver this monitor may send to" in row.last_error, url
    assert "ALERTS_WEBHOOK_ALLOW_LOOPBACK" in Delivery.objects.get(channel__name="inside 0").last_error
    assert local.requests == []  # nothing reached the monitor's own host

    form = {"name": "meta", "kind": "webhook", "secret": "", "enabled": "on", "timeout_s": "5"}
    page = admin_client.post("/admin/alerts/channel/add/", {**form, "url": "http://169.254.169.254/x"})
    assert page.status_code == 200 and "link-local" in page.content.decode()
    page = admin_client.post("/admin/alerts/channel/add/", {**form, "url": f"http://127.0.0.1:{local.port}/x"})
    assert page.status_code == 200 and "ALERTS_WEBHOOK_ALLOW_LOOPBACK" in page.content.decode()
    page = admin_client.post("/admin/alerts/channel/add/", {**form, "url": "https://u:pw@hooks.example.com/x"})
    assert page.status_code == 200 and "Put no user name or password in the URL" in page.content.decode()
    assert not Channel.objects.filter(name="meta").exists()

    settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK = True  # the operator's choice: a receiver on this host is allowed
    page = admin_client.post(
        "/admin/alerts/channel/add/",
        {**form, "url": f"http://localhost:{local.port}/x", "_send_test": "1"},
        follow=True,
    )
    assert "Test message delivered: the receiver answered HTTP 200" in page.content.decode()
    assert len(local.requests) == 1
