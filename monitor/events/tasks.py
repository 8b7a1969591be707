"""Celery tasks: thin wrappers over plain functions."""

from __future__ import annotations

from celery import shared_task

from monitor.events import retention


@shared_task(name="events.prune", ignore_result=True)
def prune() -> int:
    """Delete events older than EVENTS_RETENTION_DAYS."""
    return retention.prune()
