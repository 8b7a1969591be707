"""Scenario 8's resource figures: CPU and memory of each component's process tree, InfluxDB's series and disk."""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
from pathlib import Path

from bench import stack

TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(child) for child in path.read_text().split()]
    except OSError:
        return []


def tree(pid: int) -> list[int]:
    """A process and its live descendants."""
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += _children(current)
    return out


def tree_cpu(pid: int) -> float:
    """User+system CPU seconds of a process tree, children that exited and were waited for included."""
    total = 0.0
    for member in tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / TICK  # utime, stime, cutime, cstime
    return total


def tree_memory(pid: int) -> tuple[float, float]:
    """(RSS, PSS) in MB summed over a process tree; PSS shares pages among the processes that map them."""
    rss = pss = 0.0
    for member in tree(pid):
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1]) / 1024
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1]) / 1024
        except OSError:
            continue
    return rss, pss


class Sampler(threading.Thread):
    """Every `every` seconds: each component's CPU seconds so far and memory (components: name -> root pids)."""

    def __init__(self, components: dict[str, list[int]], every: float = 10.0, influx_url: str | None = None):
        super().__init__(name="resources", daemon=True)
        self.components, self.every, self.influx_url = components, every, influx_url
        self.samples: list[tuple[float, dict[str, tuple[float, float, float]]]] = []
        self.go_memory: list[tuple[float, dict[str, float]]] = []  # InfluxDB's Go runtime, beside its RSS
        self.stop_event = threading.Event()

    def sample(self) -> None:
        now, row = time.time(), {}
        for name, pids in self.components.items():
            memory = [tree_memory(pid) for pid in pids]
            row[name] = (sum(tree_cpu(pid) for pid in pids), sum(m[0] for m in memory), sum(m[1] for m in memory))
        self.samples.append((now, row))
        if self.influx_url and (go := go_memory(self.influx_url)):
            self.go_memory.append((now, {**go, "rss_mb": row.get("influxdb", (0, 0, 0))[1]}))

    def run(self) -> None:
        self.sample()
        while not self.stop_event.wait(self.every):
            self.sample()

    def summary(self, start: float, stop: float) -> dict:
        """Per component: share of one core over [start, stop], and the largest RSS and PSS seen then."""
        inside = [(t, row) for t, row in self.samples if start - self.every <= t <= stop + self.every]
        if len(inside) < 2:
            return {}
        (t0, first), (t1, last) = inside[0], inside[-1]
        out = {}
        for name in self.components:
            cpu = last[name][0] - first[name][0]
            out[name] = {
                "cpu_cores": cpu / max(t1 - t0, 1e-9),
                "rss_mb_max": max(row[name][1] for _, row in inside),
                "pss_mb_max": max(row[name][2] for _, row in inside),
            }
        out["all"] = {
            "cpu_cores": sum(v["cpu_cores"] for v in out.values()),
            "rss_mb_max": sum(v["rss_mb_max"] for v in out.values()),
            "pss_mb_max": sum(v["pss_mb_max"] for v in out.values()),
        }
        return out

    def go_summary(self, start: float, stop: float) -> dict:
        """InfluxDB's Go heap over [start, stop]: the largest in use and kept idle, and all three at its RSS peak."""
        go = [g for t, g in self.go_memory if start - self.every <= t <= stop + self.every]
        if not go:
            return {}
        return {
            "heap_inuse_mb_max": max(g["heap_inuse_mb"] for g in go),
            "heap_retained_mb_max": max(g["heap_retained_mb"] for g in go),
            "at_rss_peak": max(go, key=lambda g: g["rss_mb"]),
        }


def influx_storage(influx, engine: Path) -> dict:
    """Bytes per bucket (TSM files, WAL, and the series file and index on disk), series per bucket
    (influxdb.cardinality over its retention), and the storage engine's own series figure from /metrics."""
    request = urllib.request.Request(
        f"{influx.url}/api/v2/buckets?org={influx.org}&limit=100", headers={"Authorization": f"Token {influx.token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        buckets = {b["name"]: b["id"] for b in json.load(response)["buckets"] if not b["name"].startswith("_")}
    out: dict = {"buckets": {}}
    for name, bucket_id in sorted(buckets.items()):
        data = engine / "data" / bucket_id
        tsm = sum(f.stat().st_size for f in data.rglob("*.tsm"))
        index = _disk(data) - sum(f.stat().st_blocks * 512 for f in data.rglob("*.tsm"))
        wal = _disk(engine / "wal" / bucket_id)
        flux = f'import "influxdata/influxdb"\ninfluxdb.cardinality(bucket: "{name}", start: -100y)'
        try:
            rows = stack.flux_rows(influx, flux)
            series = int(rows[0]["_value"]) if rows else 0
        except OSError as exc:  # InfluxDB still busy after the run: the figure is missing, not the run's others
            series = None
            out.setdefault("errors", []).append(f"{name} cardinality: {type(exc).__name__}: {exc}")
        out["buckets"][name] = {"tsm_bytes": tsm, "wal_bytes": wal, "index_bytes": index, "series": series}
    out["metrics_series"] = _metric(influx.url, "storage_bucket_series_num") or _metric(influx.url, "storage_series")
    return out


def _disk(path: Path) -> int:
    """Bytes a directory takes on disk (allocated blocks: the series file preallocates sparse segments)."""
    return sum(f.stat().st_blocks * 512 for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def _metric(url: str, name: str) -> float | None:
    """The sum of a Prometheus metric's samples on InfluxDB's /metrics (None when it has no such metric)."""
    try:
        with urllib.request.urlopen(f"{url}/metrics", timeout=30) as response:
            text = response.read().decode()
    except OSError:
        return None
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(name + "{")]
    return sum(values) if values else None


def go_memory(url: str) -> dict[str, float] | None:
    """InfluxDB's memory as its Go runtime sees it, in MB: the heap in use, the heap kept but idle and not yet
    returned to the system (what GOMEMLIMIT makes it return); None when unreachable."""
    try:
        with urllib.request.urlopen(f"{url}/metrics", timeout=10) as response:
            text = response.read().decode()
    except OSError:
        return None
    values = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("go_memstats_heap_inuse_bytes", "go_memstats_heap_idle_bytes", "go_memstats_heap_released_bytes"):
            values[name] = float(value) / 2**20
    if len(values) < 3:
        return None
    return {
        "heap_inuse_mb": values["go_memstats_heap_inuse_bytes"],
        "heap_retained_mb": values["go_memstats_heap_idle_bytes"] - values["go_memstats_heap_released_bytes"],
    }
