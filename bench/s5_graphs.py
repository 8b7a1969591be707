"""Scenario 5: graphs over a year. The previous scenario's year of 48 ports rolled up by `rollup_backfill`'s work
and read through the API (one port; a page of 48 graphs in one request); a 52-port switch with every graph of a
real one and a year of history, opened in Chromium at 1d and 1y; the previous design's own scenario 5 beside."""

from __future__ import annotations

import secrets
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench import s5_browser, s5_year, stack
from bench.common import InfluxdRunning, cpu_of, page_batches, percentile

FAILURES: list[str] = []
SETTLE_S = 90


def timed_get(api, url: str, params) -> float:
    """Seconds one request took; a refused request counts as +inf and is noted."""
    started = time.perf_counter()
    response = api.get(url, params)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        FAILURES.append(f"{url}: HTTP {response.status_code} after {elapsed:.1f} s")
        return float("inf")
    return elapsed


def run(
    influx,
    work: Path,
    env: dict[str, str],
    repeats: int = 5,
    previous: str = "",
    influxd: InfluxdRunning | None = None,
) -> dict:
    """Every figure of the scenario (and the previous revision's, when `previous` names one)."""
    from django.conf import settings

    from monitor.models import Device, Graph

    settings.MONITOR_RAW_RETENTION_DAYS = 14  # as deployed: a day or a week from raw, a month or a year from rollups
    stack.clear_devices()
    result: dict = {"repeats": repeats}
    device = Device.objects.create(name="bench-year", host="127.0.0.1", community="x", poll_interval_s=60)
    graphs = [
        Graph.objects.create(device=device, template="traffic", instance=f"1/g{p}", title=f"1/g{p}", position=p)
        for p in range(1, s5_year.PORTS + 1)
    ]
    result |= backfilled_year(influx, work, str(device.pk))
    result |= api_figures(stack.client(), graphs, repeats)
    result |= switch_page(influx, work, env, influxd)
    result["failures"], result["failure_count"] = FAILURES[:5], len(FAILURES)
    if previous:
        from bench import previous as earlier

        result["previous"] = earlier.scenario_5(previous, work)
    return result


def backfilled_year(influx, work: Path, device_key: str) -> dict:
    """Load the year's raw samples, then time the backfill (`manage.py rollup_backfill`'s work) over it."""
    from django.conf import settings

    from monitor.core import services
    from monitor.timeseries import backfill, client

    s5_year.buckets("bench_year")
    settings.INFLUXDB_BUCKET = "bench_year"
    services.reset_clients()
    started = time.perf_counter()
    values = s5_year.raw_year(influx, work, "bench_year", device_key)
    loaded = time.perf_counter() - started
    end = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
    started = time.perf_counter()
    with client.connect(600_000) as influx_client:
        report = backfill.backfill(
            influx_client, services.influx_writer(), "bench_year", {device_key: 60}, end - timedelta(days=366), end
        )
    return {
        "field_values_loaded": values,
        "load_s": loaded,
        "backfill_s": time.perf_counter() - started,
        "backfill_values": report.values,
        "backfill_points_5m": report.lines_5m,
        "backfill_points_1h": report.lines_1h,
        "backfill_failed_writes": report.failed_writes,
    }


def api_figures(api, graphs: list, repeats: int) -> dict:
    """One port over a year, a month and a day; the 48 graphs of the page at a year in one request. Cold: the
    first request after the cache is emptied; warm: p50/p95 of `repeats` after it."""
    from django.core.cache import cache

    result: dict = {}
    one = f"/api/graphs/{graphs[0].pk}/series"
    for label, start in (("1y", "now-365d"), ("1m", "now-30d"), ("1d", "now-1d")):
        params = {"start": start, "end": "now", "points": "800"}
        cache.clear()
        result[f"port_{label}_cold_s"] = timed_get(api, one, params)
        times = [timed_get(api, one, params) for _ in range(repeats)]
        result[f"port_{label}_p50_s"], result[f"port_{label}_p95_s"] = percentile(times, 50), percentile(times, 95)
    ids = [("graph", str(g.pk)) for g in graphs]
    for mode in ("later", "only"):
        params = [*ids, ("range", "1y"), ("points", "280"), ("p95", mode)]
        if mode == "later":
            cache.clear()
        result[f"page_1y_{mode}_cold_s"] = timed_get(api, "/api/series", params)
        times = [timed_get(api, "/api/series", params) for _ in range(repeats)]
        result[f"page_1y_{mode}_p50_s"] = percentile(times, 50)
    return result | slid_percentiles(graphs)


def slid_percentiles(graphs: list) -> dict:
    """The 48 graphs' year percentiles read in full, then 5 minutes later (the window slid: what entered and
    left it is read, monitor/timeseries/sliding.py), then 5 minutes later again."""
    from django.core.cache import cache

    from monitor.timeseries import series
    from monitor.timeseries.flux import Member, Plot
    from monitor.timeseries.plan import Window
    from monitor.timeseries.templates import TEMPLATES

    plots = [Plot(f"graph:{g.pk}", TEMPLATES["traffic"], (Member(str(g.device_id), g.instance, 60),)) for g in graphs]
    now = datetime.now(timezone.utc) - timedelta(minutes=15)  # 5-minute windows written up to now, so both slides
    cache.clear()
    found = {}
    for label, shift in (("full", 0), ("slid", 300), ("slid_again", 600)):
        at = now + timedelta(seconds=shift)
        started = time.perf_counter()
        series.read(plots, Window.of(at - timedelta(days=365), at, 280, at), "only")
        found[f"page_1y_p95_{label}_s"] = time.perf_counter() - started
    return found


def _page_asks(graphs: list, preset: str) -> list:
    """The page's data requests at a preset range, as static/js/graphs.js sends them (`page_batches`: the six
    graphs in view, then a device and template a request), percentiles later."""
    from django.http import QueryDict

    out = []
    for part in page_batches([(g.pk, f"{g.device_id}:{g.template}") for g in graphs]):
        ask = QueryDict(mutable=True)
        ask.setlist("graph", [str(pk) for pk in part])
        ask.update({"range": preset, "points": "300", "p95": "later", "shape": "columns"})
        out.append(ask)
    return out


def _view(page: list, at: datetime) -> None:
    """The page's data requests answered in process (`GET /api/series`'s own function) as at `at`."""
    from monitor.graphs.access import Access
    from monitor.graphs.api import batch

    access = Access.server()
    for ask in page:
        batch(access, ask, at)


def _timed(work, influx_pid: int | None) -> dict:
    """Wall time, this process's CPU and InfluxDB's (from /proc) of `work()`."""
    theirs = cpu_of(influx_pid) if influx_pid else 0.0
    wall, mine = time.perf_counter(), time.process_time()
    work()
    return {
        "wall_s": time.perf_counter() - wall,
        "web_cpu_s": time.process_time() - mine,
        "influxdb_cpu_s": (cpu_of(influx_pid) - theirs) if influx_pid else 0.0,
    }


def carried_windows(graphs: list, influx_pid: int | None) -> dict:
    """The page's graphs read in process as the page asks for them (`api.batch`, in the page's requests: `_page_asks`)
    at 1d and 1y, a window after a first view: carried over (monitor/timeseries/carry.py); kept warm
    (monitor/graphs/warming.py: the warming run after the window, then the view); and cold. Wall time, this
    process's CPU and InfluxDB's (from /proc) for each."""
    from django.core.cache import cache

    from monitor.core import services
    from monitor.graphs import viewed
    from monitor.graphs.warming import warm_viewed

    found = {}
    for preset, step in (("1d", 300), ("1y", 3600)):
        page = _page_asks(graphs, preset)
        end = datetime.now(timezone.utc) - timedelta(seconds=3 * step)  # windows written up to a window after it
        later = end + timedelta(seconds=step)
        cache.clear()
        _view(page, end)
        found[f"carried_{preset}"] = _timed(lambda p=page, at=later: _view(p, at), influx_pid)
        cache.clear()
        _view(page, end)
        services.redis_client().delete(viewed.KEY)
        for ask in page:
            viewed.remember(ask)
        found[f"warming_{preset}"] = _timed(lambda at=later: warm_viewed(at.timestamp()), influx_pid)
        found[f"warmed_{preset}"] = _timed(lambda p=page, at=later: _view(p, at), influx_pid)
        cache.clear()
        found[f"carried_{preset}_cold"] = _timed(lambda p=page, at=later: _view(p, at), influx_pid)
    return {"carried": found}


def profilers(graphs: list, influxd: InfluxdRunning) -> dict:
    """What Go's profilers cost InfluxDB on the page's reads: influxd restarted on the same data with them on and
    off in turn (on, off, on, off), each time the page at 1d and 1y cold, then a window later carried over."""
    from django.core.cache import cache

    runs: dict[str, list] = {"on": [], "off": []}
    for state in ("on", "off", "on", "off"):
        pid = influxd.restart(INFLUXD_PPROF_DISABLED="false" if state == "on" else "true")
        time.sleep(10)  # its start-up's own work (the index, the WAL) done
        found = {}
        for preset, step in (("1d", 300), ("1y", 3600)):
            page = _page_asks(graphs, preset)
            end = datetime.now(timezone.utc) - timedelta(seconds=3 * step)
            cache.clear()
            found[f"cold_{preset}"] = _timed(lambda p=page, at=end: _view(p, at), pid)
            found[f"carried_{preset}"] = _timed(lambda p=page, at=end + timedelta(seconds=step): _view(p, at), pid)
        runs[state].append(found)
    influxd.restart(INFLUXD_PPROF_DISABLED="true")
    return {"profilers": runs}


def switch_page(influx, work: Path, env: dict[str, str], influxd: InfluxdRunning | None = None) -> dict:
    """A 52-port switch with 160 graphs and a year of history (written as the pollers write it), its device page
    in Chromium at 1d and 1y, cold and warm, served by gunicorn as deployed: minutes after the year was written,
    then once InfluxDB has compacted it as it does hours after the last write (the state of a real year's
    history, all but its newest hours)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from monitor.core import services
    from monitor.models import Device

    s5_year.buckets("bench_page")
    settings.INFLUXDB_BUCKET = "bench_page"
    services.reset_clients()
    device = Device.objects.create(name="bench-switch", host="127.0.0.1", community="y", poll_interval_s=60)
    graphs = s5_year.switch_graphs(device)
    started = time.perf_counter()
    out = s5_year.writer(influx, "bench_page", work / "spool-s5-page")
    polls = s5_year.switch_year(out, str(device.pk))
    out.close()
    written = time.perf_counter() - started
    # A switch with a year of history is being polled: its newest poll lets pages keep its newest raw samples (the
    # charts' tails, monitor/timeseries/edges.py) until the next one, as they do for every polled device.
    Device.objects.filter(pk=device.pk).update(last_poll_at=datetime.now(timezone.utc))
    # 90 s for the write's own work in InfluxDB to end; its shards stay as written until _compacted below.
    time.sleep(SETTLE_S)
    password = secrets.token_urlsafe(16)
    users = get_user_model()
    users.objects.filter(username="page").delete()
    users.objects.create_superuser("page", "page@localhost", password)
    child = env | {"INFLUXDB_BUCKET": "bench_page", "MONITOR_RAW_RETENTION_DAYS": "14"}
    carried = carried_windows(graphs, influxd.pid if influxd else None)
    if influxd is not None:
        carried |= profilers(graphs, influxd)
    found = _page_in_chromium(child, work, password, device.pk)
    later = {}
    if influxd is not None:  # the same year as it is hours after its last write
        waited = _compacted(influxd)
        later = {"page_compacted": _page_in_chromium(child, work, password, device.pk), "page_compacting_s": waited}
    return (
        carried
        | later
        | {
            "page_graphs": len(graphs),
            "page_history_polls": polls,
            "page_history_write_s": written,
            "page_settle_s": SETTLE_S,
            "page": found,
        }
    )


def _page_in_chromium(env: dict[str, str], work: Path, password: str, device_pk: int) -> dict:
    """The switch's page at 1d and 1y in Chromium, cold then warm, from a web server started for it."""
    from django.core.cache import cache

    server, base = s5_browser.web_server(env, work / "log")
    try:
        cache.clear()
        return s5_browser.page_times(base, "page", password, f"/devices/{device_pk}/", ["1d", "1y"])
    finally:
        server.stop()


def _compacted(influxd: InfluxdRunning, longest_s: float = 600) -> float:
    """InfluxDB restarted to compact its shards fully (`restart_compacting`), then idle for 10 s; the seconds that
    took."""
    started = time.monotonic()
    pid = influxd.restart_compacting(INFLUXD_PPROF_DISABLED="true")
    time.sleep(45)  # both cold durations pass, and the compaction planner (every second) starts
    quiet = 0
    while quiet < 2 and time.monotonic() - started < longest_s:
        before = cpu_of(pid)
        time.sleep(5)
        quiet = quiet + 1 if cpu_of(pid) - before < 0.05 else 0
    return time.monotonic() - started
