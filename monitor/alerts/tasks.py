"""Celery tasks: thin wrappers over monitor.alerts.delivery."""

from __future__ import annotations

from celery import shared_task

from monitor.alerts import channels, delivery, eventrules
from monitor.core import services

RETRY_KEY = "alerts:retry-scheduled"


@shared_task(name="alerts.send_pending", ignore_result=True)
def send_pending() -> dict[str, int]:
    """Send every due alert mail; if some wait for a retry, schedule one follow-up run for then."""
    counts = delivery.send_due()
    for key, count in channels.send_due().items():  # webhook, Slack and Teams channels, each on its own
        counts[key] += count
    waits = [w for w in (delivery.next_due_in(), channels.next_due_in()) if w is not None]
    wait = min(waits) if waits else None
    if wait is not None:
        countdown = max(wait, 1.0)
        # One follow-up at a time, however many polls or beat runs kicked this task.
        if services.redis_client().set(RETRY_KEY, 1, nx=True, ex=max(int(countdown), 1)):
            send_pending.apply_async(countdown=countdown, ignore_result=True)
    return counts


@shared_task(name="alerts.send_event", ignore_result=True)
def send_event(event_id: int) -> str:
    """Claim and send one event's mail (claiming makes concurrent sends of one row harmless)."""
    return delivery.send_one(event_id)


@shared_task(name="alerts.events_quiet", ignore_result=True)
def events_quiet() -> int:
    """Clear event-rule alerts whose events went quiet (rules without a clearing event)."""
    return eventrules.quiet()
