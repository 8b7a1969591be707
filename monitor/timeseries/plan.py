"""What a request for graphs asks of the data: its window, and for each graph the tier, step and resolution."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from monitor.timeseries import tiers
from monitor.timeseries.flux import Plot
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


def layout(plot: Plot, span: Window, raw_first: bool = True) -> Layout:
    """The chart tier (tiers.chart_tier) and `max(native step, span / (points - EDGE_POINTS))` rounded up to the
    native step: never more points than asked for, whichever way the windows fall."""
    interval = interval_of([plot])
    tier = tiers.chart_tier(span.start, span.end, span.points, interval, span.now, raw_first)
    native = tier.step_s or interval
    room = max(span.points - EDGE_POINTS, 1)
    every = max(native, math.ceil((span.end - span.start).total_seconds() / room))
    return Layout(tier, native, math.ceil(every / native) * native)
