"""Scenario 4: freshness, from a scheduled tick to the value returned by the series API, under load."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from bench import stack
from bench.common import Fleet, cpu_tree, percentile, rss_mb


def _watch(device_id: int, graph_id: int, interval: int, started: float, seconds: float, out: list) -> None:
    """Read one graph's series API back to back (its own client, as a browser tab would) and note new points."""
    api = stack.client()
    seen: set[int] = set()
    try:
        while time.time() - started < seconds:
            response = api.get(f"/api/graphs/{graph_id}/series", {"start": "now-2m", "end": "now", "points": "800"})
            now = time.time()
            for series in response.json().get("series", []):
                if series.get("field") != "in_bps":
                    continue
                for point in series["points"]:
                    at = point[0] / 1000
                    if at >= started and point[0] not in seen:
                        seen.add(point[0])
                        out.append(now - stack.tick_of(device_id, interval, at))
            time.sleep(0.05)
    finally:
        from django.db import connection

        connection.close()


def run(
    env: dict[str, str],
    influx,
    fleet: Fleet,
    work: Path,
    devices: int = 40,
    interval: int = 10,
    seconds: float = 60.0,
    watch: int = 5,
) -> dict:
    """`devices` switches on one worker (-c 4) and beat; the API is read back to back for `watch` of them."""
    from monitor.models import Graph

    stack.clear_devices()
    rows = stack.add_switches([("127.0.0.1", port, name) for port, name in fleet.devices[:devices]], interval)
    log = work / "log"
    worker = stack.celery("worker", env, log, "-c", "4", "-n", "bench-fresh@%h")
    beat = stack.celery("beat", env, log, "-s", str(work / "beat-fresh"))
    stack.client()  # creates the bench user before the watcher threads log in
    try:
        deadline = time.time() + 4 * interval + 30
        graphs = {}
        while time.time() < deadline and len(graphs) < watch:
            for device in rows[:watch]:
                graph = Graph.objects.filter(device=device, template="traffic", instance="1/g1").first()
                if graph:
                    graphs[device.pk] = graph.pk
            time.sleep(0.5)
        time.sleep(interval)  # every device has its first counters: rates flow from here on
        started, cpu0 = time.time(), cpu_tree(worker.popen.pid)
        latencies: list[float] = []
        watchers = [
            threading.Thread(target=_watch, args=(device_id, graph_id, interval, started, seconds, latencies))
            for device_id, graph_id in graphs.items()
        ]
        for watcher in watchers:
            watcher.start()
        for watcher in watchers:
            watcher.join()
        stopped, cpu = time.time(), cpu_tree(worker.popen.pid) - cpu0
        polls = sum(len(v) for v in stack.sample_times(influx, "system", "uptime_s", started, stopped).values())
        memory = rss_mb(worker.popen.pid)
    finally:
        beat.stop()
        worker.stop()
    return {
        "devices": devices,
        "interval_s": interval,
        "seconds": seconds,
        "observed": len(latencies),
        "p50_s": percentile(latencies, 50),
        "p95_s": percentile(latencies, 95),
        "p99_s": percentile(latencies, 99),
        "worker_cpu_per_poll_ms": cpu / max(polls, 1) * 1e3,
        "worker_polls": polls,
        "worker_main_rss_mb": memory,
    }
