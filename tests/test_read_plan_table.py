"""The read plan of every preset range and poll interval, pinned (issue 44): which tier draws the chart, its step,
the whole windows it reads from that tier, whether raw samples complete its head and tail, and which tier its 95th
percentile is of and its whole windows. Each is the plan every reader of the request takes (plan.read_plan) at the
request's moment, against buckets made as deployed, compared with the reference model (tests/model/, written from
docs/graphs.md) at moments around an hour's end, for single graphs and for aggregates of members polled at other
intervals; a few rows are worked by hand."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.plan import Window, read_plan
from monitor.timeseries.templates import TEMPLATES
from tests.model import aggregate as summed
from tests.model import chart as model
from tests.model.windows import is_counted
from tests.tsbuckets import own_buckets

DAY, HOUR, FIVE = 86400, 3600, 300
H = 1_800_000_000  # an hour's end (08:00 UTC), far from any shard group's edge
PRESETS = {"1h": HOUR, "6h": 6 * HOUR, "1d": DAY, "1w": 7 * DAY, "1m": 30 * DAY, "1y": 366 * DAY}
INTERVALS = (10, 60, 300, 900, 3600)
# right after the hour, after the 3-minute grace, and at the moments windows of slower devices are counted
MOMENTS = (H + 5, H + 185, H + 305, H + 485, H + 785, H + 1085, H + 1385, H + 3785, H + 4085)
POINTS = 300
RAW = (14 * DAY, DAY)  # the raw bucket as deployed: 14 days, InfluxDB's shard groups of a day


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


@pytest.fixture(scope="module")
def deployed(stack_env, tmp_path_factory):
    with own_buckets("readplan", tmp_path_factory.mktemp("spool")):
        yield


def product_plan(start: float, end: float, now: float, interval: int) -> tuple:
    """(tier, step, whole windows or None, raw head, raw tail, 95th's source) as the product reads the range."""
    plot = Plot("p", TEMPLATES["traffic"], (Member("d", "1", interval),))
    plan = read_plan([plot], Window(at(start), at(end), POINTS, at(now)))
    shape, bounds = plan.shape, plan.bounds
    if bounds is None:
        return shape.tier.name, shape.every_s, None, False, False, plan.source.name
    whole = (bounds.start.timestamp(), bounds.end.timestamp())
    return shape.tier.name, shape.every_s, whole, bounds.head is not None, plan.tail, plan.source.name


def model_plan(start: float, end: float, now: float, interval: int) -> tuple:
    """The same from the model: the tier and step it draws with, its whole windows counted as written, raw edges
    where raw retention holds them."""
    floor = model.raw_floor(now, *RAW)
    tier = model.tier_for(start, end, POINTS, now, floor)
    width = model.WIDTHS.get(tier)
    step = model.every_s(width or interval, start, end, POINTS)
    source = model.p95_source(start, now, floor)
    if width is None:
        return tier, step, None, False, False, source
    first = math.ceil(start / width) * width
    last = math.floor(end / width) * width
    while last > first and not is_counted(last, width, interval, now):
        last -= width
    return tier, step, (first, last), start < first and start >= floor, last >= floor, source


def ranges(now: float) -> list[tuple[str, float]]:
    """Every preset, and ranges starting just inside and just outside what the raw bucket holds."""
    floor = model.raw_floor(now, *RAW)
    return [*((name, now - span) for name, span in PRESETS.items()), ("inside", floor + 600), ("outside", floor - 600)]


@pytest.mark.parametrize("interval", INTERVALS)
def test_the_plan_of_every_range_at_every_moment_is_the_models(deployed, interval):
    differ = []
    for now in MOMENTS:
        for name, start in ranges(now):
            got, want = product_plan(start, now, now, interval), model_plan(start, now, now, interval)
            if got != want:
                differ.append(f"{name} at H+{now - H:.0f}: product {got}, model {want}")
    assert not differ, "\n".join(differ[:10])


# Worked by hand from docs/graphs.md at H + 185 (3 minutes after the hour): (tier, step, whole windows from the
# hour's end, raw head, raw tail, 95th's source). The range starts 185 s past a window's start, so its first whole
# window is the next one, and raw samples draw its head while raw retention (14 days) holds them. A day has
# 86,400 / 296 = 292 s a point: 5-minute windows; a week 2,044 s: 7 windows (2,100 s); a month 8,757 s: 3 hours; a
# year 106,541 s: 30 hours. A 5-minute window of a 60-s device is counted 180 s after its end, of a 300-s device
# 480 s (its poll up to 300 s late, a minute to land, the next 3-minute moment), of a 900-s device 1,080 s; an hour
# of a 60-s device 480 s after its end. The 1y preset is 366 days, which the 5-minute bucket still holds.
BY_HAND = [
    ("1h", 60, ("raw", 60, None, False, False, "raw")),
    ("1h", 10, ("raw", 20, None, False, False, "raw")),  # 3,600 / 296 = 13 s, rounded up to the poll
    ("6h", 60, ("raw", 120, None, False, False, "raw")),  # 73 s a point
    ("1d", 60, ("5m", 300, (FIVE - DAY, 0), True, True, "raw")),  # the window ending at the hour: counted at +180
    ("1d", 300, ("5m", 300, (FIVE - DAY, -FIVE), True, True, "raw")),  # ...at +480: not yet
    ("1d", 900, ("5m", 300, (FIVE - DAY, -900), True, True, "raw")),  # ...at +1,080; the one ending at -900 at +180
    ("1w", 60, ("5m", 2100, (FIVE - 7 * DAY, 0), True, True, "raw")),
    ("1m", 60, ("1h", 10800, (HOUR - 30 * DAY, -HOUR), False, True, "5m")),  # the hour counted at +480
    ("1y", 300, ("1h", 108000, (HOUR - 366 * DAY, -HOUR), False, True, "5m")),
]


@pytest.mark.parametrize(("preset", "interval", "want"), BY_HAND)
def test_the_plan_of_a_range_worked_by_hand(deployed, preset, interval, want):
    now = H + 185
    tier, step, whole, head, tail, source = product_plan(now - PRESETS[preset], now, now, interval)
    windows = None if whole is None else (whole[0] - H, whole[1] - H)
    names = {"raw": "raw", "5m": "5-minute means", "1h": "hourly means"}
    wanted_source = want[5] if want[5] in names.values() else names[want[5]]
    assert (tier, step, windows, head, tail, names[source]) == (*want[:5], wanted_source)


# Aggregates (docs/graphs.md "Aggregate graphs"): raw samples while raw retention holds the range's start, and whole
# windows only as far as each has the windows after it that a slow member's value may come from counted as written
AGGREGATES = [(60, 300), (10, 900), (300, 3600), (60, 3600), (900, 900)]


def product_aggregate_plan(start: float, end: float, now: float, intervals: tuple[int, ...]) -> tuple:
    """(tier, step, the chart's whole windows or None, the 95th's source and its whole windows or None)."""
    members = tuple(Member(f"d{i}", "1", interval) for i, interval in enumerate(intervals))
    span = Window(at(start), at(end), POINTS, at(now))
    plan = read_plan([Plot("p", TEMPLATES["traffic"], members)], span, raw_first=True, summed=True)
    whole = None if plan.bounds is None else (plan.bounds.start.timestamp(), plan.bounds.end.timestamp())
    source = None if plan.source_windows is None else tuple(t.timestamp() for t in plan.source_windows)
    return plan.shape.tier.name, plan.shape.every_s, whole, plan.source.name, source


def model_aggregate_plan(start: float, end: float, now: float, intervals: tuple[int, ...]) -> tuple:
    floor = model.raw_floor(now, *RAW)
    series = [summed.Member.of([], interval) for interval in intervals]
    longest = max(intervals)
    tier = "raw" if start >= floor else model.tier_for(start, end, POINTS, now, floor)

    def whole(width: int) -> tuple[float, float]:
        first = math.ceil(start / width) * width
        return first, first + width * summed._written_count(
            start, end, width, longest, now, summed.fills(series, width)
        )

    width = model.WIDTHS.get(tier)
    step = model.every_s(width or longest, start, end, POINTS)
    source = model.p95_source(start, now, floor)
    source_width = model.WIDTHS.get(source)
    return tier, step, width and whole(width), source, source_width and whole(source_width)


@pytest.mark.parametrize("intervals", AGGREGATES)
def test_the_plan_of_every_aggregate_is_the_models(deployed, intervals):
    differ = []
    for now in MOMENTS:
        for name, start in ranges(now):
            got = product_aggregate_plan(start, now, now, intervals)
            want = model_aggregate_plan(start, now, now, intervals)
            if got != want:
                differ.append(f"{name} at H+{now - H:.0f}: product {got}, model {want}")
    assert not differ, "\n".join(differ[:10])
