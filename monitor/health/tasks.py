"""Celery task: a thin wrapper over monitor.health.sampling."""

from __future__ import annotations

from celery import shared_task

from monitor.health import sampling


@shared_task(name="monitor.health.record", ignore_result=True)
def record_health() -> int:
    """Write the pollers' health figures of this minute as samples."""
    return sampling.record()
