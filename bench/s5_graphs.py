"""Scenario 5: the graph API at one year: one port over a year, a month and a day, and a whole device page."""

from __future__ import annotations

import time
from pathlib import Path

from bench import stack
from bench.common import percentile
from collectors.influx import InfluxWriter
from collectors.samples import Sample

YEAR_S = 365 * 86400
PORTS = 48


def load(influx, work: Path, bucket: str, device_key: str, fine_step: int, coarse_step: int) -> int:
    """Port 1/g1 every `fine_step` s for a year; the other 47 ports every `coarse_step` s. Returns field values."""
    writer = InfluxWriter(influx.url, influx.token, influx.org, bucket, work / "spool-s5", timeout_ms=120_000)
    end = int(time.time()) // 60 * 60
    values = 0
    for port, step in [(1, fine_step), *((p, coarse_step) for p in range(2, PORTS + 1))]:
        batch = []
        for at in range(end - YEAR_S, end, step):
            wave = 1 + 0.5 * ((at // 3600) % 24) / 24
            fields = {"in_bps": 1e6 * port * wave, "out_bps": 5e5 * port * wave}
            batch.append(Sample("interface", {"device": device_key, "port": f"1/g{port}"}, fields, float(at)))
            if len(batch) >= 20_000:
                if not writer.write(batch):
                    raise RuntimeError("InfluxDB refused the scenario 5 data")
                values += 2 * len(batch)
                batch = []
        if batch and writer.write(batch):
            values += 2 * len(batch)
    writer.close()
    return values


FAILURES: list[str] = []


def timed_get(api, url: str, params: dict) -> float:
    """Seconds one request took; a refused request counts as +inf and is noted."""
    started = time.perf_counter()
    response = api.get(url, params)
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        FAILURES.append(
            f"{params.get('start', params.get('range'))}: HTTP {response.status_code} after {elapsed:.1f} s"
        )
        return float("inf")
    return elapsed


def run(influx, work: Path, fine_step: int = 60, coarse_step: int = 900, repeats: int = 5) -> dict:
    """Load the year, then time the series API (p50/p95 of `repeats`) and a device page with its 48 graphs."""
    from monitor.models import Device, Graph

    stack.clear_devices()
    device = Device.objects.create(name="bench-year", host="127.0.0.1", community="x", poll_interval_s=60)
    graphs = [
        Graph.objects.create(device=device, template="traffic", instance=f"1/g{p}", title=f"1/g{p}", position=p)
        for p in range(1, PORTS + 1)
    ]
    bucket = own_bucket()
    started = time.perf_counter()
    values = load(influx, work, bucket, str(device.pk), fine_step, coarse_step)
    load_s = time.perf_counter() - started
    api = stack.client()
    result: dict = {
        "field_values_loaded": values,
        "load_s": load_s,
        "fine_step_s": fine_step,
        "coarse_step_s": coarse_step,
        "repeats": repeats,
    }
    result |= measure(api, device, graphs, repeats, "", page=False)  # raw tier only: the worst case (one port)
    result["failures"], result["failure_count"] = FAILURES[:5], len(FAILURES)
    started = time.perf_counter()
    result["rollup_chunks"] = with_rollups()  # as deployed: 5-minute and 1-hour tiers behind the raw one
    result["rollup_s"] = time.perf_counter() - started
    FAILURES.clear()
    result |= measure(api, device, graphs, repeats, "rollup_")
    result["rollup_failures"], result["rollup_failure_count"] = FAILURES[:5], len(FAILURES)
    return result


def own_bucket(name: str = "bench_year") -> str:
    """A bucket of its own for the year (no expiry), so the other scenarios' fleets are not in its queries;
    this process's settings point at it (the series API and the rollups read INFLUXDB_BUCKET)."""
    from django.conf import settings

    from monitor import queries

    api = queries.client().buckets_api()
    for tier in (name, f"{name}_5m", f"{name}_1h"):
        found = api.find_bucket_by_name(tier)
        if found is not None:
            api.delete_bucket(found)
    api.create_bucket(bucket_name=name, org=settings.INFLUXDB_ORG)
    settings.INFLUXDB_BUCKET = name
    return name


def with_rollups() -> int:
    """Roll the year up (manage.py rollup_backfill's work) and let queries pick tiers as deployed (raw 14 days)."""
    from datetime import datetime, timedelta, timezone

    from django.conf import settings

    from monitor import rollups

    settings.MONITOR_RAW_RETENTION_DAYS = 14  # this process only: the raw bucket keeps its data for the bench
    now = datetime.now(timezone.utc)
    with rollups.batch_client() as client:
        rollups.ensure_buckets(client, settings.INFLUXDB_ORG, include_raw=False)
        return rollups.backfill(client, now - timedelta(days=366), now)


def measure(api, device, graphs, repeats: int, prefix: str, page: bool = True) -> dict:
    """p50/p95 of one port over a year, a month and a day, and of a device page with its 48 graphs at 1y."""
    result: dict = {}
    for label in ("1y", "1m", "1d"):
        start = {"1y": "now-365d", "1m": "now-30d", "1d": "now-1d"}[label]
        params = {"start": start, "end": "now", "points": "800"}
        timed_get(api, f"/api/graphs/{graphs[0].pk}/series", params)  # warm-up
        times = [timed_get(api, f"/api/graphs/{graphs[0].pk}/series", params) for _ in range(repeats)]
        result[f"{prefix}port_{label}_p50_s"] = percentile(times, 50)
        result[f"{prefix}port_{label}_p95_s"] = percentile(times, 95)
    if not page:  # 48 year-long raw queries per page would take minutes of the bench for a known answer
        return result
    pages = []
    for _ in range(max(2, repeats // 2)):
        t0 = time.perf_counter()
        timed_get(api, f"/devices/{device.pk}/", {"range": "1y"})
        for graph in graphs:
            timed_get(api, f"/api/graphs/{graph.pk}/series", {"start": "now-365d", "end": "now", "points": "800"})
        pages.append(time.perf_counter() - t0)
    result[f"{prefix}page_1y_p50_s"], result[f"{prefix}page_1y_p95_s"] = percentile(pages, 50), percentile(pages, 95)
    return result
