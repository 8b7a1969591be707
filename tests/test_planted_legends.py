"""Every legend figure and chart maximum against history planted with known exact statistics.

Interface history with known exact statistics is planted through the poll path's own rollup windows and writer
(monitor.timeseries.history.HistoryWriter, as tests/test_legends.py does), then read back through
monitor.timeseries.series.read (what /api/series and /api/graphs/<id>/series call) and monitor.graphs.api.batch,
and every legend figure (current, average, minimum, maximum, total, 95th) and the maximum over the chart's points
is compared with what docs/graphs.md says it must be, computed here from the planted samples.

Populations, as docs/graphs.md states them:
- raw tier, or a rollup tier while the raw bucket holds the range's start (14 days of retention, in InfluxDB's shard
  groups of a day: from the start of the UTC day that holds now less 14 days): every sample in [start, end) (head
  and tail raw edges included);
- a rollup tier past raw retention: the whole windows of the tier in [start, end) that are surely written
  (cache.aligned), plus the raw samples after the newest window while raw retention holds the range's end;
- 95th percentile: of the raw samples while raw retention holds the start, else of the 5-minute means of the whole
  5-minute windows of the range (else hourly means); the value at ascending index ceil(0.95 n) - 1.
- total: Σ value x its own interval (time since the previous sample; one poll interval after a gap > 2 intervals
  or for the first sample), in bytes (÷ 8).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from collectors.rollup import sample_weight
from collectors.samples import Sample
from monitor.timeseries import series as ts_series
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets

TRAFFIC = TEMPLATES["traffic"]
DAY, HOUR, POLL, PHASE = 86400, 3600, 60, 7
# A fixed "now" an hour or two in the past, 37 min 23 s past an hour: no range end lies on a window boundary.
_REAL = datetime.now(timezone.utc).timestamp()
NOW_S = (int(_REAL) // HOUR - 1) * HOUR + 37 * 60 + 23
NOW = datetime.fromtimestamp(NOW_S, timezone.utc)
RAW_FROM = NOW_S - 13 * DAY  # raw samples written from here on (older history: rollups only; the bucket refuses it)
# The raw bucket holds every sample from the start of the UTC day (its shard group) that holds now less 14 days; no
# range read here starts between that and RAW_FROM. The 5-minute one holds 366 days at least.
RAW_HELD_FROM, FIVE_HELD_FROM = (NOW_S - 14 * DAY) // DAY * DAY, NOW_S - 366 * DAY
FLAT_IN, FLAT_OUT, PEAK_IN, PEAK_OUT = 10e6, 4e6, 900e6, 250e6
GRACE = {300: 180, 3600: 480}  # cache.WRITE_GRACE_S, HOUR_GRACE_S

PRESETS = {"1h": HOUR, "6h": 6 * HOUR, "1d": DAY, "1w": 7 * DAY, "1m": 31 * DAY, "1y": 366 * DAY}


def grid_at_or_after(t: float) -> int:
    """The first poll time (k*60 + PHASE) at or after t."""
    return int(math.ceil((t - PHASE) / POLL) * POLL + PHASE)


# ---- custom ranges, deliberately off every 5-minute and hour boundary ----
CUSTOM = {
    "C1-3h-raw": (NOW_S - 3 * HOUR - 17 * 60 - 13, NOW_S - 41 * 60 - 7),
    "C5-1d-5m-stored": (NOW_S - DAY - 3 * HOUR + 137, NOW_S - 3 * HOUR - 71),
    "C2-2d-5m-flux": (NOW_S - 2 * DAY - 5 * HOUR + 251, NOW_S - 5 * HOUR - 13),
    "C3-12d-1h-edges": (NOW_S - 12 * DAY + 123, NOW_S - HOUR + 77),
    "C4-old-14d-1h": (NOW_S - 34 * DAY + 500, NOW_S - 20 * DAY - 1000),
}


def _flat(device_days: int, peak_at: float | None) -> list[tuple[float, float, float]]:
    first = grid_at_or_after(NOW_S - device_days * DAY)
    peak = grid_at_or_after(peak_at) if peak_at is not None else None
    out = []
    t = first
    while t < NOW_S:
        out.append((t, PEAK_IN, PEAK_OUT) if t == peak else (t, FLAT_IN, FLAT_OUT))
        t += POLL
    return out


def _varied() -> list[tuple[float, float, float]]:
    """35 days of uneven values (a p95 that depends on every value), a 4 h 11 min gap in the last day, a 5 h gap 22
    days ago, and uneven intervals (120 s, 180 s, 90 s + 30 s) 3 h and 20 days ago."""
    first = grid_at_or_after(NOW_S - 35 * DAY)
    gaps = [(NOW_S - 9 * HOUR - 13 * 60, NOW_S - 4 * HOUR - 2 * 60), (NOW_S - 22 * DAY - 5 * HOUR, NOW_S - 22 * DAY)]
    times = []
    t = first
    while t < NOW_S:
        if not any(a <= t < b for a, b in gaps):
            times.append(float(t))
        t += POLL
    for around in (NOW_S - 3 * HOUR, NOW_S - 20 * DAY + 1234):
        j = next(i for i, x in enumerate(times) if x >= around)
        drop = {j, j + 10, j + 11}
        times[j + 20] += 30.0
        times = [x for i, x in enumerate(times) if i not in drop]
    out = []
    for t in times:
        i = int((t - first) // POLL)
        out.append((t, 1e6 * (1 + (i * 7919) % 997), 1e5 * (1 + (i * 104729) % 499)))
    return out


def _sparse(times: list[float], value_in: float = 37e6, value_out: float = 3e6) -> list[tuple[float, float, float]]:
    return [(t, value_in + 1e6 * n, value_out + 1e5 * n) for n, t in enumerate(times)]


def _head_only(start: float, step: int) -> list[float]:
    first_whole = math.ceil(start / step) * step
    times, t = [], start + 1
    while t < first_whole and len(times) < 4:
        times.append(t)
        t += POLL
    assert times, "range start on a boundary"
    return times


def _tail_only(end: float, step: int) -> list[float]:
    last_whole = math.floor(end / step) * step
    times, t = [], end - 2
    while t >= last_whole and len(times) < 4:
        times.append(t)
        t -= POLL
    assert times
    return sorted(times)


def _edge_windows() -> list[tuple[float, float, float]]:
    """For the 1m preset (hourly tier, past raw retention): 5-minute windows at 200 Mbit/s between the range's first
    whole 5-minute window and its first whole hour, 3 quiet hours (10 Mbit/s) 10 days ago, and 300 Mbit/s in the
    whole 5-minute windows after the newest whole hour (surely written) and before the newest 5-minute one.
    5-minute means: 4 x 200 M, 36 x 10 M, 6 x 300 M (n = 46, k = 3): the 95th of 5-minute means is 300 M."""
    start = NOW_S - 31 * DAY
    out = []
    for t in range(grid_at_or_after(math.ceil(start / 300) * 300), math.ceil(start / HOUR) * HOUR, POLL):
        out.append((t, 200e6, 20e6))
    quiet = (NOW_S - 10 * DAY) // HOUR * HOUR
    for t in range(quiet + PHASE, quiet + 3 * HOUR, POLL):
        out.append((t, FLAT_IN, FLAT_OUT))
    last_hour = math.floor((NOW_S - GRACE[3600]) / HOUR) * HOUR
    for t in range(last_hour + PHASE, math.floor((NOW_S - GRACE[300]) / 300) * 300, POLL):
        out.append((t, 300e6, 30e6))
    return out


DEVICES: dict[str, list[tuple[float, float, float]]] = {
    "78": _edge_windows(),
    # one 60-s peak of 900 Mbit/s in a flat 10 Mbit/s history, at different places
    "71": _flat(32, NOW_S - 13 * 60),  # in every rollup range's raw tail; in the 1h raw range
    "72": _flat(32, NOW_S - 47 * 60),  # near the newest hour
    "73": _flat(32, NOW_S - DAY + 40),  # the 1d preset's first partial 5-minute window (its head)
    "74": _flat(32, NOW_S - 7 * DAY + 20),  # the 1w preset's head
    "75": _flat(32, NOW_S - 25 * DAY + 13),  # past raw retention: 1m, 1y, C4 (hourly tier only)
    "76": _flat(32, NOW_S - 31 * DAY + 30),  # the 1m preset's first partial window, past raw retention
    "77": _flat(32, NOW_S - 100),  # the open 5-minute window (not yet written anywhere but raw)
    "81": _varied(),
    # data only in the first or last partial window of a range
    "91": _sparse(_head_only(CUSTOM["C5-1d-5m-stored"][0], 300)),
    "92": _sparse(_head_only(CUSTOM["C3-12d-1h-edges"][0], 3600)),
    "93": _sparse(_tail_only(CUSTOM["C5-1d-5m-stored"][1], 300)),
    "94": _sparse(_tail_only(CUSTOM["C3-12d-1h-edges"][1], 3600)),
    "95": _sparse([NOW_S - 290 + 60 * i for i in range(5)]),  # only after the newest window of every preset
    "96": _sparse(_head_only(CUSTOM["C4-old-14d-1h"][0], 3600)),  # old: first partial hour, raw long gone
}


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    from monitor.core import services

    services.redis_client().flushdb()
    with own_buckets("planted_legends", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        for device, rows in DEVICES.items():
            for t, vin, vout in rows:
                sample = Sample("interface", {"device": device, "port": "p/1"}, {"in_bps": vin, "out_bps": vout}, t)
                history.poll(device, t, [sample], POLL, raw=t >= RAW_FROM)
        history.close(NOW_S)
        assert history.failed == 0
        yield


# ---------------------------------------------------------------- expectations (docs/graphs.md)


def _held(start: float, since: float = RAW_HELD_FROM) -> bool:
    return start >= since


def population(rows, start: float, end: float, tier: str) -> list[tuple[float, float]]:
    """(t, value) of the samples the legend covers, by the docs' rules for this tier."""
    if tier == "raw" or _held(start):
        return [(t, v) for t, v in rows if start <= t < end]
    step = 300 if tier == "5m" else 3600
    first = math.ceil(start / step) * step
    last = max(first, math.floor(min(end, NOW_S - GRACE[step]) / step) * step)
    whole = [(t, v) for t, v in rows if first <= t < last]
    tail = [(t, v) for t, v in rows if last <= t < end] if _held(end) else []
    return whole + tail


def p95_population(rows, start: float, end: float) -> tuple[str, list[float]]:
    if _held(start):
        return "raw samples", [v for t, v in rows if start <= t < end]
    step = 300 if _held(start, FIVE_HELD_FROM) else 3600
    first = math.ceil(start / step) * step
    last = max(first, math.floor(min(end, NOW_S - GRACE[step]) / step) * step)
    windows: dict[int, list[float]] = {}
    for t, v in rows:
        if first <= t < last:
            windows.setdefault(int(t // step), []).append(v)
    return ("5-minute means" if step == 300 else "hourly means"), [sum(w) / len(w) for w in windows.values()]


def percentile(values: list[float]) -> float | None:
    if not values:
        return None
    return sorted(values)[math.ceil(0.95 * len(values)) - 1]


def total_bytes(pop: list[tuple[float, float]], rows) -> float | None:
    """Σ v x own interval; the first sample of the range gets one poll interval. Also checks that giving it the
    interval since its true predecessor would change nothing for this data (so either reading of the docs holds)."""
    if not pop:
        return None
    result, last = 0.0, None
    times = [t for t, _ in rows]
    for t, v in pop:
        result += v * sample_weight(t, last, POLL)
        last = t
    first_t = pop[0][0]
    i = times.index(first_t)
    if i > 0:
        alt = sample_weight(first_t, times[i - 1], POLL)
        assert alt == POLL, f"ambiguous first interval at {first_t}: {alt}"
    return result / 8


def expected(device: str, field: str, start: float, end: float, tier: str) -> dict:
    rows = [(t, vin if field == "in_bps" else vout) for t, vin, vout in DEVICES[device]]
    pop = population(rows, start, end, tier)
    values = [v for _, v in pop]
    source, p95_values = p95_population(rows, start, end)
    out = {
        "average": sum(values) / len(values) if values else None,
        "minimum": min(values, default=None),
        "maximum": max(values, default=None),
        "total": total_bytes(pop, rows),
        "p95": percentile(p95_values),
        "p95_source": source,
        "n": len(values),
    }
    # current: the newest sample when it is a raw sample the chart reads (raw tier, or a tail after the newest window)
    out["current"] = values[-1] if values else None
    out["current_is_raw"] = tier == "raw" or (values and _held(end) and _in_tail(pop, end, tier))
    return out


def _in_tail(pop, end: float, tier: str) -> bool:
    step = 300 if tier == "5m" else 3600
    last = math.floor(min(end, NOW_S - GRACE[step]) / step) * step
    return pop[-1][0] >= last


# ---------------------------------------------------------------- reading


def read(device: str, start: float, end: float, points: int, detail: bool, columns: bool) -> dict:
    plot = Plot("planted", TRAFFIC, (Member(device, "p/1", POLL),))
    span = Window(datetime.fromtimestamp(start, timezone.utc), datetime.fromtimestamp(end, timezone.utc), points, NOW)
    return ts_series.read([plot], span, "now", detail, columns)["planted"]


def chart_maxima(series: dict) -> list[float]:
    if "cols" in series:
        return [v for v in series["cols"]["max"] if v is not None and v == v]
    return [p[3] for p in series["points"] if p[3] is not None]


def chart_len(series: dict) -> int:
    return len(series["cols"]["t"]) if "cols" in series else len(series["points"])


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)


def compare(device: str, label: str, start: float, end: float, points: int, detail: bool, columns: bool) -> list:
    data = read(device, start, end, points, detail, columns)
    problems = []
    for item in data["series"]:
        want = expected(device, item["field"], start, end, data["tier"])
        got = item["stats"]
        where = f"dev {device} {label} pts={points} detail={detail} cols={columns} tier={data['tier']} {item['field']}"
        for name in ("average", "minimum", "maximum", "total", "p95"):
            if not close(got.get(name), want[name]):
                problems.append(f"{where}: {name} expected {want[name]!r} got {got.get(name)!r}")
        if want["current_is_raw"] and not close(got.get("current"), want["current"]):
            problems.append(f"{where}: current expected {want['current']!r} got {got.get('current')!r}")
        maxima = chart_maxima(item)
        chart_max = max(maxima, default=None)
        if not close(chart_max, want["maximum"]):
            problems.append(f"{where}: chart max expected {want['maximum']!r} got {chart_max!r}")
        if chart_len(item) > points:
            problems.append(f"{where}: {chart_len(item)} points > {points}")
    if data["p95_source"] != want["p95_source"]:
        problems.append(f"dev {device} {label}: p95_source expected {want['p95_source']} got {data['p95_source']}")
    return problems


def ranges() -> list[tuple[str, float, float]]:
    out = [(name, NOW_S - span, NOW_S) for name, span in PRESETS.items()]
    return out + [(name, a, b) for name, (a, b) in CUSTOM.items()]


CASES = [
    (device, label, start, end, points, detail, columns)
    for device in DEVICES
    for label, start, end in ranges()
    for points, detail, columns in ((800, True, False), (300, False, True), (60, True, False))
]
# Hourly windows with every edge: 34 days on 30 points are windows of 32 hours (Flux), from the range's first whole
# hour to its newest hour written, then the raw samples after it (raw retention holds the end, not the start).
HOURLY = ("C6-34d-1h-32h", NOW_S - 34 * DAY - 5 * HOUR - 17 * 60 - 13, NOW_S - 2 * HOUR - 7)
CASES += [(device, *HOURLY, 30, detail, detail) for device in DEVICES for detail in (True, False)]


@pytest.mark.parametrize(("device", "label", "start", "end", "points", "detail", "columns"), CASES)
def test_legend_and_chart_are_exact(planted, device, label, start, end, points, detail, columns):
    problems = compare(device, label, start, end, points, detail, columns)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- tier choice (docs/graphs.md "Tiers")


def test_tier_choice_follows_the_docs(planted):
    """docs: a day of 300 points reads 5-minute windows; a month of 800 points (3,348 s a point) snaps to hourly
    windows (within 10 %), of 1,000 points (2,678 s) reads 5-minute ones; a year reads hourly windows; an hour
    reads raw samples."""
    found = {
        "1h@800": read("71", NOW_S - HOUR, NOW_S, 800, True, False)["tier"],
        "1d@300": read("71", NOW_S - DAY, NOW_S, 300, False, True)["tier"],
        "1m@800": read("71", NOW_S - 31 * DAY, NOW_S, 800, True, False)["tier"],
        "1m@1000": read("71", NOW_S - 31 * DAY, NOW_S, 1000, True, False)["tier"],
        "1y@800": read("71", NOW_S - 366 * DAY, NOW_S, 800, True, False)["tier"],
    }
    assert found == {"1h@800": "raw", "1d@300": "5m", "1m@800": "1h", "1m@1000": "5m", "1y@800": "1h"}


# ---------------------------------------------------------------- the page endpoint's own path (api.batch)


@pytest.mark.django_db
@pytest.mark.parametrize("preset", list(PRESETS))
def test_api_batch_presets_for_the_peak(planted, preset):
    from django.http import QueryDict

    from monitor.graphs import api
    from monitor.graphs.access import Access
    from monitor.models import Device, Graph

    problems = []
    for device in ("71", "73", "75"):
        Device.objects.create(
            pk=int(device), name=f"planted-{device}", host="127.0.0.1", community="x", poll_interval_s=60
        )
        graph = Graph.objects.create(device_id=int(device), template="traffic", instance="p/1", title="t")
        for shape in ("columns", "points"):
            query = QueryDict(mutable=True)
            query.update({"graph": str(graph.pk), "range": preset, "points": "300", "shape": shape})
            data = api.batch(Access.server(), query, now=NOW)["graphs"][str(graph.pk)]
            for item in data["series"]:
                want = expected(device, item["field"], NOW_S - PRESETS[preset], NOW_S, data["tier"])
                for name in ("average", "minimum", "maximum", "total", "p95"):
                    if not close(item["stats"].get(name), want[name]):
                        problems.append(
                            f"api dev {device} {preset} {shape} {item['field']} {name}: "
                            f"expected {want[name]!r} got {item['stats'].get(name)!r}"
                        )
                if not close(max(chart_maxima(item), default=None), want["maximum"]):
                    problems.append(
                        f"api dev {device} {preset} {shape} {item['field']} chart max: "
                        f"expected {want['maximum']!r} got {max(chart_maxima(item), default=None)!r}"
                    )
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------- p95 asked for later (p95=later, then p95=only)


def test_p95_deferred_equals_p95_now(planted):
    """A page asks `p95=later` then `p95=only`; the single-graph API computes it at once (`p95=now`). docs/graphs.md
    describes one 95th percentile per range, so both must give the same number."""
    problems = []
    for device in ("78", "81", "75"):
        one = Plot("planted", TRAFFIC, (Member(device, "p/1", POLL),))
        for label, start, end in ranges():
            span = Window(
                datetime.fromtimestamp(start, timezone.utc), datetime.fromtimestamp(end, timezone.utc), 300, NOW
            )
            now = ts_series.read([one], span, "now", False, True)["planted"]
            only = ts_series.read([one], span, "only", False, True)["planted"]
            for a, b in zip(now["series"], only["series"], strict=True):
                want = expected(device, a["field"], start, end, now["tier"])["p95"]
                if not close(a["stats"]["p95"], b["stats"]["p95"]) or not close(b["stats"]["p95"], want):
                    problems.append(
                        f"dev {device} {label} {a['field']} tier={now['tier']}: p95 now={a['stats']['p95']!r}"
                        f" only={b['stats']['p95']!r} expected={want!r}"
                    )
    assert not problems, "\n".join(problems)
