"""Send alert events to webhook, Slack and Teams channels: claim a delivery row atomically, POST, mark it; on
failure retry with the mail's back-off. Each channel's rows wait only for that channel's earlier rows."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import urllib.error
import urllib.request
from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from monitor.alerts import payloads
from monitor.alerts.delivery import backoff_s, claim_row, unclaimed
from monitor.alerts.models import Channel, Delivery

log = logging.getLogger(__name__)
QUEUED, SENT = Delivery.Status.QUEUED, Delivery.Status.SENT


class NotDelivered(Exception):
    """The receiver did not take the message; the text names the HTTP status or the network error, no secret."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def redact(text: str, channel: Channel) -> str:
    """No webhook URL (Slack's and Teams' hold their credential) nor signing key in a log, page or row."""
    for secret in (channel.url, channel.secret):
        if secret:
            text = text.replace(secret, "***")
    return text[:500]


def post(channel: Channel, body: dict) -> int:
    """POST the JSON (signed for a webhook with a key); the HTTP status, or NotDelivered."""
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "snmp-monitor"}
    if channel.kind == Channel.Kind.WEBHOOK and channel.secret:
        stamp = str(int(time.time()))
        signed = hmac.new(channel.secret.encode(), stamp.encode() + b"." + data, hashlib.sha256).hexdigest()
        headers |= {"X-Monitor-Timestamp": stamp, "X-Monitor-Signature": f"sha256={signed}"}
    if not channel.url.lower().startswith(("http://", "https://")):
        raise NotDelivered("the channel's URL is not http:// or https://")
    request = urllib.request.Request(channel.url, data=data, headers=headers, method="POST")  # noqa: S310 - checked
    try:
        with urllib.request.urlopen(request, timeout=channel.timeout_s) as response:  # noqa: S310 - http(s) only
            return response.status
    except urllib.error.HTTPError as exc:
        raise NotDelivered(f"HTTP {exc.code} {exc.reason}", exc.code) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)  # a URLError wraps what went wrong: say that (refused, timed out)
        named = reason if isinstance(reason, BaseException) else exc
        raise NotDelivered(redact(f"{type(named).__name__}: {reason}", channel)) from None


def queue(event, channels: list[Channel]) -> int:
    """A delivery row per enabled channel for an event that notifies; how many."""
    rows = [Delivery(event=event, channel=c, next_attempt_at=event.created_at) for c in channels if c.enabled]
    Delivery.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def due(limit: int = 200) -> list[int]:
    """Queued deliveries due now, oldest first, none behind an unsent earlier one of its target and channel."""
    now = timezone.now()
    earlier = Delivery.objects.filter(
        channel=OuterRef("channel"), event__state=OuterRef("event__state"), id__lt=OuterRef("id"), status=QUEUED
    )
    rows = (
        Delivery.objects.filter(status=QUEUED, next_attempt_at__lte=now, channel__enabled=True)
        .filter(unclaimed(now))
        .filter(~Exists(earlier))
        .order_by("id")
        .values_list("id", flat=True)
    )
    return list(rows[:limit])


def claim(delivery_id: int) -> str | None:
    """One conditional UPDATE takes the row for this sender; None when another sender has it."""
    return claim_row(Delivery.objects.filter(pk=delivery_id, status=QUEUED))


def send_one(delivery_id: int) -> str:
    """Claim and send one delivery: "sent", "claimed elsewhere" or "failed: <reason>"."""
    token = claim(delivery_id)
    if token is None:
        return "claimed elsewhere"
    row = Delivery.objects.select_related("channel", "event__rule", "event__device").get(pk=delivery_id)
    attempts = row.attempts + 1
    try:
        status = post(row.channel, payloads.BUILDERS[row.channel.kind](row.event))
    except NotDelivered as exc:
        Delivery.objects.filter(pk=delivery_id, claimed_by=token).update(
            attempts=attempts,
            last_error=str(exc),
            last_status=exc.status,
            next_attempt_at=timezone.now() + timedelta(seconds=backoff_s(attempts)),
            claimed_by="",
            claimed_until=None,
        )
        log.warning(
            "alert event %s to channel %s not delivered (attempt %s): %s", row.event_id, row.channel, attempts, exc
        )
        return f"failed: {exc}"
    Delivery.objects.filter(pk=delivery_id, claimed_by=token).update(
        status=SENT, sent_at=timezone.now(), attempts=attempts, last_status=status, last_error="", claimed_until=None
    )
    return "sent"


def send_due() -> dict[str, int]:
    """Send every due delivery; a channel that fails is skipped for the rest of the run, the others go on."""
    counts = {"sent": 0, "failed": 0, "skipped": 0}
    failing: set[int] = set()
    while True:
        sent_before = counts["sent"]
        channel_of = dict(Delivery.objects.filter(pk__in=due()).values_list("pk", "channel_id"))
        for delivery_id in sorted(channel_of):
            if channel_of[delivery_id] in failing:
                continue
            outcome = send_one(delivery_id)
            key = "sent" if outcome == "sent" else "failed" if outcome.startswith("failed") else "skipped"
            counts[key] += 1
            if key == "failed":
                failing.add(channel_of[delivery_id])
        if counts["sent"] == sent_before:
            return counts


def next_due_in() -> float | None:
    first = Delivery.objects.filter(status=QUEUED, channel__enabled=True).order_by("next_attempt_at").first()
    if first is None or first.next_attempt_at is None:
        return None
    return max((first.next_attempt_at - timezone.now()).total_seconds(), 0.0)


def send_test(channel: Channel, requested_by: str = "") -> str:
    """The Test button: send a test message now; what the receiver said, or NotDelivered."""
    status = post(channel, payloads.test_payload(channel.kind, requested_by))
    return f"delivered: the receiver answered HTTP {status}"


def failing() -> list[dict]:
    """What the alerts page shows for each channel whose messages wait after a failed attempt."""
    rows = Delivery.objects.filter(status=QUEUED, attempts__gt=0).select_related("channel").order_by("-id")[:500]
    found: dict[int, dict] = {}
    for row in rows:  # newest first: the first row seen of a channel holds its last error
        entry = found.setdefault(row.channel_id, {"channel": row.channel.name, "error": row.last_error, "rows": []})
        entry["rows"].append(row)
    return [
        {
            "channel": entry["channel"],
            "error": entry["error"],
            "waiting": len(entry["rows"]),
            "next_attempt_at": min(r.next_attempt_at for r in entry["rows"] if r.next_attempt_at),
        }
        for entry in found.values()
    ]
