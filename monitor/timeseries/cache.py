"""Results read from rollup tiers, kept until a newer rollup window could change them."""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from datetime import datetime, timezone

from django.core.cache import cache

# A window is written by the first poll after its end: reading this long after a boundary sees it.
WRITE_GRACE_S = 120
# An hour is written by the first poll HOUR_WRITE_DELAY_S after its end (collectors/rollup.py); pages see it with
# the next 5-minute window, when the warming has read them as at that moment (monitor/graphs/warming.py).
HOUR_GRACE_S = 300 + WRITE_GRACE_S


def grace_s(step_s: int) -> int:
    """How long after a window's end of a tier of `step_s` every device has surely written it."""
    return HOUR_GRACE_S if step_s >= 3600 else WRITE_GRACE_S


def aligned(start: datetime, end: datetime, now: datetime, step_s: int) -> tuple[datetime, datetime]:
    """The whole windows of `step_s` inside [start, end], ending no later than the newest one surely written:
    what a rollup tier can say about the range, and the same for every request until the next window lands."""
    first = math.ceil(start.timestamp() / step_s) * step_s
    last = math.floor((min(end.timestamp(), now.timestamp() - grace_s(step_s))) / step_s) * step_s
    last = max(last, first)
    return datetime.fromtimestamp(first, timezone.utc), datetime.fromtimestamp(last, timezone.utc)


def key(*parts: object) -> str:
    return "ts:" + hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def get_many(keys: list[str]) -> dict[str, object]:
    try:
        return cache.get_many(keys)
    except Exception:  # the cache (Redis) away: read InfluxDB instead
        return {}


def set_many(values: dict[str, object], step_s: int, windows: int = 2) -> None:
    """Keep values `windows` windows of `step_s` (by default two: a range moved on by one or two windows still
    finds them)."""
    with contextlib.suppress(Exception):  # the cache (Redis) away: the next request reads InfluxDB again
        cache.set_many(values, timeout=windows * step_s)


LATE_KEY = "ts:late-raw-writes"


def note_late_writes(tier: str) -> None:
    """Say raw samples reached InfluxDB late (a spool replayed after an outage): a device's tail kept before this
    is read in full again (monitor/timeseries/edges.py). A new value each time, so a key lost to eviction never
    comes back equal to one a tail was kept with."""
    if tier == "raw":
        with contextlib.suppress(Exception):  # the cache away: tails kept in it are gone with it
            cache.set(LATE_KEY, time.time_ns(), timeout=None)


def late_writes() -> object:
    """The newest note_late_writes mark (None: none since the cache was cleared)."""
    return get_many([LATE_KEY]).get(LATE_KEY)
