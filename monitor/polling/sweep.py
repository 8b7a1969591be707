"""Close the rollup windows of devices no longer polled (disabled, deleted, or polled rarely): a beat job."""

from __future__ import annotations

import logging
import time

from celery import shared_task

from collectors.state import OPEN_KEY
from monitor.core import locks, services
from monitor.timeseries.templates import ROLLUP_TOTALS

log = logging.getLogger(__name__)
# A window can be closed once no poll in flight can add to it: polls started before its end are done by then.
IDLE_S = 600


def close_idle_windows(now: float | None = None) -> int:
    """Write and forget every window that ended IDLE_S ago and is still open; returns the devices swept."""
    now = time.time() if now is None else now
    store, redis, writer = services.counter_store(), services.redis_client(), services.influx_writer()
    swept = 0
    for key in store.open_until(now - IDLE_S):
        lock = locks.DEVICE_RUNNING.format(device=key)
        if not locks.acquire(redis, lock, 120):
            continue  # being polled: that poll closes them
        try:
            state = store.load(key)
            if state is None:
                redis.zrem(OPEN_KEY, key)
                continue
            closed: dict[str, list[str]] = {}
            state.windows.close_due(now - IDLE_S, closed, ROLLUP_TOTALS)
            for tier, lines in closed.items():
                writer.write_lines(lines, tier)  # spooled like any write when InfluxDB is away
            store.save(key, state)
            swept += 1
        finally:
            locks.release(redis, lock)
    return swept


@shared_task(name="monitor.polling.sweep", ignore_result=True)
def sweep() -> int:
    """Beat's every-5-minute job (settings.CELERY_BEAT_SCHEDULE)."""
    return close_idle_windows()
