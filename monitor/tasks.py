"""Celery tasks: thin wrappers over plain functions that tests call directly."""

from __future__ import annotations

from celery import shared_task

from monitor.polling import run_poll


@shared_task(name="monitor.poll_device", ignore_result=True)
def poll_device(device_id: int, tick: int | None = None) -> str:
    """Poll one device for one scheduled tick."""
    return run_poll(device_id, tick)
