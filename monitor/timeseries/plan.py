"""What a request for graphs asks of the data: its window, and for each group of graphs one read plan (the chart's tier
and step, the whole rollup windows it reads, its raw edges, the 95th percentile's source and windows), decided here
once per request; every reader takes the plan and asks none of it again (issue 44)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from monitor.timeseries import cache, tiers
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.tiers import Tier

MAX_POINTS = 2000
SOURCES = {"raw": "raw samples", "5m": "5-minute means", "1h": "hourly means"}


@dataclass(frozen=True)
class Window:
    """The window every graph of a request shares."""

    start: datetime
    end: datetime
    points: int
    now: datetime

    @classmethod
    def of(cls, start: datetime, end: datetime, points: int, now: datetime | None = None) -> Window:
        return cls(start, end, points, now or datetime.now(timezone.utc))


@dataclass(frozen=True)
class Bounds:
    """A chart drawn from a rollup tier: raw samples from `head` (None: none) to `start`, whole windows from
    `start` to `end`, raw samples from `end` on."""

    head: datetime | None
    start: datetime
    end: datetime

    def ms(self) -> tuple[int | None, int, int]:
        head = int(self.head.timestamp() * 1000) if self.head is not None else None
        return head, int(self.start.timestamp() * 1000), int(self.end.timestamp() * 1000)


@dataclass(frozen=True)
class Layout:
    """How one graph is read: its tier, native step, the chart's interval, and whether samples are windowed."""

    tier: Tier
    native_s: int
    every_s: int

    @property
    def windowed(self) -> bool:
        return self.tier.step_s > 0 or self.every_s > self.native_s


# Points a chart may have beyond span / step: a window cut short at each end of the range, and a point each for
# the raw samples before the first whole rollup window and after the newest one.
EDGE_POINTS = 4


def interval_of(plots: Iterable[Plot]) -> int:
    """The longest poll interval of the graphs' members: what their charts' steps go by."""
    return max(member.interval_s for plot in plots for member in plot.members)


def counted_interval_of(plots: Iterable[Plot]) -> int:
    """The longest interval the graphs' members count their windows as written by (collectors/rollup.py
    written_by_s; after an interval change, monitor/timeseries/cache.py counted_interval_s)."""
    return max(member.counts_by_s for plot in plots for member in plot.members)


def layout(plot: Plot, span: Window, raw_first: bool) -> Layout:
    """The chart tier (tiers.chart_tier) and `max(native step, span / (points - EDGE_POINTS))` rounded up to the
    native step: never more points than asked for, whichever way the windows fall."""
    # pragma: no mutate block (asks the tiers what InfluxDB keeps: tests/test_read_plan_table.py)
    interval = interval_of([plot])
    tier = tiers.chart_tier(span.start, span.end, span.points, interval, span.now, raw_first)
    native = tier.step_s or interval
    room = max(span.points - EDGE_POINTS, 1)
    every = max(native, math.ceil((span.end - span.start).total_seconds() / room))
    return Layout(tier, native, math.ceil(every / native) * native)


@dataclass(frozen=True)
class ReadPlan:
    """How a group of graphs is read at the request's moment (docs/graphs.md): the chart's `shape`; for a chart of a
    rollup tier, its whole windows and raw edges (`bounds`: raw samples from `bounds.head`, None for none, the tier's
    windows from `bounds.start` to `bounds.end`) and whether raw retention holds the samples after them (`tail`);
    the tier its 95th percentile is of (`source`) and, where that is a rollup tier, the whole windows it reads
    (`source_windows`). Graphs with the same plan are read together."""

    shape: Layout
    interval_s: int
    bounds: Bounds | None
    tail: bool
    source: Tier
    source_windows: tuple[datetime, datetime] | None

    @property
    def p95_source(self) -> str:
        return SOURCES[self.source.name]


def ahead(member: Member, step_ms: int) -> int:
    """How many windows of `step_ms` after an empty one an aggregate's member may take its mean from (its sample
    covers the interval before it: monitor/timeseries/aggregates.py _fill)."""
    return math.ceil(member.interval_s * 1000 / step_ms) if member.interval_s * 1000 >= step_ms else 0


def lag(plot: Plot, step_s: int) -> int:
    """How many windows before the newest counted as written an aggregate's whole windows end: each then has
    every member's fill from windows counted as written too, so it never changes when a later one lands (the
    samples after it are the raw tail's, whose steps take a later sample whose span reaches back)."""
    return max(ahead(member, step_s * 1000) for member in plot.members)


def read_plan(
    plots: Sequence[Plot],
    span: Window,
    raw_first: bool = False,  # pragma: no mutate (a choice of what to read: tests/test_read_plan_table.py)
    summed: bool = False,  # pragma: no mutate
) -> ReadPlan:
    """The plan of graphs read together (each with the same layout and members' intervals): their layout, the whole
    windows of the chart's tier counted as written at `span.now` (cache.aligned; `summed`, an aggregate's: `lag`
    windows earlier), raw samples before them where raw retention holds the range's start and after them where it
    holds their end (Tier.holds), and the finest tier holding the range's start for the 95th percentile
    (tiers.finest_holding) with its whole windows."""
    # pragma: no mutate block (asks the tiers what InfluxDB keeps: tests/test_read_plan_table.py)
    shape = layout(plots[0], span, raw_first)
    counted = counted_interval_of(plots)
    raw = tiers.tiers()[0]

    def whole(step_s: int) -> tuple[datetime, datetime]:
        behind = lag(plots[0], step_s) if summed else 0
        return cache.aligned(span.start, span.end, span.now, step_s, counted, behind)

    source = tiers.finest_holding(span.start, span.now)
    source_windows = whole(source.step_s) if source.step_s else None
    if not shape.tier.step_s:
        return ReadPlan(shape, interval_of(plots), None, False, source, source_windows)
    start, end = whole(shape.tier.step_s)
    head = span.start if span.start < start and raw.holds(span.start, span.now) else None
    return ReadPlan(
        shape, interval_of(plots), Bounds(head, start, end), raw.holds(end, span.now), source, source_windows
    )
