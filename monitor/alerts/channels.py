"""Send alert events to webhook, Slack and Teams channels: claim a delivery row atomically, POST, mark it; on
failure retry with the mail's back-off. Each channel's rows wait only for that channel's earlier rows."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone

from monitor.alerts import payloads
from monitor.alerts.channelpost import NotDelivered, post
from monitor.alerts.delivery import backoff_s, claim_row, unclaimed
from monitor.alerts.models import Channel, Delivery
from monitor.alerts.watchdog import lease_left

log = logging.getLogger(__name__)
QUEUED, SENT, FAILED = Delivery.Status.QUEUED, Delivery.Status.SENT, Delivery.Status.FAILED


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
    try:
        status = post(row.channel, payloads.BUILDERS[row.channel.kind](row.event), time_left(row))
    except NotDelivered as exc:
        _failed(row, token, exc)
        return f"failed: {exc}"
    Delivery.objects.filter(pk=delivery_id, claimed_by=token).update(
        status=SENT, sent_at=timezone.now(), attempts=row.attempts + 1, last_status=status, last_error="",
        claimed_until=None,
    )  # fmt: skip
    return "sent"


def time_left(row: Delivery) -> float:
    """The send's one deadline: the channel's timeout, cut to end inside the claim's lease (watchdog.lease_left)."""
    left = lease_left(row.claimed_until)
    if left <= 0:
        raise NotDelivered("the claim's lease ran out before the message was sent")
    return min(float(row.channel.timeout_s), left)


def _failed(row: Delivery, token: str, exc: NotDelivered) -> None:
    """Count the attempt and keep the reason; retried after the back-off, or given up when it cannot succeed."""
    attempts = row.attempts + 1
    fields = {"attempts": attempts, "last_error": str(exc), "last_status": exc.status, "claimed_by": "",
              "claimed_until": None}  # fmt: skip
    if exc.permanent:
        fields |= {"status": FAILED, "next_attempt_at": None}
    else:
        fields["next_attempt_at"] = timezone.now() + timedelta(seconds=backoff_s(attempts))
    Delivery.objects.filter(pk=row.pk, claimed_by=token).update(**fields)
    level = logging.ERROR if exc.permanent else logging.WARNING
    log.log(level, "alert event %s to channel %s not delivered (attempt %s): %s", row.event_id, row.channel, attempts,
            exc)  # fmt: skip


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
    """What the alerts page shows per channel: messages waiting after a failed attempt, and messages given up."""
    rows = (
        Delivery.objects.filter(status__in=[QUEUED, FAILED], attempts__gt=0)
        .select_related("channel")
        .order_by("-id")[:500]
    )
    found: dict[tuple[int, str], dict] = {}
    for row in rows:  # newest first: the first row seen of a channel holds its last error
        key = (row.channel_id, row.status)
        entry = found.setdefault(
            key, {"channel": row.channel.name, "error": row.last_error, "given_up": row.status == FAILED, "rows": []}
        )
        entry["rows"].append(row)
    return [
        {
            "channel": entry["channel"],
            "error": entry["error"],
            "given_up": entry["given_up"],
            "waiting": len(entry["rows"]),
            "next_attempt_at": min((r.next_attempt_at for r in entry["rows"] if r.next_attempt_at), default=None),
        }
        for entry in found.values()
    ]


def send_again(rows) -> int:
    """The delivery log's action: given-up (or waiting) rows queued to be sent now; how many."""
    return rows.exclude(status=SENT).update(
        status=QUEUED, next_attempt_at=timezone.now(), claimed_by="", claimed_until=None
    )
