"""Aggregate graphs (members summed), read through monitor.timeseries.aggregates.read (what /api/aggregates and
/api/series call), against docs/graphs.md: history planted through HistoryWriter over own_buckets, NOW fixed at
xx:37:23; every legend figure (current, average, minimum, maximum, total, p95), p95_source, tier, resolution and
every chart point, for 6 aggregates x 12 ranges (1h 6h 1d 1w 1m 1y presets, 6 unaligned custom) x 800/300/60
points. The cases: two members at phases 0 and 150 s (the newest step of a live range included), members polled
every 60 and 300 s, a member down for two hours (the first sample after it reaches back one poll interval), a poll
40 s late, a poll interval changed from 300 to 60 s (its history's samples either side of a range are read), a
peak in one member (in the raw tail after the newest hourly window: counted in every figure).

The planted samples carry no span (`span_s`, `in_bytes`): they are history written before the pollers wrote spans
(kept up to the raw retention after an upgrade), read by docs/graphs.md's rule for such samples, written out here
literally: a sample covers the time since its series' previous sample, or one poll interval (the one it was polled
at) after a gap longer than two or for its first; a rollup window with no sample of a member polled at least as
seldom as the window takes the member's next window's mean (rollups keep no single samples). What pollers write now,
each rate with its span, is proved against the counters' own arithmetic by tests/test_total_spans.py and by the
generated scenarios of tests/test_proof.py.
"""

from __future__ import annotations

import bisect
import math
from datetime import datetime, timezone

import pytest

from collectors.samples import Sample
from monitor.timeseries import aggregates
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets

TRAFFIC = TEMPLATES["traffic"]
DAY, HOUR = 86400, 3600
_REAL = datetime.now(timezone.utc).timestamp()
# A fixed "now" off every 5-minute and hour boundary (xx:37:23, an hour or two ago), as tests/test_planted_legends.py.
NOW_S = (int(_REAL) // HOUR - 1) * HOUR + 37 * 60 + 23
NOW = datetime.fromtimestamp(NOW_S, timezone.utc)
RAW_FROM = NOW_S - 13 * DAY  # older history is written to the rollup tiers only (the raw bucket refuses it)
# The raw bucket (14 days, InfluxDB's shard groups of a UTC day) holds every sample from the start of the day that
# holds now less 14 days (docs/graphs.md "Tiers"); no range read here starts between that and RAW_FROM.
RAW_HELD_FROM = (NOW_S - 14 * DAY) // DAY * DAY
FIVE_HELD_S = 366 * DAY
HISTORY_S = 33 * DAY
# docs/graphs.md "Tiers": how long after its end a window counts as written, by its step and the chart's longest
# poll interval (60 s: 3 minutes, 300 s: 8; an hour 8 and 13 minutes)
SEEN = {(300, 60): 180, (300, 300): 480, (3600, 60): 480, (3600, 300): 780}
M = 1e6


def grid(phase: int, every: int, since: float, until: float) -> list[int]:
    first = math.ceil((since - phase) / every) * every + phase
    return list(range(int(first), int(until), every))


# ---------------------------------------------------------------- planted history
# SERIES[(device, port)] = [(t, value, poll interval in force when polled)], sorted.
SERIES: dict[tuple[str, str], list[tuple[float, float, int]]] = {}


def _put(device: str, port: str, rows) -> None:
    SERIES[(device, port)] = sorted(rows)


START = NOW_S - HISTORY_S
# 1. two ports at 500 Mbit/s every 300 s, phases 0 s and 150 s
_put("aud-ph", "a", [(t, 500 * M, 300) for t in grid(0, 300, START, NOW_S)])
_put("aud-ph", "b", [(t, 500 * M, 300) for t in grid(150, 300, START, NOW_S)])
# 2. different poll intervals (60 s and 300 s) on different devices, same port name, uneven values
_put("aud-mx1", "p/1", [(t, (100 + (t // 60) % 7) * M, 60) for t in grid(7, 60, START, NOW_S)])
_put("aud-mx2", "p/1", [(t, (300 + 10 * ((t // 300) % 5)) * M, 300) for t in grid(200, 300, START, NOW_S)])
# 3. a member down for 2 hours (recently, and 25 days ago: rollups only)
DOWN = [(NOW_S - 5 * HOUR, NOW_S - 3 * HOUR), (NOW_S - 25 * DAY, NOW_S - 25 * DAY + 2 * HOUR)]
_put("aud-dn", "a", [(t, 500 * M, 300) for t in grid(0, 300, START, NOW_S)])
_put(
    "aud-dn",
    "b",
    [(t, 300 * M, 300) for t in grid(150, 300, START, NOW_S) if not any(a <= t < b for a, b in DOWN)],
)


# 4. a poll 40 s late (crossing a 5-minute boundary) with a distinct value, 2 h ago and 25 days ago
def _late_rows() -> list[tuple[float, float, int]]:
    rows = [(t, 500 * M, 300) for t in grid(280, 300, START, NOW_S)]
    for around in (NOW_S - 2 * HOUR, NOW_S - 25 * DAY):
        i = next(i for i, r in enumerate(rows) if r[0] >= around)
        rows[i] = (rows[i][0] + 40, 900 * M, 300)
    return rows


LATE = [t for t, v, _ in _late_rows() if v == 900 * M]
_put("aud-lt", "a", _late_rows())
_put("aud-lt", "b", [(t, 500 * M, 300) for t in grid(150, 300, START, NOW_S)])
# 5. poll interval changed from 300 s to 60 s 4 hours ago (member a); member b always 60 s
CHANGE = NOW_S - 4 * HOUR - 143  # on the 5-minute grid
_put(
    "aud-ch1",
    "a",
    [(t, 500 * M, 300) for t in grid(0, 300, START, CHANGE)] + [(t, 500 * M, 60) for t in grid(0, 60, CHANGE, NOW_S)],
)
_put("aud-ch2", "b", [(t, 500 * M, 60) for t in grid(30, 60, START, NOW_S)])
# 6. a peak in one member only (2 h ago, 10 minutes ago: the hourly tier's raw tail, 25 days ago)
PEAKS = [grid(7, 60, x, x + 60)[0] for x in (NOW_S - 2 * HOUR, NOW_S - 10 * 60, NOW_S - 25 * DAY)]
_put("aud-pk1", "p/1", [(t, (900 if t in PEAKS else 100) * M, 60) for t in grid(7, 60, START, NOW_S)])
_put("aud-pk2", "p/1", [(t, 200 * M, 60) for t in grid(37, 60, START, NOW_S)])

AGGREGATES = {
    "phase": (("aud-ph", "a", 300), ("aud-ph", "b", 300)),
    "mixed": (("aud-mx1", "p/1", 60), ("aud-mx2", "p/1", 300)),
    "down": (("aud-dn", "a", 300), ("aud-dn", "b", 300)),
    "late": (("aud-lt", "a", 300), ("aud-lt", "b", 300)),
    "changed": (("aud-ch1", "a", 60), ("aud-ch2", "b", 60)),
    "peak": (("aud-pk1", "p/1", 60), ("aud-pk2", "p/1", 60)),
}


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    polls: dict[str, dict[float, list]] = {}
    for (device, port), rows in SERIES.items():
        for t, v, interval in rows:
            polls.setdefault(device, {}).setdefault(t, []).append((port, v, interval))
    with own_buckets("planted_aggregates", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        for device, by_time in polls.items():
            for t in sorted(by_time):
                got = by_time[t]
                samples = [Sample("interface", {"device": device, "port": p}, {"in_bps": v}, t) for p, v, _ in got]
                history.poll(device, t, samples, got[0][2], raw=t >= RAW_FROM)
        history.close(NOW_S)
        assert history.failed == 0
        yield


# ---------------------------------------------------------------- docs/graphs.md, literally


class Series:
    def __init__(self, rows):
        self.rows = rows
        self.times = [r[0] for r in rows]

    def own(self, i: int) -> float:
        """Own interval: time since the previous sample, or one poll interval after a gap (> 2) or for the first."""
        t, _, interval = self.rows[i]
        if i > 0:  # at a change of poll interval, the interval the previous poll was made at also counts
            interval = max(interval, self.rows[i - 1][2])
        if i > 0 and 0 < t - self.rows[i - 1][0] <= 2 * interval:
            return t - self.rows[i - 1][0]
        return interval

    def value(self, s: float, e: float, live: bool) -> float | None:
        """The member's value in step [s, e): mean of its samples there, else its next sample's value when that
        sample's own interval reaches back into the step; `live`: a step at "now" whose next sample is not due yet
        counts the newest sample while within its poll interval (docs: "the first and last of a range included")."""
        a, b = bisect.bisect_left(self.times, s), bisect.bisect_left(self.times, e)
        if b > a:
            return sum(r[1] for r in self.rows[a:b]) / (b - a)
        if b < len(self.rows):
            return self.rows[b][1] if self.rows[b][0] - self.own(b) < e else None
        if (
            live
            and self.rows
            and self.rows[-1][0] + self.rows[-1][2] > s
            and NOW_S - self.rows[-1][0] < self.rows[-1][2]
        ):
            return self.rows[-1][1]
        return None

    def rollup_value(self, s: float, e: float, current: int) -> float | None:
        """A rollup window's value: the mean of the member's samples there, else (a member polled at least as
        seldom as the window) its next window's mean."""
        a, b = bisect.bisect_left(self.times, s), bisect.bisect_left(self.times, e)
        if b > a:
            return sum(r[1] for r in self.rows[a:b]) / (b - a)
        if current >= e - s:
            c = bisect.bisect_left(self.times, e + (e - s))
            if c > b:
                return sum(r[1] for r in self.rows[b:c]) / (c - b)
        return None

    def total(self, s: float, e: float, first_gets_interval: bool) -> float:
        """Σ value x own interval, the interval in force when the sample was polled deciding what is a gap, for raw
        samples and rollup windows alike (the first sample after a change from 300 to 60 s counts 60 s)."""
        a, b = bisect.bisect_left(self.times, s), bisect.bisect_left(self.times, e)
        out = 0.0
        for i in range(a, b):
            interval = self.rows[i][2]
            if (i == a and first_gets_interval) or i == 0:
                weight = interval
            else:
                spacing = self.times[i] - self.times[i - 1]
                weight = spacing if 0 < spacing <= 2 * interval else interval
            out += self.rows[i][1] * weight
        return out


def members(name: str) -> list[Series]:
    return [Series([r for r in SERIES[(d, p)]]) for d, p, _ in AGGREGATES[name]]


def raw_members(name: str) -> list[Series]:
    return [Series([r for r in SERIES[(d, p)] if r[0] >= RAW_FROM]) for d, p, _ in AGGREGATES[name]]


def percentile(values):
    return sorted(values)[math.ceil(0.95 * len(values)) - 1] if values else None


def chart_tier(start: float, end: float, points: int) -> str:
    if start >= RAW_HELD_FROM:
        return "raw"  # aggregates read raw samples whenever raw retention holds the start
    every = math.ceil((end - start) / points)
    held = (["5m"] if start >= NOW_S - FIVE_HELD_S else []) + ["1h"]
    fine = [t for t in held if {"5m": 300, "1h": 3600}[t] <= every * 1.1]
    return fine[-1] if fine else held[0]


def aligned(start: float, end: float, step: int, intervals: list[int]) -> tuple[int, int]:
    """The whole windows counted as written, less those a slow member's fill may still come from (docs "Aggregate
    graphs": the slowest member's interval over the window, rounded up)."""
    longest = max(intervals)
    lag = math.ceil(longest / step) if longest >= step else 0
    first = math.ceil(start / step) * step
    newest = math.floor((NOW_S - SEEN[(step, longest)]) / step) * step - lag * step
    last = min(math.floor(end / step) * step, newest)
    return first, max(first, last)


def summed(
    series: list[Series], slots, step: int, live_last: bool, rollup: tuple[int, ...] = ()
) -> list[tuple[int, float]]:
    """Σ members per step; `rollup`: the members' current intervals, for windows of a rollup tier."""
    out = []
    for s in slots:
        if rollup:
            got = [m.rollup_value(s, s + step, current) for m, current in zip(series, rollup, strict=True)]
        else:
            got = [m.value(s, s + step, live_last and s + step > NOW_S) for m in series]
        got = [v for v in got if v is not None]
        if got:
            out.append((s, sum(got)))
    return out


def expected(name: str, start: float, end: float, points: int) -> dict:
    tier = chart_tier(start, end, points)
    intervals = [i for _, _, i in AGGREGATES[name]]
    out: dict = {"tier": tier}
    if tier == "raw":
        ms = raw_members(name)
        step = max(intervals)
        steps = summed(ms, range(int(start // step * step), math.ceil(end), step), step, True)
        steps = [(s, v) for s, v in steps if s < end]
        out["total"] = sum(m.total(start, end, True) for m in ms) / 8
        out["p95"], out["p95_source"] = percentile([v for _, v in steps]), "raw samples"
        out["tail"] = None
    else:
        ms = members(name)  # the rollup tiers hold all of it
        step = 300 if tier == "5m" else 3600
        first, last = aligned(start, end, step, intervals)
        steps = summed(ms, range(first, last, step), step, False, tuple(intervals))
        out["total"] = sum(m.total(first, last, False) for m in ms) / 8
        source = 300 if start >= NOW_S - FIVE_HELD_S else 3600
        f5, l5 = aligned(start, end, source, intervals)
        out["p95"] = percentile([v for _, v in summed(ms, range(f5, l5, source), source, False, tuple(intervals))])
        out["p95_source"] = "5-minute means" if source == 300 else "hourly means"
        # docs "Tiers": a rollup chart is completed with the raw samples after its newest window counted as written
        # (while raw retention holds it), more steps (one a window of the tier, the last cut at the range's end)
        # counted in every legend figure.
        out["tail"] = None
        if end >= RAW_HELD_FROM and end > last:
            rm = raw_members(name)
            tail_steps = []
            for slot in range(last, math.ceil(end), step):
                vals = [m.value(slot, min(slot + step, end), True) for m in rm]
                vals = [v for v in vals if v is not None]
                if vals:
                    tail_steps.append((slot, sum(vals)))
            if tail_steps:
                tail_total = sum(m.total(last, end, False) for m in rm)
                out["tail"] = (tail_steps, tail_total / 8)
    native = step
    room = max(points - 4, 1)
    every = max(native, math.ceil((end - start) / room))
    out["every"] = math.ceil(every / native) * native
    out["steps"] = steps
    values = [v for _, v in steps]
    out["current"] = values[-1] if values else None
    out["average"] = sum(values) / len(values) if values else None
    out["minimum"] = min(values, default=None)
    out["maximum"] = max(values, default=None)
    return out


def with_tail(want: dict) -> dict:
    """The legend with the raw tail counted (docs "Tiers", literally)."""
    if not want["tail"]:
        return want
    tail, total = want["tail"]
    values = [x for _, x in want["steps"]] + [v for _, v in tail]
    return want | {
        "current": values[-1],
        "average": sum(values) / len(values),
        "minimum": min(values),
        "maximum": max(values),
        "total": want["total"] + total,
    }


def windows(steps, every_s: int, windowed: bool) -> list[list[float]]:
    if not windowed:
        return [[s * 1000, v, v, v] for s, v in steps]
    out: dict[int, list[float]] = {}
    for s, v in steps:
        out.setdefault(s - s % every_s, []).append(v)
    return [[k * 1000, min(vs), sum(vs) / len(vs), max(vs)] for k, vs in sorted(out.items())]


# ---------------------------------------------------------------- ranges and reading

PRESETS = {"1h": HOUR, "6h": 6 * HOUR, "1d": DAY, "1w": 7 * DAY, "1m": 31 * DAY, "1y": 366 * DAY}
CUSTOM = {
    "C-3h": (NOW_S - 3 * HOUR - 17 * 60 - 13, NOW_S - 41 * 60 - 7),
    "C-2d": (NOW_S - 2 * DAY - 5 * HOUR + 251, NOW_S - 5 * HOUR - 13),
    "C-12d": (NOW_S - 12 * DAY + 123, NOW_S - HOUR + 77),
    "C-6h-live": (NOW_S - 6 * HOUR - 77, NOW_S),
    "C-old": (NOW_S - 30 * DAY + 500, NOW_S - 17 * DAY - 1000),
    "C-20d-tail": (NOW_S - 20 * DAY - 1234, NOW_S - 2 * HOUR + 55),
}
RANGES = {**{k: (NOW_S - v, NOW_S) for k, v in PRESETS.items()}, **CUSTOM}


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-3)


def read(name: str, start: float, end: float, points: int) -> dict:
    plot = Plot(f"planted-{name}", TRAFFIC, tuple(Member(d, p, i) for d, p, i in AGGREGATES[name]))
    span = Window(datetime.fromtimestamp(start, timezone.utc), datetime.fromtimestamp(end, timezone.utc), points, NOW)
    return aggregates.read(plot, span, "now")


def fmt(x):
    return None if x is None else round(x / M, 6) if abs(x) < 1e12 else f"{x:.6e}"


def compare(name: str, label: str, points: int) -> list[str]:
    start, end = RANGES[label]
    want = expected(name, start, end, points)
    data = read(name, start, end, points)
    got_in = next(s for s in data["series"] if s["field"] == "in_bps")
    where = f"{name} {label} pts={points} tier={data['tier']}"
    problems = []
    if data["tier"] != want["tier"]:
        problems.append(f"{where}: tier expected {want['tier']} got {data['tier']}")
        return problems
    if data["p95_source"] != want["p95_source"]:
        problems.append(f"{where}: p95_source expected {want['p95_source']} got {data['p95_source']}")
    literal = with_tail(want)
    stats = got_in["stats"]
    for fig in ("current", "average", "minimum", "maximum", "total", "p95"):
        if not close(stats.get(fig), literal[fig]):
            note = " (= without the raw tail)" if want["tail"] and close(stats.get(fig), want[fig]) else ""
            unit = "" if fig == "total" else " Mbit/s"
            problems.append(f"{where}: {fig} expected {fmt(literal[fig])} got {fmt(stats.get(fig))}{unit}{note}")
    # the raw samples after the newest window are more steps, on the chart's grid with the windows' (docs "Tiers":
    # one point per interval of the grid, where the newest windows fill part of one the tail's steps join them)
    pts = windows(want["steps"] + (want["tail"][0] if want["tail"] else []), data["resolution_s"], data["aggregated"])
    if data["resolution_s"] != want["every"]:
        problems.append(f"{where}: resolution expected {want['every']} got {data['resolution_s']}")
    got_pts = got_in["points"]
    if len(got_pts) != len(pts):
        problems.append(f"{where}: chart expected {len(pts)} points got {len(got_pts)}")
    bad = [
        (p, q)
        for p, q in zip(pts, got_pts, strict=False)
        if p[0] != q[0] or not all(close(x, y) for x, y in zip(p[1:], q[1:], strict=True))
    ]
    if bad:
        p, q = bad[0]
        problems.append(
            f"{where}: {len(bad)} chart points differ, first at {datetime.fromtimestamp(p[0] / 1000, timezone.utc)}"
            f" ({(NOW_S * 1000 - p[0]) / 1000:.0f} s before now): expected {[fmt(x) for x in p[1:]]}"
            f" got {[fmt(x) for x in q[1:]]} (t {q[0] - p[0]:+d} ms)"
        )
    if len(got_pts) > points:
        problems.append(f"{where}: {len(got_pts)} points > {points}")
    return problems


CASES = [(n, label, p) for n in AGGREGATES for label in RANGES for p in (800, 300, 60)]


@pytest.mark.parametrize(("name", "label", "points"), CASES)
def test_aggregate_legend_and_chart(planted, name, label, points):
    problems = compare(name, label, points)
    assert not problems, "\n".join(problems)
