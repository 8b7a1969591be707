"""Events are kept EVENTS_RETENTION_DAYS days; older ones are deleted in chunks (never the newest to make room)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from monitor.events.models import Event

CHUNK = 5000


def prune(days: int | None = None, now=None) -> int:
    """Delete what is older than the retention, a chunk at a time (short transactions); returns how many."""
    cutoff = (now or timezone.now()) - timedelta(days=days or settings.EVENTS_RETENTION_DAYS)
    deleted = 0
    while True:
        ids = list(Event.objects.filter(time__lt=cutoff).order_by("time").values_list("id", flat=True)[:CHUNK])
        if not ids:
            return deleted
        deleted += Event.objects.filter(id__in=ids).delete()[0]
