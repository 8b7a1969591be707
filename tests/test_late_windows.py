"""Rollup windows of slow-polled devices, written late: every chart point and legend figure, at every moment.

A device polled every 300 s writes a closed 5-minute window at its first poll after the window's end, up to 300 s
later (one polled every 900 s: up to 900 s later, and an hour up to 150 + 900 s after its end). History is planted
through the poll path's own window accumulator and writer (HistoryWriter) poll by poll, so at each moment of the
timeline InfluxDB holds exactly what the polls begun by then wrote; the device rows say when each last polled.

Devices (the same samples twice: one set read by a viewer only, one set also read by the warming as in production,
at a minute after each window's end and at the moment pages move on): polled every 300 s at phase 200 s, the same
since 13 minutes before the timeline (a new device), and every 900 s at phase 500 s. At moments right after a
window's end, after the old 180-s grace, after the poll that writes the window, and later, each preset (1d: 5-minute
windows; 1m: hourly windows past raw retention) is read as a page does (api.batch: p95=later, then p95=only) and as
the single-graph API does (p95=now), warm (caches as the earlier moments left them) and cold (no cache), and every
legend figure and each chart interval's maximum is compared with what the planted samples say, computed here:
every sample of the range is counted once, whichever tier holds it.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.test import override_settings

from collectors.samples import Sample
from monitor.timeseries.history import HistoryWriter
from tests.tsbuckets import own_buckets

DAY, HOUR = 86400, 3600
# An hour's end two to three hours ago: its hour and the 5-minute windows around it are the timeline.
H = (int(time.time()) // HOUR - 2) * HOUR
RAW_FROM = H - 13 * DAY  # raw samples from here on (the raw bucket refuses those past its 14 days)
# device: (poll interval, phase, first poll); two sets of the same samples: read by viewers (6xx), warmed too (7xx)
KINDS = {"1": (300, 200, H - 2 * DAY), "2": (300, 200, H - 900 - 100), "3": (900, 500, H - 33 * DAY)}
VIEWER = {f"60{k}": kind for k, kind in KINDS.items()}
WARMED = {f"70{k}": kind for k, kind in KINDS.items()}
PRESETS = {"1d": DAY, "1m": 31 * DAY}
# The windows of the timeline (each 5-minute boundary from 10 minutes before H to 25 minutes after), and the moments
# after each one's end: right after, before and after the old grace (180 s), after the poll at phase 200 s.
ENDS = range(H - 600, H + 1501, 300)
VIEWS = (5, 100, 185, 230)
WARMS = (61, 181)  # the warming's runs (settings.CELERY_BEAT_SCHEDULE): ahead, and at the moment pages move on


def polls(kind: tuple) -> list[int]:
    interval, phase, first = kind
    t = math.ceil((first - phase) / interval) * interval + phase
    return list(range(t, H + 3 * HOUR, interval))


def value(t: float) -> float:
    """Uneven rates, a different one at every poll."""
    return 1e6 * (1 + (int(t) // 100 * 7919) % 997)


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    """A writer that has fed every device's polls before the timeline; `advance(t)` feeds those begun by t."""
    from monitor.core import services

    services.redis_client().flushdb()
    with own_buckets("late_windows", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        queue = sorted((t, device, kind) for device, kind in {**VIEWER, **WARMED}.items() for t in polls(kind))
        fed = [0]

        def advance(until: float) -> None:
            while fed[0] < len(queue) and queue[fed[0]][0] <= until:
                t, device, kind = queue[fed[0]]
                sample = Sample("interface", {"device": device, "port": "p/1"}, {"in_bps": value(t)}, t)
                history.poll(device, t, [sample], kind[0], raw=t >= RAW_FROM)
                fed[0] += 1
            history.flush()
            assert history.failed == 0

        advance(ENDS[0] - 1)
        yield advance


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def make_rows(devices: dict) -> list:
    from monitor.models import Device, Graph

    graphs = []
    for device, (interval, _, _) in devices.items():
        Device.objects.create(
            pk=int(device), name=f"late-{device}", host="127.0.0.1", community="x", poll_interval_s=interval
        )
        graphs.append(Graph.objects.create(device_id=int(device), template="traffic", instance="p/1", title="p/1"))
    return graphs


def set_polled(t: float) -> None:
    """Every device's row as its newest poll begun by t left it (it took a second)."""
    from monitor.models import Device

    for device, kind in {**VIEWER, **WARMED}.items():
        newest = max((p for p in polls(kind) if p <= t), default=None)
        if newest is not None:
            done = at(newest + 1.0)
            Device.objects.filter(pk=int(device)).update(
                last_poll_at=done, last_success_at=done, last_poll_duration_s=1.0
            )


def page_query(graphs, preset: str, p95: str) -> QueryDict:
    ask = [("graph", str(g.pk)) for g in graphs] + [("range", preset), ("points", "300"), ("p95", p95)]
    return QueryDict(urlencode([*ask, ("shape", "columns")]))


def reads(graphs, preset: str, t: float, remember: bool) -> dict[str, dict]:
    """{kind of read: {graph id: answer}}: a page's two requests, and the single-graph API's read."""
    from monitor.graphs import api, viewed
    from monitor.graphs.access import Access
    from monitor.graphs.timerange import PRESETS as RANGE
    from monitor.timeseries.plan import Window

    out = {}
    for p95 in ("later", "only"):
        query = page_query(graphs, preset, p95)
        out[p95] = api.batch(Access.server(), query, at(t))["graphs"]
        if remember:
            viewed.remember(query)
    out["now"] = {}
    for g in graphs:
        g.device.refresh_from_db()
        plot = api._plot(f"graph:{g.pk}", api.TEMPLATES["traffic"], [g], 1.0)
        span = Window(at(t) - RANGE[preset], at(t), 300, at(t))
        out["now"][str(g.pk)] = api._read([plot], span, "now", graphs=[g])[plot.key]
    return out


def cold(graphs, preset: str, t: float) -> dict[str, dict]:
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}):
        return reads(graphs, preset, t, remember=False)


# ---------------------------------------------------------------- what the samples say (docs/graphs.md)


def expected(kind: tuple, preset: str, t: float) -> dict:
    """The legend and each chart interval's maximum: every sample from the range's start (1d: raw retention holds
    it) or its first whole hour (1m: hourly windows past raw retention) to the moment; totals by each sample's own
    interval (the time since the one before, as polled every interval)."""
    interval = kind[0]
    start = t - PRESETS[preset]
    first = start if preset == "1d" else math.ceil(start / HOUR) * HOUR
    rows, total, before = [], 0.0, None
    for p in polls(kind):
        if first <= p < t:
            rows.append((p, value(p)))
            total += value(p) * (p - before if before is not None and p - before <= 2 * interval else interval)
        before = p
    values = [v for _, v in rows]
    return {
        "stats": {
            "current": values[-1],
            "average": sum(values) / len(values),
            "minimum": min(values),
            "maximum": max(values),
            "total": total / 8,
            "p95": sorted(values)[math.ceil(0.95 * len(values)) - 1] if preset == "1d" else None,
        },
        "first": first,
        "rows": rows,
    }


def by_interval(times_values, first: float, every_ms: int) -> dict[int, float]:
    """The maximum per interval of a chart's grid (the first from the range's first point)."""
    out: dict[int, float] = {}
    first_ms = int(first * 1000)
    for t_ms, v in times_values:
        slot = max(first_ms, t_ms - t_ms % every_ms)
        out[slot] = max(v, out.get(slot, v))
    return out


def check(label: str, answers: dict, devices: dict, graphs, preset: str, t: float) -> list[str]:
    problems = []
    for g in graphs:
        kind = devices[str(g.device_id)]
        want = expected(kind, preset, t)
        for read, found in answers.items():
            data = found[str(g.pk)]
            where = f"{label} {read} {preset} T=H{t - H:+.0f}s dev {g.device_id} (every {kind[0]} s)"
            item = next(s for s in data["series"] if s["field"] == "in_bps")
            for name, number in want["stats"].items():
                asked = read == "now" or (name == "p95") == (read == "only")  # later: all but the 95th; only: it
                if not asked or (name == "p95" and number is None):
                    continue
                if not _same(item["stats"].get(name), number):
                    problems.append(f"{where}: {name} {item['stats'].get(name)!r}, the samples say {number!r}")
            if read == "only":
                continue
            every_ms = data["resolution_s"] * 1000
            if "cols" in item:
                drawn = list(zip(item["cols"]["t"], item["cols"]["max"], strict=True))
            else:
                drawn = [(p[0], p[3]) for p in item["points"]]
            got = by_interval([(a, b) for a, b in drawn if b is not None], want["first"], every_ms)
            wanted = by_interval([(int(p * 1000), v) for p, v in want["rows"]], want["first"], every_ms)
            if got != wanted:
                missing = sorted((s - H * 1000) // 1000 for s in wanted.keys() - got.keys())
                wrong = sorted((s - H * 1000) // 1000 for s in wanted.keys() & got.keys() if got[s] != wanted[s])
                problems.append(f"{where}: chart intervals missing at H{missing}, wrong at H{wrong}")
    return problems


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9)


@pytest.mark.django_db
def test_every_window_of_a_slow_device_is_drawn_and_counted_at_every_moment(planted):
    from monitor.graphs.warming import warm_viewed

    viewer, warmed = make_rows(VIEWER), make_rows(WARMED)
    problems, warming = [], {"requests": 0, "next": 0, "waiting": 0}
    for end in ENDS:
        for after in sorted(VIEWS + WARMS):
            t = end + after
            planted(t)
            set_polled(t)
            if after in WARMS:
                figures = warm_viewed(now=t)  # as beat runs it: what the viewers after it find cached
                warming = {name: count + figures.get(name, 0) for name, count in warming.items()}
                continue
            for preset in PRESETS:
                problems += check("viewer", reads(viewer, preset, t, False), VIEWER, viewer, preset, t)
                problems += check("warmed", reads(warmed, preset, t, True), WARMED, warmed, preset, t)
                problems += check("cold", cold(viewer, preset, t), VIEWER, viewer, preset, t)
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])
    # the warming read the viewed pages ahead, every device ready (their windows pages see written), and again
    assert warming["requests"] >= len(ENDS) and warming["next"] >= len(ENDS) and warming["waiting"] == 0, warming
