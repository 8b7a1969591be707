"""Warm answers after a history of cached reads equal cold answers at the same moment.

For every moment T of a simulated timeline, the page endpoint (monitor.graphs.api.batch: points=300, p95=later then
p95=only, shape=columns) and the single-graph read (api._read: p95=now, detail, points) are read with every cache
left as the earlier moments' reads (and, in the "warming" runs, monitor.graphs.warming.warm_viewed run 40 s before
every other moment) left it; afterwards each moment is read again cold (Redis flushed before each request) and
every legend figure (current, average, minimum, maximum, total, p95), every chart point (t, mean, max, min) and the
point count are compared (rel 1e-9). Presets 1d, 1w (27 moments over 112 min, steps 1-7 min, skips of 11 and 13 min)
and 1m, 1y (17 moments over 7 h, steps within an hour and jumps of 1, 2 and more hours). Devices: flat with single
peaks (entering as a 5-minute window and as an hour between two reads, leaving the 1d/1w/1m ranges between two
reads, in the raw tail), uneven values with gaps (one in the raw tail, one leaving the 1d range), and a 10-port
device (more than edges.FEW graphs: its raw tail is kept by poll and added to).

The `seen` fixture checks that the caches were at work: carry by 1 and by 2 windows on every preset, ranges moved on
by more than 2 windows read whole, kept device tails added to per poll, sliding p95 states used (1m, 1y), cached
p95s answered to p95=later (warming runs; by design a cached p95 is answered at once).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from urllib.parse import urlencode

import pytest
from django.http import QueryDict

from collectors.samples import Sample
from monitor.timeseries.history import HistoryWriter
from tests.tsbuckets import own_buckets

DAY, HOUR, POLL, PHASE = 86400, 3600, 60, 7
_REAL = datetime.now(timezone.utc).timestamp()
# 37 min 23 s past an hour, one to two hours ago: off every 5-minute and hour boundary.
NOW_S = (int(_REAL) // HOUR - 1) * HOUR + 37 * 60 + 23
RAW_FROM = NOW_S - 13 * DAY  # the raw bucket refuses samples past its 14 days; no range starts before
FLAT_IN, FLAT_OUT = 10e6, 4e6

# Moments, in minutes before NOW (read oldest first): steps of 1 to 7 minutes, with skips of 11 and 13 (a range
# moved on by more than two 5-minute windows) and one moment at :04 s (a poll at :07 lies within now + 5 s).
SCHEDULE_5M = [
    112,
    109,
    108,
    101,
    99,
    94,
    88,
    87,
    83,
    72,
    69,
    67,
    60,
    55,
    44.3167,
    42,
    36,
    32,
    31,
    24,
    19,
    17,
    10,
    7,
    6,
    1,
    0,
]
# Hourly tier: steps within an hour, then 1, 2 and more than 2 hours on.
SCHEDULE_1H = [420, 417, 410, 404, 399, 353, 349, 290, 284, 281, 170, 164, 161, 157, 6, 3, 0]
PRESETS = {"1d": SCHEDULE_5M, "1w": SCHEDULE_5M, "1m": SCHEDULE_1H, "1y": SCHEDULE_1H}
SPANS = {"1d": DAY, "1w": 7 * DAY, "1m": 31 * DAY, "1y": 366 * DAY}


def moments(preset: str) -> list[float]:
    return [NOW_S - round(m * 60) for m in PRESETS[preset]]


def grid_at_or_after(t: float) -> int:
    return int(math.ceil((t - PHASE) / POLL) * POLL + PHASE)


def last_poll(t: float) -> int:
    return int(math.floor((t - PHASE) / POLL) * POLL + PHASE)


def _between_moments(schedule: list[float], index: int) -> tuple[float, float]:
    a, b = (NOW_S - round(m * 60) for m in schedule[index : index + 2])
    return a, b


def _entering_window(schedule, index: int, step: int, grace: int) -> float:
    """A time inside the window of `step` that becomes a whole (visible) window between moments index, index+1."""
    a, b = _between_moments(schedule, index)
    end = math.floor((b - grace) / step) * step  # newest visible window end at b
    assert end > math.floor((a - grace) / step) * step, "no window enters between these moments"
    return end - step + 123


def _leaving(schedule, index: int, span: int) -> float:
    """A time that is inside the range at moment index and outside at index+1."""
    a, b = _between_moments(schedule, index)
    return grid_at_or_after((a - span + b - span) / 2)


PEAKS_503 = {
    # value: time
    901e6: _entering_window(SCHEDULE_5M, 2, 300, 180),  # a 5-minute window entering between two reads
    902e6: _entering_window(SCHEDULE_5M, 9, 300, 180),  # ... between two reads 11 minutes apart
    903e6: _leaving(SCHEDULE_5M, 4, DAY),  # leaves the 1d range between two reads
    904e6: _leaving(SCHEDULE_5M, 12, 7 * DAY),  # leaves the 1w range
    905e6: _entering_window(SCHEDULE_1H, 4, 3600, 480),  # an hour entering the hourly tier between two reads
    906e6: _leaving(SCHEDULE_1H, 9, 31 * DAY),  # leaves the 1m range (hourly, past raw retention)
    907e6: NOW_S - 40 * 60,  # in the raw tail, then a 5-minute window, of the later moments only
    908e6: NOW_S - 3 * HOUR - 20 * 60,  # an hour entering the 1m/1y charts' whole windows
}


def _flat(days: int, peaks: dict[float, float], base_in=FLAT_IN, base_out=FLAT_OUT, gaps=()) -> list[tuple]:
    first = grid_at_or_after(NOW_S - days * DAY)
    at = {grid_at_or_after(t): v for v, t in peaks.items()}
    out, t = [], first
    while t < NOW_S:
        if not any(a <= t < b for a, b in gaps):
            v = at.get(t)
            out.append((t, v, v / 4) if v is not None else (t, base_in, base_out))
        t += POLL
    return out


def _uneven(days: int, gaps) -> list[tuple]:
    first = grid_at_or_after(NOW_S - days * DAY)
    out, t = [], first
    while t < NOW_S:
        if not any(a <= t < b for a, b in gaps):
            i = (t - first) // POLL
            out.append((t, 1e6 * (1 + (i * 7919) % 997), 1e5 * (1 + (i * 104729) % 499)))
        t += POLL
    return out


GAPS_502 = [
    (NOW_S - 55 * 60, NOW_S - 32 * 60),  # a gap in the raw tail of the last moments
    (NOW_S - DAY - 80 * 60, NOW_S - DAY - 50 * 60),  # a gap leaving the 1d range
    (NOW_S - 4 * HOUR - 10 * 60, NOW_S - 3 * HOUR - 50 * 60),  # a gap in the hourly moments
]

# device -> {port: rows}
DEVICES: dict[str, dict[str, list[tuple]]] = {
    "501": {"p/1": _flat(33, {950e6: NOW_S - 2 * DAY, 951e6: NOW_S - 13 * 60})},
    "502": {"p/1": _uneven(33, GAPS_502)},
    "503": {"p/1": _flat(33, PEAKS_503)},
    # more graphs than edges.FEW in one request: its tail is kept by poll (edges._tail) and added to per poll
    "510": {
        f"p/{j}": _flat(
            8,
            {800e6 + j * 1e6: NOW_S - (5 + 9 * j) * 60, 700e6 + j * 1e6: NOW_S - 7 * DAY - (40 + 7 * j) * 60},
            base_in=5e6 * j,
            base_out=1e6 * j,
            gaps=[(NOW_S - (30 + j) * 60, NOW_S - (20 + j) * 60)] if j == 3 else (),
        )
        for j in range(1, 11)
    },
}


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    from monitor.core import services

    services.redis_client().flushdb()
    with own_buckets("warm_cold", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        for device, ports in DEVICES.items():
            rows = {port: {t: (vin, vout) for t, vin, vout in r} for port, r in ports.items()}
            times = sorted({t for r in rows.values() for t in r})
            for t in times:
                samples = [
                    Sample("interface", {"device": device, "port": port}, {"in_bps": r[t][0], "out_bps": r[t][1]}, t)
                    for port, r in rows.items()
                    if t in r
                ]
                history.poll(device, t, samples, POLL, raw=t >= RAW_FROM)
        history.close(NOW_S)
        assert history.failed == 0
        yield


# ---------------------------------------------------------------- reading


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def make_rows():
    from monitor.models import Device, Graph

    graphs = []
    for device, ports in DEVICES.items():
        Device.objects.create(
            pk=int(device), name=f"warm-cold-{device}", host="127.0.0.1", community="x", poll_interval_s=POLL
        )
        for port in ports:
            graphs.append(Graph.objects.create(device_id=int(device), template="traffic", instance=port, title=port))
    return graphs


def set_polled(t: float) -> None:
    """Every device's newest poll as at moment t (the version that keeps raw tails, and what warming checks)."""
    from monitor.models import Device

    polled = at(last_poll(t) + 2.0)  # a poll started at :07 and finished 2 s later
    Device.objects.filter(pk__in=[int(d) for d in DEVICES]).update(
        last_poll_at=polled, last_success_at=polled, last_poll_duration_s=2.0
    )


def page_query(graphs, preset: str, p95: str) -> QueryDict:
    ask = [("graph", str(g.pk)) for g in graphs] + [
        ("range", preset),
        ("points", "300"),
        ("p95", p95),
        ("shape", "columns"),
    ]
    return QueryDict(urlencode(ask))


def page(graphs, preset: str, p95: str, t: float) -> dict:
    from monitor.graphs.access import Access
    from monitor.graphs.api import batch

    return batch(Access.server(), page_query(graphs, preset, p95), at(t))["graphs"]


def single(graphs, preset: str, t: float) -> dict:
    """The single-graph API's read (/api/graphs/<id>/series: p95=now, detail, points), one graph a request."""
    from monitor.graphs import api
    from monitor.graphs.timerange import PRESETS as RANGE
    from monitor.timeseries.plan import Window

    out = {}
    for g in graphs:
        g.device.refresh_from_db()
        plot = api._plot(f"graph:{g.pk}", api.TEMPLATES["traffic"], [g], 1.0)
        span = Window(at(t) - RANGE[preset], at(t), 300, at(t))
        out[str(g.pk)] = api._read([plot], span, "now", graphs=[g])[plot.key]
    return out


def cold() -> None:
    from django.core.cache import cache

    from monitor.core import services

    cache.clear()
    services.redis_client().flushdb()


# ---------------------------------------------------------------- comparing


def _num_same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


def diff(label: str, warm: dict, cold_: dict) -> list[str]:
    problems = []
    if warm.keys() != cold_.keys():
        return [f"{label}: graphs {sorted(warm)} vs {sorted(cold_)}"]
    for gid in warm:
        w, c = warm[gid], cold_[gid]
        meta_w = {k: v for k, v in w.items() if k != "series"}
        meta_c = {k: v for k, v in c.items() if k != "series"}
        if meta_w != meta_c:
            problems.append(f"{label} graph {gid}: meta warm={meta_w} cold={meta_c}")
        for sw, sc in zip(w["series"], c["series"], strict=True):
            where = f"{label} graph {gid} {sw['field']}"
            for name in sorted(set(sw["stats"]) | set(sc["stats"])):
                a, b = sw["stats"].get(name), sc["stats"].get(name)
                if not _num_same(a, b):
                    problems.append(f"{where}: {name} warm={a!r} cold={b!r}")
            if "cols" in sw or "cols" in sc:
                cw, cc = sw.get("cols", {}), sc.get("cols", {})
                if cw.keys() != cc.keys():
                    problems.append(f"{where}: columns {sorted(cw)} vs {sorted(cc)}")
                if len(cw.get("t", ())) != len(cc.get("t", ())):
                    problems.append(f"{where}: point count warm={len(cw['t'])} cold={len(cc['t'])}")
                for name in cw.keys() & cc.keys():
                    for i, (a, b) in enumerate(zip(cw[name], cc[name], strict=False)):
                        if not _num_same(a, b):
                            problems.append(f"{where}: point {i} {name} warm={a!r} cold={b!r} (t={cw['t'][i]})")
                            break
            if "points" in sw or "points" in sc:
                pw, pc = sw.get("points", []), sc.get("points", [])
                if len(pw) != len(pc):
                    problems.append(f"{where}: point count warm={len(pw)} cold={len(pc)}")
                for i, (a, b) in enumerate(zip(pw, pc, strict=False)):
                    if not all(_num_same(x, y) for x, y in zip(a, b, strict=True)):
                        problems.append(f"{where}: point {i} warm={a!r} cold={b!r}")
                        break
    return problems


# ---------------------------------------------------------------- instrumentation (what the caches did)


@pytest.fixture
def seen(monkeypatch):
    from monitor.timeseries import carry, edges, sliding

    found = {"carried_back": [], "slide_usable": 0, "slide_full": 0, "tail_kept": 0, "tail_added": 0}
    moved, slide, tail = carry._moved, sliding.slide, edges._tail

    def _moved(pairs, back, ask):
        found["carried_back"].append(back)
        return moved(pairs, back, ask)

    def _slide(plots, start, end, bucket):
        got, full = slide(plots, start, end, bucket)
        found["slide_usable"] += len(got)
        found["slide_full"] += len(full)
        return got, full

    def _tail(device, end, step_s, before, interval, poll, until, few):
        from monitor.timeseries import cache, tiers

        keys = [
            cache.key(edges.KEPT, tiers.tiers()[0].bucket, "tail", device, e, interval)
            for e in (end.timestamp(), end.timestamp() - step_s)
        ]
        had = [k for k, v in cache.get_many(keys).items() if isinstance(v, edges.Kept)]
        found["tail_added" if had else "tail_kept"] += 1
        return tail(device, end, step_s, before, interval, poll, until, few)

    monkeypatch.setattr(carry, "_moved", _moved)
    monkeypatch.setattr(sliding, "slide", _slide)
    monkeypatch.setattr(edges, "_tail", _tail)
    return found


# ---------------------------------------------------------------- the comparisons


def run_timeline(graphs, preset: str, warming: bool) -> tuple[dict, list[float]]:
    from monitor.graphs import viewed
    from monitor.graphs.warming import warm_viewed

    cold()
    answers = {}
    times = moments(preset)
    for index, t in enumerate(times):
        if warming and index % 2 == 1:  # a warming run a little before the moment (as at its own moment)
            set_polled(t - 40)
            warm_viewed(now=t - 40)
        set_polled(t)
        later = page(graphs, preset, "later", t)
        viewed.remember(page_query(graphs, preset, "later"))
        only = page(graphs, preset, "only", t)
        viewed.remember(page_query(graphs, preset, "only"))
        now = single(graphs[:4] + graphs[-2:], preset, t)
        answers[t] = (later, only, now)
    return answers, times


def _resolve_pending(label: str, warm: dict, cold_: dict, cold_only: dict) -> tuple[dict, dict, list[str]]:
    """p95=later may answer a p95 found in the cache where a cold read leaves it pending (by design): such a
    p95 must equal the cold p95=only answer; then both are compared without it."""
    import copy

    warm, cold_, problems = copy.deepcopy(warm), copy.deepcopy(cold_), []
    for gid in warm.keys() & cold_.keys():
        w, c = warm[gid], cold_[gid]
        if w.get("p95_pending") == c.get("p95_pending"):
            continue
        PENDING_DIFFERS.append(f"{label} graph {gid}: warm pending={w.get('p95_pending')} cold={c.get('p95_pending')}")
        for sw, sc, so in zip(w["series"], c["series"], cold_only[gid]["series"], strict=True):
            value = sw["stats"].get("p95") if not w.get("p95_pending") else sc["stats"].get("p95")
            if not _num_same(value, so["stats"]["p95"]):
                problems.append(
                    f"{label} p95=later graph {gid} {sw['field']}: p95 answered early={value!r}"
                    f" cold p95=only={so['stats']['p95']!r}"
                )
            sw["stats"]["p95"] = sc["stats"]["p95"] = None
        w.pop("p95_pending", None)
        c.pop("p95_pending", None)
    return warm, cold_, problems


PENDING_DIFFERS: list[str] = []


def cold_answers(graphs, preset: str, t: float) -> tuple[dict, dict, dict]:
    set_polled(t)
    cold()
    later = page(graphs, preset, "later", t)
    cold()
    only = page(graphs, preset, "only", t)
    cold()
    now = single(graphs[:4] + graphs[-2:], preset, t)
    return later, only, now


@pytest.mark.django_db
@pytest.mark.parametrize("warming", [False, True], ids=["viewer", "warming"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_warm_equals_cold(planted, seen, preset, warming):
    graphs = make_rows()
    warm, times = run_timeline(graphs, preset, warming)
    problems = []
    for t in times:
        want = cold_answers(graphs, preset, t)
        label = f"{preset} T=NOW-{(NOW_S - t) / 60:.2f}min"
        for kind, w, c in zip(("later", "only", "now"), warm[t], want, strict=True):
            if kind == "later":
                w, c, extra = _resolve_pending(label, w, c, want[1])
                problems += extra
            problems += diff(f"{label} p95={kind}", w, c)
        # the page's p95 (later then only) equals the single-graph read's (now), cold
        for gid, data in want[2].items():
            for s_now, s_only in zip(data["series"], want[1][gid]["series"], strict=True):
                if not _num_same(s_now["stats"]["p95"], s_only["stats"]["p95"]):
                    problems.append(
                        f"{label} graph {gid} {s_now['field']}: cold p95 now={s_now['stats']['p95']!r}"
                        f" only={s_only['stats']['p95']!r}"
                    )
    print(f"\n{preset} warming={warming}: cache activity {dict(seen, carried_back=sorted(seen['carried_back']))}")
    print(
        f"{preset} warming={warming}: {len(times)} moments, {len(problems)} problems,"
        f" {len(PENDING_DIFFERS)} p95=later answers given from the cache where cold was pending (checked)"
    )
    PENDING_DIFFERS.clear()
    for p in problems[:200]:
        print("  ", p)
    assert not problems, "\n".join(problems[:80])
    assert {1, 2} <= set(seen["carried_back"]), "the warm reads did not carry windows over: nothing was compared"
    if preset in ("1m", "1y"):
        assert seen["slide_usable"] > 0, "no 95th percentile was slid on"


def _truth(device: str, port: str, start: float, end: float) -> dict:
    rows = [(t, vin) for t, vin, _ in DEVICES[device][port] if start <= t < end]
    return {"current": rows[-1][1] if rows else None, "maximum": max((v for _, v in rows), default=None)}


@pytest.mark.django_db
def test_reads_as_at_a_moment_see_nothing_after_it(planted):
    """Warm (timeline) and cold answers at moments before a peak do not show it; `current` is the newest sample
        before the moment where raw samples follow the newest window (during a gap the newest window's mean stands for
    it, warm and cold alike, as documented); one moment lies 3 s before a poll: the tail is read up to now +
    edges.LIVE_S."""
    graphs = make_rows()
    by_device = {(str(g.device_id), g.instance): str(g.pk) for g in graphs}
    problems, after_now = [], []
    for preset in ("1d", "1w"):
        warm, times = run_timeline(graphs, preset, warming=False)
        for t in times:
            for label, answer in (("warm", warm[t][0]), ("cold", cold_answers(graphs, preset, t)[0])):
                for (device, port), gid in by_device.items():
                    got = answer[gid]["series"][0]["stats"]
                    want = _truth(device, port, t - SPANS[preset], t)
                    plus = _truth(device, port, t - SPANS[preset], t + 5)
                    if not _num_same(got["maximum"], want["maximum"]):
                        problems.append(
                            f"{preset} {label} T=NOW-{(NOW_S - t) / 60:.2f}min dev {device} {port}: "
                            f"maximum {got['maximum']!r} expected {want['maximum']!r}"
                        )
                    recent = _truth(device, port, t - 600, t)["current"] is not None  # a raw tail to be current
                    if recent and not _num_same(got["current"], want["current"]):
                        where = after_now if _num_same(got["current"], plus["current"]) else problems
                        where.append(
                            f"{preset} {label} T=NOW-{(NOW_S - t) / 60:.2f}min dev {device} {port}: "
                            f"current {got['current']!r} expected {want['current']!r}"
                        )
    print(f"\nsamples after now counted ({len(after_now)}):", *after_now[:20], sep="\n  ")
    assert not problems, "\n".join(problems[:60])
