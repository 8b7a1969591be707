"""What a cold year page would cost InfluxDB from other tiers and shard lengths: scenario 5's switch (a year
written as the pollers write it), its 1-year page's Flux read once as the product reads it, then each of its chains
run alone against the hourly tier as deployed (90-day shards), the same hours in one 366-day shard, and a 1-day
tier made from the hours (7-day and 366-day shards), after InfluxDB has compacted them all. InfluxDB's CPU (from
/proc) of the page's chains per bucket: whether a coarser tier or longer shards would bring a cold year under the
page targets (docs/performance.md, scenario 5).

Run: .venv/bin/python -m bench.year_tiers [work dir]  (about 15 minutes; prints JSON).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from bench.common import InfluxdRunning, cpu_of, start_backends
from bench.stack import bench_environment, configure

DAY_S = 86400
# bucket: (made from, shard length in days, 0 for InfluxDB's default of 7, window in days of the year's chart)
VARIANTS = {
    "year_1h": (None, 90, None),
    "year_1h_366d": ("year_1h", 366, None),
    "year_1d_7d": ("year_1h", 0, 2),
    "year_1d_366d": ("year_1h", 366, 2),
}
STATS = (("sum", "_(sum|count|total)$"), ("max", "_max$"), ("min", "_min$"))


def main(work: Path) -> dict:
    os.environ.update(bench_environment(work / "django"))
    _, process, influx, redis_url = start_backends(work / "run")
    influxd = InfluxdRunning(process, work / "run", influx.url)
    try:
        configure(work / "django", redis_url, influx)
        scripts = _year_page(influx, work)
        _make_variants(influx)
        pid = influxd.restart_compacting()  # snapshot and fully compact everything, as hours after the last write
        time.sleep(240)
        return {name: _chains(scripts, name, pid) for name in VARIANTS}
    finally:
        influxd.stop()


def _year_page(influx, work: Path) -> list[tuple[str, dict]]:
    """Write the year into buckets `year`, read its page's 160 graphs at 1y cold; the Flux scripts it ran."""
    from django.core.cache import cache

    from bench import s5_year
    from bench.s5_graphs import _page_asks, _view
    from monitor.timeseries import gather

    device = s5_year.year_switch(influx, work)
    captured, run = [], gather.run

    def recorded(script: str, params: dict):
        captured.append((script, params))
        return run(script, params)

    gather.run = recorded
    try:
        cache.clear()
        _view(_page_asks(s5_year.switch_graphs(device), "1y"), datetime.now(timezone.utc))
    finally:
        gather.run = run
    return captured


def _make_variants(influx) -> None:
    """The other buckets: the hours copied, or windowed into days (Σ of sums, counts, totals; max; min)."""
    from influxdb_client import BucketRetentionRules

    influxdb = _client()
    api, query = influxdb.buckets_api(), influxdb.query_api()
    for name, (source, shard_days, window_days) in VARIANTS.items():
        if source is None:
            continue
        rule = BucketRetentionRules(type="expire", every_seconds=5 * 366 * DAY_S)
        if shard_days:
            rule.shard_group_duration_seconds = shard_days * DAY_S
        api.create_bucket(bucket_name=name, retention_rules=[rule], org=influx.org)
        read = f'from(bucket: "{source}") |> range(start: -400d)'
        if window_days is None:
            query.query_raw(f'{read} |> to(bucket: "{name}") |> count() |> yield(name: "n")')
            continue
        for fn, fields in STATS:
            query.query_raw(
                f"{read} |> filter(fn: (r) => r._field =~ /{fields}/)"
                f' |> aggregateWindow(every: 1d, fn: {fn}, createEmpty: false, timeSrc: "_start")'
                f' |> to(bucket: "{name}") |> count() |> yield(name: "n")'
            )


def _chains(scripts: list[tuple[str, dict]], bucket: str, pid: int) -> dict:
    """Each chain of the page's scripts run alone against `bucket` (twice; the second counted): InfluxDB CPU s,
    wall s and CSV bytes per kind of chain."""
    query = _client().query_api()
    window_days = VARIANTS[bucket][2]
    found: dict[str, dict[str, float]] = {}
    for attempt in range(2):
        for script, params in scripts:
            params = {k: bucket if v == "year_1h" else v for k, v in params.items()}
            if window_days:
                params["p_every"] = timedelta(days=window_days)
            for chain in ("from(bucket" + part for part in script.split("from(bucket")[1:]):
                kind = re.search(r'yield\(name: "r\d+_([^"]+)"', chain).group(1)
                cpu, wall = cpu_of(pid), time.perf_counter()
                size = len(query.query_raw(chain, params=params).data)
                if attempt:
                    row = found.setdefault(kind, {"influxdb_cpu_s": 0.0, "wall_s": 0.0, "bytes": 0})
                    row["influxdb_cpu_s"] += cpu_of(pid) - cpu
                    row["wall_s"] += time.perf_counter() - wall
                    row["bytes"] += size
    found["all"] = {key: sum(row[key] for row in found.values()) for key in ("influxdb_cpu_s", "wall_s", "bytes")}
    return found


def _client():
    """A client that waits for the long copies (the product's gives a query 10 s)."""
    from django.conf import settings
    from influxdb_client import InfluxDBClient

    return InfluxDBClient(
        url=settings.INFLUXDB_URL, token=settings.INFLUXDB_TOKEN, org=settings.INFLUXDB_ORG, timeout=900_000
    )


if __name__ == "__main__":
    place = Path(sys.argv[1] if len(sys.argv) > 1 else "var/bench/year_tiers")
    place.mkdir(parents=True, exist_ok=True)
    print(json.dumps(main(place), indent=1))
