"""Celery tasks: thin wrappers over plain functions that tests call directly."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from celery import shared_task
from django.db import DatabaseError, connection
from redis.exceptions import RedisError

from monitor.polling.run import run_polls

log = logging.getLogger(__name__)


@shared_task(name="monitor.poll_devices", ignore_result=True)
def poll_devices(device_ids: list[int], tick: int | None = None) -> dict[int, str]:
    """Poll the devices due at one tick (one batch, polled concurrently); an outage is logged, never raised."""
    try:
        return run_polls(device_ids, tick)
    except DatabaseError as exc:  # locked or full database: say so clearly, the other tasks go on
        log.error(
            "devices %s: polls not run or not recorded, the database is unavailable: %s%s",
            device_ids,
            exc,
            disk_note(),
        )
        return dict.fromkeys(device_ids, f"failed: database unavailable ({type(exc).__name__})")
    except RedisError as exc:
        log.error("devices %s: polls not run, Redis is unavailable: %s", device_ids, type(exc).__name__)
        return dict.fromkeys(device_ids, f"failed: Redis unavailable ({type(exc).__name__})")


def disk_note() -> str:
    """Where the embedded database's disk is full, say which folder and how little is free.

    SQLite names no path, and in WAL mode it may answer only "disk I/O error"."""
    if connection.vendor != "sqlite":
        return ""
    folder = Path(connection.settings_dict["NAME"]).parent
    try:
        free = shutil.disk_usage(folder).free
    except OSError:
        return ""
    return f" (the disk of {folder} is full: {free} bytes free)" if free < 1024 * 1024 else ""


@shared_task(name="monitor.poll_device", ignore_result=True)
def poll_device(device_id: int, tick: int | None = None) -> str:
    """Poll one device for one tick (on demand, or a batch of one)."""
    return poll_devices([device_id], tick)[device_id]
