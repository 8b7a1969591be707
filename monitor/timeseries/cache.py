"""Results read from rollup tiers, kept until a newer rollup window could change them."""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from datetime import datetime, timezone
from typing import NamedTuple

from django.core.cache import cache

from collectors.rollup import FIVE, HOUR, SPREAD_S, written_by_s

# Pages move on to newer rollup windows at one moment after each 5-minute boundary, when every device polled each
# minute has written the window that ended there (collectors/rollup.py written_by_s: its first poll after the end,
# a minute later for half of them, and that poll's write); the warming reads viewed pages as at that moment
# (monitor/graphs/warming.py).
WRITE_GRACE_S = int(written_by_s(FIVE, SPREAD_S))


def seen_after_s(step_s: int, interval_s: float) -> int:
    """How long after a window's end (of a tier of `step_s`) pages count it as written for devices polled every
    `interval_s`: the first moment pages move on (WRITE_GRACE_S past a 5-minute boundary) by which every such
    device has written it. A 5-minute window 3 minutes after its end when polled each minute (or every 2 minutes),
    8 minutes when polled every 300 s, 18 minutes every 900 s; an hour 8, 13 and 23 minutes after its end."""
    late = max(0.0, written_by_s(step_s, interval_s) - WRITE_GRACE_S)
    return WRITE_GRACE_S + math.ceil(late / FIVE) * FIVE


def counted_interval_s(interval_s: int, previous_s: int | None, changed_at_s: float | None, now_s: float) -> int:
    """The poll interval pages count a device's windows as written by at `now_s`: its interval, but the sum of its
    old and new ones and SPREAD_S until an hour ending at the change would be counted by that sum. The old polls may
    stop before writing a window that ended before the change (up to an old interval and its write delay, a minute,
    after its end), and the first poll at the new interval comes within one new interval of the change (a 60-s
    device made 300-s: a window it has not written yet is written up to 300 s later than the 60-s rule says)."""
    if previous_s is None or changed_at_s is None:
        return interval_s
    both = previous_s + interval_s + SPREAD_S
    return both if now_s - changed_at_s < seen_after_s(HOUR, both) else interval_s


# An hour is seen with the 5-minute window pages see 5 minutes after it (devices polled each minute).
HOUR_GRACE_S = seen_after_s(HOUR, SPREAD_S)


def newest_seen(now_s: float, step_s: int, interval_s: float) -> float:
    """The end of the newest window of `step_s` pages count as written at `now_s` (epoch seconds) for devices
    polled every `interval_s`: every window ending by then is in InfluxDB, whole."""
    return math.floor((now_s - seen_after_s(step_s, interval_s)) / step_s) * step_s


def aligned(
    start: datetime, end: datetime, now: datetime, step_s: int, interval_s: float, lag: int = 0
) -> tuple[datetime, datetime]:
    """The whole windows of `step_s` inside [start, end], ending no later than the newest one surely written by
    devices polled every `interval_s` (`lag` windows before it: an aggregate's windows wait for those its slow
    members' fill comes from): what a rollup tier can say about the range, and the same for every request until the
    next window lands. The samples after it are raw (monitor/timeseries/edges.py)."""
    first = math.ceil(start.timestamp() / step_s) * step_s
    newest = newest_seen(now.timestamp(), step_s, interval_s) - lag * step_s
    last = min(math.floor(end.timestamp() / step_s) * step_s, newest)
    last = max(last, first)
    return datetime.fromtimestamp(first, timezone.utc), datetime.fromtimestamp(last, timezone.utc)


# pragma: no mutate block (from here on Redis, not window arithmetic: tests/test_redis_restart.py and the page tests)
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
