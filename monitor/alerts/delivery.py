"""Send queued alert mails: claim a row atomically, send, mark it; on failure retry with back-off."""

from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from datetime import timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from monitor.alerts.mailserver import outbox, redact
from monitor.alerts.messages import build_message
from monitor.alerts.models import Event
from monitor.alerts.watchdog import LEASE_MARGIN_S, lease_left, overrun

log = logging.getLogger(__name__)
WORKER_ID = f"{socket.gethostname()}:{os.getpid()}"


class MailTooSlow(Exception):
    """The send had no time left inside its claim's lease."""


def backoff_s(attempts: int) -> float:
    """Seconds before attempt number attempts+1: doubling from ALERTS_RETRY_BASE_S up to ALERTS_RETRY_MAX_S."""
    base, cap = settings.ALERTS_RETRY_BASE_S, settings.ALERTS_RETRY_MAX_S
    return float(min(cap, base * 2 ** max(attempts - 1, 0)))


def unclaimed(now) -> Q:
    """Rows no sender holds: never claimed, or the claim's lease has run out (its sender died)."""
    return Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)


def claim_row(queued, worker: str = "") -> str | None:
    """Take one due queued row (`queued`: a queryset of it) with one conditional UPDATE: a token for the sender
    that changed it, None when another sender has it or it is not due. Mails and channel deliveries share it."""
    now = timezone.now()
    token = f"{worker or WORKER_ID}:{uuid.uuid4().hex[:8]}"
    lease = now + timedelta(seconds=settings.ALERTS_SEND_LEASE_S)
    won = queued.filter(next_attempt_at__lte=now).filter(unclaimed(now)).update(claimed_by=token, claimed_until=lease)
    return token if won == 1 else None


def due(limit: int = 200) -> list[int]:
    """Queued events whose next attempt is due, oldest first, skipping any behind an unsent earlier one."""
    now = timezone.now()
    earlier = Event.objects.filter(state=OuterRef("state"), id__lt=OuterRef("id"), mail=Event.Mail.QUEUED)
    rows = (
        Event.objects.filter(mail=Event.Mail.QUEUED, next_attempt_at__lte=now)
        .filter(unclaimed(now))
        .filter(~Exists(earlier))
        .order_by("id")
        .values_list("id", flat=True)
    )
    return list(rows[:limit])


def claim(event_id: int, worker: str = "") -> str | None:
    """Take a queued row for sending with one conditional UPDATE; returns a token, or None if another has it."""
    return claim_row(Event.objects.filter(pk=event_id, mail=Event.Mail.QUEUED), worker)


def send_one(event_id: int, worker: str = "") -> str:
    """Claim and send one event's mail; returns "sent", "claimed elsewhere" or "failed: <reason>"."""
    token = claim(event_id, worker)
    if token is None:
        log.info("alert event %s: already claimed or not due", event_id)
        return "claimed elsewhere"
    event = Event.objects.select_related("rule", "device", "state").get(pk=event_id)
    seconds = time_left(event)
    box = outbox(time.monotonic() + seconds)  # Admin -> Mail server when it has a host, else EMAIL_* settings
    try:
        if seconds <= 0:
            raise MailTooSlow("the claim's lease ran out before the mail was sent")
        message = build_message(event, connection=box.connection)
        message.from_email = box.from_email
        message.send(fail_silently=False)
    except Exception as exc:  # SMTP down, refused, timed out: keep the row and retry later
        reason = redact(f"{type(exc).__name__}: {exc}", box.secrets)
        if getattr(box.connection, "overran", False):  # the deadline shut it down: say so, not "disconnected"
            reason = overrun(seconds, "mail server")
        attempts = event.attempts + 1
        Event.objects.filter(pk=event_id, claimed_by=token).update(
            attempts=attempts,
            last_error=reason,
            next_attempt_at=timezone.now() + timedelta(seconds=backoff_s(attempts)),
            claimed_by="",
            claimed_until=None,
        )
        log.warning("alert event %s: mail not sent (attempt %s): %s", event_id, attempts, reason)
        return f"failed: {reason}"
    finally:
        box.connection.close()  # ends the deadline's watchdog too, also when the connection was never made
    Event.objects.filter(pk=event_id, claimed_by=token).update(
        mail=Event.Mail.SENT, sent_at=timezone.now(), attempts=event.attempts + 1, last_error="", claimed_until=None
    )
    log.info("alert event %s: mail sent by %s", event_id, token)
    return "sent"


def time_left(event: Event) -> float:
    """Seconds the send may take: it ends LEASE_MARGIN_S (a quarter of a shorter lease) before the claim's lease
    does, so no other worker claims the row while it is being sent (0 or less: no time)."""
    return lease_left(event.claimed_until, min(LEASE_MARGIN_S, settings.ALERTS_SEND_LEASE_S / 4))


def send_due(worker: str = "") -> dict[str, int]:
    """Send every due mail; stops at the first failure of a run (the server is likely down for all)."""
    counts = {"sent": 0, "failed": 0, "skipped": 0}
    while True:  # again after each round: a sent mail may unblock the next one of the same target
        sent_before = counts["sent"]
        for event_id in due():
            outcome = send_one(event_id, worker)
            key = "sent" if outcome == "sent" else "failed" if outcome.startswith("failed") else "skipped"
            counts[key] += 1
            if key == "failed":
                _defer_all(outcome)
                return counts
        if counts["sent"] == sent_before:
            return counts


def _defer_all(reason: str) -> None:
    """When the server is down, the other due rows wait too, so one outage is not N timeouts per run."""
    now = timezone.now()
    Event.objects.filter(mail=Event.Mail.QUEUED, next_attempt_at__lte=now, claimed_until__isnull=True).update(
        next_attempt_at=now + timedelta(seconds=settings.ALERTS_RETRY_BASE_S), last_error=reason[6:]
    )


def next_due_in() -> float | None:
    """Seconds until the next queued row is due (0 if now), None when nothing is waiting."""
    first = Event.objects.filter(mail=Event.Mail.QUEUED).order_by("next_attempt_at").first()
    if first is None or first.next_attempt_at is None:
        return None
    return max((first.next_attempt_at - timezone.now()).total_seconds(), 0.0)


def delivery_problem() -> dict | None:
    """What the alerts page shows while mails fail: how many wait, the last error, the next attempt."""
    failing = Event.objects.filter(mail=Event.Mail.QUEUED, attempts__gt=0)
    last = failing.order_by("-next_attempt_at").first()
    if last is None:
        return None
    waiting = Event.objects.filter(mail=Event.Mail.QUEUED).count()
    first = failing.order_by("next_attempt_at").first()
    return {
        "waiting": waiting,
        "error": last.last_error,
        "attempts": last.attempts,
        "next_attempt_at": first.next_attempt_at,
    }
