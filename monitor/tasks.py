"""Celery tasks: thin wrappers over plain functions that tests call directly."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import DatabaseError
from redis.exceptions import RedisError

from monitor.polling import run_poll

log = logging.getLogger(__name__)


@shared_task(name="monitor.poll_device", ignore_result=True)
def poll_device(device_id: int, tick: int | None = None) -> str:
    """Poll one device for one scheduled tick; a database or Redis outage is logged, never raised."""
    try:
        return run_poll(device_id, tick)
    except DatabaseError as exc:  # locked or full database: say so clearly, the other devices' tasks go on
        log.error("device %s: poll not run or not recorded, the database is unavailable: %s", device_id, exc)
        return f"failed: database unavailable ({type(exc).__name__})"
    except RedisError as exc:
        log.error("device %s: poll not run, Redis is unavailable: %s", device_id, type(exc).__name__)
        return f"failed: Redis unavailable ({type(exc).__name__})"
