"""Devices that stopped answering cost less: one try per poll, and only on ticks a minute or so apart.

After MONITOR_UNREACHABLE_AFTER polls in a row with no answer at all (SNMP timeouts, not the errors of a device
that answers), a device is polled without retries and only on the ticks MONITOR_UNREACHABLE_POLL_S apart, as
Zabbix's unreachable poller does: a dead device costs one timeout a minute instead of (retries + 1) timeouts
every interval, and it holds its batch's worker for less. Its first answer ends the back-off. The count lives
in Redis beside the counters; losing it only restarts the count.
"""

from __future__ import annotations

import math
from dataclasses import replace

from django.conf import settings
from redis.exceptions import RedisError

from collectors.snmptypes import SnmpTarget

SILENT_KEY = "monitor:silent:{device}"
SILENT_TTL_S = 7 * 86400


def silent_polls(redis, device_ids: list[int]) -> dict[int, int]:
    """How many polls in a row each device gave no answer (0 when it answered last time)."""
    if not device_ids:
        return {}
    values = redis.mget([SILENT_KEY.format(device=pk) for pk in device_ids])
    return {pk: int(value or 0) for pk, value in zip(device_ids, values, strict=True)}


def unreachable(silent: int) -> bool:
    return silent >= settings.MONITOR_UNREACHABLE_AFTER


def _every(interval_s: int) -> int:
    return max(1, math.ceil(settings.MONITOR_UNREACHABLE_POLL_S / max(1, interval_s)))


def skips_tick(silent: int, tick: int | None, interval_s: int) -> bool:
    """A tick an unreachable device sits out: only every ceil(MONITOR_UNREACHABLE_POLL_S / interval)-th is tried."""
    if tick is None or not unreachable(silent):
        return False
    return (tick // max(1, interval_s)) % _every(interval_s) != 0


def retry_every_s(redis, device_id: int, interval_s: int) -> int | None:
    """For the device page: how often an unreachable device is tried now; None when it is polled as usual."""
    try:
        silent = silent_polls(redis, [device_id])[device_id]
    except RedisError:  # the page still renders; it just cannot say
        return None
    return _every(interval_s) * interval_s if unreachable(silent) else None


def target(snmp_target: SnmpTarget, silent: int) -> SnmpTarget:
    """An unreachable device's target gets one try per request (no retries)."""
    return replace(snmp_target, retries=0) if unreachable(silent) and snmp_target.retries else snmp_target


def remember(redis, heard: dict[int, bool], counts: dict[int, int]) -> None:
    """Count another silent poll for each device that gave no answer; forget the count of each that answered
    after silent polls (`counts`, as silent_polls read them). Devices that answered before and now cost nothing."""
    changed = {pk: gone for pk, gone in heard.items() if gone or counts.get(pk)}
    if not changed:
        return
    pipe = redis.pipeline(transaction=False)
    for pk, gone in changed.items():
        key = SILENT_KEY.format(device=pk)
        if gone:
            pipe.incr(key)
            pipe.expire(key, SILENT_TTL_S)
        else:
            pipe.delete(key)
    pipe.execute()
