"""What an aggregate graph (members summed) must show: docs/graphs.md "Aggregate graphs".

Each member is resampled to the step (raw samples: the longest member poll interval; rollups: the tier's window),
the members are summed per step, and every figure but the total is of those sums; the total is the sum of the
members' own totals. Units as in chart.py (bits a second and bits for ports).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass

from tests.model.chart import (
    SOURCES,
    WIDTHS,
    Expected,
    every_s,
    fold,
    p95_source,
    reachable,
    tier_for,
)
from tests.model.rates import Rate, good, nearest_rank_p95, rates
from tests.model.scenario import Scenario
from tests.model.windows import counted_interval, in_force_at, is_counted, window_start


@dataclass(frozen=True)
class Member:
    """One member's good samples up to the read's moment, their times (for bisect: a step finds its samples without
    scanning them all), and its poll interval at the read's moment."""

    samples: list[Rate]
    times: list[float]
    interval: int

    @classmethod
    def of(cls, samples: list[Rate], interval: int) -> Member:
        return cls(samples, [s.t for s in samples], interval)

    def inside(self, lo: float, hi: float) -> list[Rate]:
        """The samples timed in [lo, hi)."""
        return self.samples[bisect_left(self.times, lo) : bisect_left(self.times, hi)]

    def first_from(self, t: float) -> Rate | None:
        """The first sample timed at or after `t`."""
        i = bisect_left(self.times, t)
        return self.samples[i] if i < len(self.samples) else None


def _mean(samples: list[Rate]) -> float:
    return sum(s.value for s in samples) / len(samples)


def step_value(member: Member, lo: float, hi: float, now: float, live: bool) -> float | None:
    """A member's value in the step [lo, hi): the mean of its samples there, else its next sample's when that
    sample's span reaches back into the step, else (a live range's newest steps) its newest sample's while its next
    poll is not due; None: the member is missing from the step."""
    inside = member.inside(lo, hi)
    if inside:
        return _mean(inside)
    later = member.first_from(hi)
    if later is not None:
        return later.value if later.t - later.span < hi else None
    samples = member.samples
    if live and samples and now < samples[-1].t + member.interval:
        return samples[-1].value
    return None


def window_value(member: Member, w: float, width: int) -> float | None:
    """A member's value in a written window: its mean, else (a member polled at least as seldom as the window) the
    mean of its next window with a sample within its poll interval (rollups keep no single samples)."""
    ahead = math.ceil(member.interval / width) if member.interval >= width else 0
    for lo in (w + k * width for k in range(ahead + 1)):
        inside = member.inside(lo, lo + width)
        if inside:
            return _mean(inside)
    return None


def _summed(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def aggregate(
    members: list[tuple[Scenario, str]], start: float, end: float, points: int, now: float, raw_floor_s: float
) -> Expected:
    """What the aggregate of `members` (a scenario and a counter name each) shows for [start, end) read at `now`."""
    # A poll at the read's very moment has not written its sample by then (docs/graphs.md: a range [start, end) holds
    # the samples timed before its end, and a page read at `now` reads to `now`), as charts read it too
    series = [Member.of([s for s in good(rates(sc)[name]) if s.t < now], in_force_at(sc, now)) for sc, name in members]
    longest = max(m.interval for m in series)
    counting = max(counted_interval(sc, now) for sc, _ in members)  # what the windows counted as written go by
    live = end >= now
    tier = "raw" if start >= raw_floor_s else tier_for(start, end, points, now, raw_floor_s)
    width = WIDTHS.get(tier)
    step = width or longest
    steps: list[tuple[float, float]] = []  # (step start, summed value)
    if width is None:
        lo = window_start(start, step)
        while lo < end:
            total = _summed([step_value(m, lo, min(lo + step, end), now, live) for m in series])  # [start, end)
            if total is not None:
                steps.append((lo, total))
            lo += step
    else:
        steps = written_sums(series, start, end, width, counting, now)
        lo = math.ceil(start / width) * width + width * _written_count(
            start, end, width, counting, now, fills(series, width)
        )
        while lo < end:  # the tail: raw samples after the newest window counted, a step a window, cut at the end
            hi = min(lo + width, end)
            total = _summed([step_value(m, lo, hi, now, live) for m in series])
            if total is not None:
                steps.append((lo, total))
            lo += width
    every = every_s(step, start, end, points)
    aggregated = width is not None or every != step  # points are windows: a rollup's, or several steps
    values = [v for _, v in steps]
    pts = fold(steps, every) if aggregated else [(round(t * 1000), v) for t, v in steps]  # whole steps, at their starts
    source = p95_source(start, now, raw_floor_s)
    if source == "raw":
        p95 = nearest_rank_p95(values)
    else:
        p95 = nearest_rank_p95([v for _, v in written_sums(series, start, end, WIDTHS[source], counting, now)])
    totals = [
        sum(s.value * s.span for s in reachable(m.samples, start, end, width, raw_floor_s, counting, now))
        for m in series
    ]
    return Expected(
        tier=tier,
        every_s=every,
        aggregated=aggregated,
        points=pts,
        current=values[-1] if values else None,
        average=sum(values) / len(values) if values else None,
        minimum=min(values) if values else None,
        maximum=max(values) if values else None,
        total=sum(totals) if values else None,
        p95=p95,
        p95_source=SOURCES[source],
    )


def _written_count(start: float, end: float, width: int, longest: int, now: float, fills: int = 0) -> int:
    """How many whole windows of the range, from its first, pages count as written at `now`: each with the `fills`
    windows after it (those a slow member's value in it may come from, `window_value`) counted as written too."""
    n, lo = 0, math.ceil(start / width) * width
    while lo + width <= end and is_counted(lo + width + fills * width, width, longest, now):
        n, lo = n + 1, lo + width
    return n


def fills(series: list[Member], width: int) -> int:
    """How many windows after a window a member's value in it may come from (`window_value`), the most of any."""
    return max(math.ceil(m.interval / width) if m.interval >= width else 0 for m in series)


def written_sums(
    series: list[Member], start: float, end: float, width: int, longest: int, now: float
) -> list[tuple[float, float]]:
    """(start, members' summed means) of the range's whole windows of `width` counted as written at `now`."""
    sums = []
    first = math.ceil(start / width) * width
    for k in range(_written_count(start, end, width, longest, now, fills(series, width))):
        lo = first + k * width
        total = _summed([window_value(m, lo, width) for m in series])
        if total is not None:
            sums.append((lo, total))
    return sums
