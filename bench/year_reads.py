"""Where a cold year page's time goes, read by read: scenario 5's switch (a year written as the pollers write it),
InfluxDB restarted to compact it, then its 1-year page's 160 graphs read in process as the page asks for them
(`api.batch`, in the page's requests: s5_graphs._page_asks) after emptying the cache, three times; each InfluxDB
request the reads make is timed (wall, InfluxDB CPU from /proc, answer bytes) and summed by kind.

Run: .venv/bin/python -m bench.year_reads [work dir]  (about 6 minutes; prints JSON).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from bench import s5_year
from bench.common import InfluxdRunning, cpu_of, start_backends
from bench.stack import bench_environment, configure


def main(work: Path, settle_s: int = 150) -> dict:
    os.environ.update(bench_environment(work / "django"))
    _, process, influx, redis_url = start_backends(work / "run")
    influxd = InfluxdRunning(process, work / "run", influx.url)
    try:
        configure(work / "django", redis_url, influx)
        graphs = s5_year.switch_graphs(s5_year.year_switch(influx, work))
        pid = influxd.restart_compacting()
        time.sleep(settle_s)
        return {"runs": [_cold_page(graphs, pid) for _ in range(3)]}
    finally:
        influxd.stop()


def _cold_page(graphs: list, pid: int) -> dict:
    """The page's 1-year requests after the cache is emptied: per kind of InfluxDB request, calls, wall s and
    InfluxDB CPU s; and the whole page's wall s and InfluxDB CPU s."""
    from django.core.cache import cache

    from bench.s5_graphs import _page_asks, _view
    from monitor.timeseries import client, influxql

    kinds: dict[str, dict[str, float]] = defaultdict(lambda: {"calls": 0, "wall_s": 0.0, "influxdb_cpu_s": 0.0})
    original = client.client

    def timed_call(kind: str, call):
        cpu, wall = cpu_of(pid), time.perf_counter()
        result = call()
        row = kinds[kind]
        row["calls"] += 1
        row["wall_s"] += time.perf_counter() - wall
        row["influxdb_cpu_s"] += cpu_of(pid) - cpu
        return result

    class Timed:
        """The product's client, each /query and Flux request timed by what it reads."""

        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

        @property
        def api_client(self):
            inner = self._inner.api_client

            class Api:
                def __getattr__(self, name):
                    return getattr(inner, name)

                def call_api(self, path, method, post_params=None, **kw):
                    text = dict(post_params or []).get("q", "")
                    read = "raw" if "FROM /.*/" in text else ("stored" if "_mean" in text else "figures")
                    hours = "_1h" in dict(post_params).get("db", "")  # the hourly tier (read so on trial/day-tier)
                    kind = f"influxql hours {read}" if hours else f"influxql {read}"
                    return timed_call(kind, lambda: inner.call_api(path, method, post_params=post_params, **kw))

            return Api()

        def query_api(self):
            inner = self._inner.query_api()

            class Query:
                def __getattr__(self, name):
                    return getattr(inner, name)

                def query_raw(self, *a, **kw):
                    return timed_call("flux", lambda: inner.query_raw(*a, **kw))

            return Query()

    client.client = influxql.client = lambda *a, **kw: Timed(original(*a, **kw))
    try:
        cache.clear()
        page = _page_asks(graphs, "1y")
        cpu, wall = cpu_of(pid), time.perf_counter()
        _view(page, datetime.now(timezone.utc))
        whole = {"wall_s": time.perf_counter() - wall, "influxdb_cpu_s": cpu_of(pid) - cpu}
    finally:
        client.client = influxql.client = original
    return {"page": whole, "kinds": dict(kinds)}


if __name__ == "__main__":
    place = Path(sys.argv[1] if len(sys.argv) > 1 else "var/bench/year_reads")
    place.mkdir(parents=True, exist_ok=True)
    print(json.dumps(main(place), indent=1))
