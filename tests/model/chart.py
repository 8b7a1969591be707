"""What one graph's chart and legend must show for a range (docs/graphs.md "Tiers" and "Legend statistics").

`chart(...)` returns an `Expected`. Units are the series': a port's in_bps in bits a second, so its `total` (Σ value *
span) is in bits (45 GB moved is 3.6e11); a string counter's in bytes a second and bytes. Times in `points` are epoch
milliseconds. A range [start, end] holds the samples timed from `start` up to, not including, `end`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tests.model.rates import Rate, good, nearest_rank_p95, rates
from tests.model.scenario import Scenario
from tests.model.windows import FIVE_MIN, HOUR, counted_interval, in_force_at, is_counted, window_start, windows

DAY = 86400
GO_ZERO_S = 62_135_596_800  # 0001-01-01 to 1970-01-01: InfluxDB starts shard groups at Go's Time.Truncate
ROLLUP_5M = (366 * DAY, 30 * DAY)  # the 5-minute bucket's retention and shard group (docs/schema.md)
SOURCES = {"raw": "raw samples", "5m": "5-minute means", "1h": "hourly means"}
WIDTHS = {"5m": FIVE_MIN, "1h": HOUR}


@dataclass(frozen=True)
class Expected:
    """A chart's answer: its tier ("raw"/"5m"/"1h"), interval, points ((t_ms, value) when not aggregated on raw
    samples, else (t_ms, min, mean, max)) and the legend's figures (None when the range holds no sample)."""

    tier: str
    every_s: int
    aggregated: bool
    points: list[tuple]
    current: float | None
    average: float | None
    minimum: float | None
    maximum: float | None
    total: float | None
    p95: float | None
    p95_source: str


def raw_floor(now: float, retention_s: float, shard_group_s: float) -> float:
    """Where a bucket surely holds everything from: the start of the shard group holding `now - retention`, and
    no further back than the retention and a day."""
    oldest = now - retention_s
    group = math.floor((oldest + GO_ZERO_S) / shard_group_s) * shard_group_s - GO_ZERO_S
    return max(group, oldest - DAY)


def tier_for(start: float, end: float, points: int, now: float, raw_floor_s: float) -> str:
    """The coarsest tier whose window is at most 1.1 times the seconds a point (span / points, rounded up to the
    second) that holds the range's start; raw samples when even 5-minute windows are coarser and raw retention holds
    the start."""
    per_point = math.ceil((end - start) / points)
    holds_5m = start >= raw_floor(now, *ROLLUP_5M)
    if per_point * 11 >= HOUR * 10:  # window <= 1.1 x seconds a point
        return "1h"
    if per_point * 11 >= FIVE_MIN * 10 and holds_5m:
        return "5m"
    if start >= raw_floor_s:
        return "raw"
    return "5m" if holds_5m else "1h"


EDGE_POINTS = 4  # a partial interval at each end of the range, a point each for a rollup chart's raw head and tail


def every_s(native: int, start: float, end: float, points: int) -> int:
    """max(native step, span / (points - 4)) (seconds, rounded up) rounded up to the native step: never more points
    than asked for."""
    per_point = math.ceil((end - start) / max(points - EDGE_POINTS, 1))
    return native * max(1, math.ceil(per_point / native))


def reachable(
    samples: list[Rate], start: float, end: float, width: int | None, floor: float, interval: int, now: float
) -> list[Rate]:
    """The good samples of [start, end) a read at `now` finds: from raw samples where raw retention holds them, from
    the tier's whole windows in the range counted as written. (The head is read raw only while raw retention holds
    the range's start: with a floor on a shard group's start, a multiple of the window, that is the same.)"""
    inside = [s for s in good(samples) if start <= s.t < end and s.t <= now]
    if width is None:
        return inside

    def in_written_window(t: float) -> bool:
        w = window_start(t, width)
        return w >= start and w + width <= end and is_counted(w + width, width, interval, now)

    return [s for s in inside if s.t >= floor or in_written_window(s.t)]


def rollup_p95(samples: list[Rate], start: float, end: float, width: int, interval: int, now: float) -> float | None:
    """The 95th percentile of the means of the range's whole windows of `width` counted as written at `now`."""
    means = [
        w.mean
        for w in windows([s for s in samples if s.t <= now], width)
        if w.start >= start and w.start + width <= end and is_counted(w.start + width, width, interval, now)
    ]
    return nearest_rank_p95(means)


def p95_source(start: float, now: float, raw_floor_s: float) -> str:
    """The finest tier holding the range's start names the 95th percentile's data."""
    if start >= raw_floor_s:
        return "raw"
    return "5m" if start >= raw_floor(now, *ROLLUP_5M) else "1h"


def fold(values: list[tuple[float, float]], every: int, since: float | None = None) -> list[tuple]:
    """(t, value) pairs folded into epoch-aligned intervals of `every` s: (t_ms, min, mean, max) at each start, or at
    `since` (the range's start) for the interval the range begins inside (a point lies inside its range)."""
    slots: dict[float, list[float]] = {}
    for t, v in values:
        slot = window_start(t, every)
        slots.setdefault(slot if since is None else max(slot, since), []).append(v)
    return [(round(t * 1000), min(vs), sum(vs) / len(vs), max(vs)) for t, vs in sorted(slots.items())]


def chart(
    scenario: Scenario, counter_name: str, start: float, end: float, points: int, now: float, raw_floor_s: float
) -> Expected:
    """What the graph of one counter shows for [start, end) read at `now` with `points` pixels."""
    samples = rates(scenario)[counter_name]
    interval, counting = in_force_at(scenario, now), counted_interval(scenario, now)
    tier = tier_for(start, end, points, now, raw_floor_s)
    width = WIDTHS.get(tier)
    every = every_s(width or interval, start, end, points)
    shown = reachable(samples, start, end, width, raw_floor_s, counting, now)
    values = [s.value for s in shown]
    aggregated = width is not None or every != interval  # points are windows: a rollup's, or longer than a poll
    if not aggregated:
        pts: list[tuple] = [(round(s.t * 1000), s.value) for s in shown]
    else:
        pts = fold([(s.t, s.value) for s in shown], every, start)
    current = None
    if shown:
        newest = shown[-1]
        current = newest.value
        if width and newest.t < raw_floor_s:  # past raw retention: the newest window's mean
            last = [v.value for v in shown if window_start(v.t, width) == window_start(newest.t, width)]
            current = sum(last) / len(last)
    source = p95_source(start, now, raw_floor_s)
    if source == "raw":
        p95 = nearest_rank_p95(values)
    else:
        p95 = rollup_p95(samples, start, end, WIDTHS[source], counting, now)
    return Expected(
        tier=tier,
        every_s=every,
        aggregated=aggregated,
        points=pts,
        current=current,
        average=sum(values) / len(values) if values else None,
        minimum=min(values) if values else None,
        maximum=max(values) if values else None,
        total=sum(s.value * s.span for s in shown) if shown else None,
        p95=p95,
        p95_source=SOURCES[source],
    )
