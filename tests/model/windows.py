"""The rollup tiers of docs/schema.md "Rollups": what each 5-minute and hourly window holds, when the device writes
it, and from what moment pages count it as written (docs/graphs.md "Tiers").

A window holds the good samples timed in [start, start + width) (windows aligned to the epoch); its `total` is
Σ value * span (bits for a port's in_bps). Times are epoch seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import pairwise

from tests.model.rates import Rate, good
from tests.model.scenario import Scenario

FIVE_MIN = 300
HOUR = 3600
HOUR_DELAY_S = 150  # an hour is written by the first poll 150 s after it ends
SPREAD_S = 60  # half of the devices polled every minute write a minute later
LINES_IN_S = 60  # a poll's lines are in InfluxDB a minute after it began
PAGES_MOVE_S = 180  # pages move on 3 minutes past each 5-minute boundary


@dataclass(frozen=True)
class Window:
    """One window of one series: its start, width and the samples it holds (at least one)."""

    start: float
    width: int
    samples: tuple[Rate, ...]

    @property
    def minimum(self) -> float:
        return min(s.value for s in self.samples)

    @property
    def maximum(self) -> float:
        return max(s.value for s in self.samples)

    @property
    def sum(self) -> float:
        return sum(s.value for s in self.samples)

    @property
    def count(self) -> int:
        return len(self.samples)

    @property
    def mean(self) -> float:
        return self.sum / self.count

    @property
    def total(self) -> float:
        return sum(s.value * s.span for s in self.samples)


def window_start(t: float, width: int) -> float:
    """The start of the epoch-aligned window of `width` seconds that holds `t`."""
    return math.floor(t / width) * width


def windows(samples: list[Rate], width: int) -> list[Window]:
    """The windows of `width` seconds the good samples fill, in time order (a window of gaps only is not written)."""
    by_start: dict[float, list[Rate]] = {}
    for s in good(samples):
        by_start.setdefault(window_start(s.t, width), []).append(s)
    return [Window(w, width, tuple(sorted(ss, key=lambda s: s.t))) for w, ss in sorted(by_start.items())]


def in_force_at(scenario: Scenario, t: float) -> int:
    """The interval the device's row holds at `t`: a change is made right after the last poll at the old interval
    (else the scheduler would have polled at it again), so it is that of the first poll at or after `t`."""
    coming = [p for p in scenario.polls if p.t >= t]
    return (coming[0] if coming else scenario.polls[-1]).interval_s


def counted_interval(scenario: Scenario, now: float) -> int:
    """The interval pages count the device's windows as written by at `now` (docs/graphs.md "Tiers"): the one in
    force, but the old and new ones and a minute added up from a change until an hour ending at it would count as
    written by that sum."""
    today = in_force_at(scenario, now)
    polls = scenario.polls
    changes = [a for a, b in pairwise(polls) if a.interval_s != b.interval_s and a.t < now]
    if changes:
        both = changes[-1].interval_s + today + SPREAD_S
        if now - changes[-1].t < counted_from(0, HOUR, both):
            return both
    return today


def interval_at(scenario: Scenario, t: float) -> int:
    """The device's poll interval in force at `t`: that of its last poll at or before `t` (else its first)."""
    before = [p for p in scenario.polls if p.t <= t]
    return (before[-1] if before else scenario.polls[0]).interval_s


def writes_late(interval_s: int) -> bool:
    """Whether the device may be one of the half that write a minute later: those polled every minute (or more
    often). Which half is a hash of the device's key the docs do not give, so the model takes the late one."""
    return interval_s <= 60


def written_at(scenario: Scenario, start: float, width: int, late: bool | None = None) -> float | None:
    """When the device writes the window (its first poll, answered or not, at or after the window's end, 150 s
    later for an hour, a minute later again for a device that writes late); None if no poll comes by then.
    `late`: whether this device is in the later half (None: it is when polled every minute)."""
    end = start + width
    if late is None:
        late = writes_late(interval_at(scenario, end))
    due = end + (HOUR_DELAY_S if width == HOUR else 0) + (SPREAD_S if late else 0)
    return next((p.t for p in scenario.polls if p.t >= due), None)


def written_by_s(width: int, interval_s: int) -> int:
    """How long after a window's end every device polled every `interval_s` has its lines in InfluxDB."""
    late = SPREAD_S if writes_late(interval_s) else 0
    return interval_s + late + (HOUR_DELAY_S if width == HOUR else 0) + LINES_IN_S


def counted_from(end: float, width: int, interval_s: int) -> float:
    """The moment pages count a window ending at `end` as written: the first moment 3 minutes past a 5-minute
    boundary by which the device has written it (5 minutes: 3 / 8 / 18 minutes after the end at 60 / 300 / 900 s)."""
    ready = end + written_by_s(width, interval_s)
    return math.ceil((ready - PAGES_MOVE_S) / FIVE_MIN) * FIVE_MIN + PAGES_MOVE_S


def is_counted(end: float, width: int, interval_s: int, now: float) -> bool:
    """Whether a page read at `now` reads the window ending at `end` from its tier (else from raw samples)."""
    return counted_from(end, width, interval_s) <= now
