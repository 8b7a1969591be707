"""Results read from rollup tiers, kept until a newer rollup window could change them."""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from datetime import datetime, timezone
from typing import NamedTuple

from django.core.cache import cache

from collectors.rollup import SPREAD_S

# A window is written by the device's first poll after its end, or a minute later for half of the devices
# (collectors/rollup.py SPREAD_S): reading this long after a boundary sees it.
WRITE_GRACE_S = 120 + SPREAD_S
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
LATE_SPAN_NS = 900 * 10**9  # longer than a kept tail lives unread (edges.TTL_S): its mark is within this


class Late(NamedTuple):
    """Raw samples reached InfluxDB late (a spool replayed after an outage): when (ns, unique per mark), and the
    oldest time (ms) of any written late in the LATE_SPAN_NS before it."""

    at_ns: int
    oldest_ms: int


def note_late_writes(tier: str, oldest_ms: int | None) -> None:
    """Mark raw samples written late, as old as `oldest_ms` (None: unknown, as old as any): a device's tail kept
    before the mark reads again from there (monitor/timeseries/edges.py). Two replays marked at once may keep only
    one's oldest time: a kept tail then lacks the other's samples until its chart's window moves past them."""
    if tier != "raw":
        return
    now = time.time_ns()
    oldest = 0 if oldest_ms is None else oldest_ms
    with contextlib.suppress(Exception):  # the cache away: the tails kept in it are gone with it
        previous = cache.get(LATE_KEY)
        if isinstance(previous, Late) and now - previous.at_ns < LATE_SPAN_NS:
            oldest = min(oldest, previous.oldest_ms)
        cache.set(LATE_KEY, Late(now, oldest), timeout=None)


def late_writes() -> Late | None:
    """The newest note_late_writes mark (None: none since the cache was cleared)."""
    found = get_many([LATE_KEY]).get(LATE_KEY)
    return found if isinstance(found, Late) else None
