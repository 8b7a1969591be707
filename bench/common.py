"""Shared bench helpers: CPU clocks (getrusage), medians, a simulated fleet on several snmpsim processes."""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from monitor.devstack import fleet, services  # noqa: E402
from monitor.devstack.processes import Process, free_port, free_udp_port  # noqa: E402

IF_COLUMNS = [
    "1.3.6.1.2.1.31.1.1.1.1",  # ifName
    "1.3.6.1.2.1.31.1.1.1.18",  # ifAlias
    "1.3.6.1.2.1.31.1.1.1.15",  # ifHighSpeed
    "1.3.6.1.2.1.2.2.1.8",  # ifOperStatus
    "1.3.6.1.2.1.31.1.1.1.6",  # ifHCInOctets
    "1.3.6.1.2.1.31.1.1.1.10",  # ifHCOutOctets
]
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"


def cpu_self() -> float:
    """User+system CPU seconds of this process so far (getrusage)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_of(pid: int) -> float:
    """User+system CPU seconds of another live process (the kernel's getrusage figures, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_tree(pid: int) -> float:
    """CPU seconds of a process and its live children (a Celery worker and its pool)."""
    total = cpu_of(pid)
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        for child in children.read_text().split():
            total += cpu_tree(int(child))
    return total


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def rss_children_mb(pid: int) -> float:
    """The largest RSS among a process's live children (a Celery worker's pool processes)."""
    children = Path(f"/proc/{pid}/task/{pid}/children")
    pids = [int(child) for child in children.read_text().split()] if children.exists() else []
    return max((rss_mb(child) for child in pids), default=0.0)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


@contextmanager
def cpu_timer() -> Iterator[dict[str, float]]:
    """Measure this process's CPU and wall time over a block."""
    out: dict[str, float] = {}
    cpu0, wall0 = cpu_self(), time.perf_counter()
    yield out
    out["cpu"] = cpu_self() - cpu0
    out["wall"] = time.perf_counter() - wall0


@dataclass
class Fleet:
    """Simulated 48-port switches served by several snmpsim processes; device i is (port, community)."""

    devices: list[tuple[int, str]] = field(default_factory=list)
    processes: list[Process] = field(default_factory=list)

    def stop(self) -> None:
        for process in self.processes:
            process.stop()


def switch(community: str) -> fleet.SimDevice:
    """A 48-port switch (PowerConnect 6248 recording: 48 gigabit ports + 4 uplinks)."""
    return fleet.powerconnect_6248(community, name=community)


def start_fleet(work: Path, count: int, agents: int) -> Fleet:
    """`count` switches spread over `agents` snmpsim processes (community sw<N>)."""
    result = Fleet()
    for a in range(agents):
        data = work / f"agent{a}" / "data"
        names = [f"sw{i}" for i in range(a, count, agents)]
        for name in names:
            if not (data / f"{name}.snmprec").exists():
                switch(name).write(data)
        port = free_udp_port()
        result.processes.append(services.start_snmpsim(data, port, work / "log", name=f"snmpsim-{a}"))
        result.devices += [(port, name) for name in names]
    result.devices.sort(key=lambda device: int(device[1][2:]))  # interleaved: any prefix spreads over the agents
    return result


def start_backends(work: Path) -> tuple[Process, Process, services.InfluxSetup, str]:
    """Redis and InfluxDB for the bench, on free loopback ports."""
    redis_port, influx_port = free_port(), free_port()
    for stale in ("redis", "influxdb", "influx-token"):  # every run starts from empty databases
        path = work / stale
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    redis = services.start_redis(work / "redis", redis_port, work / "log")
    influx = services.start_influxd(work / "influxdb", influx_port, work / "log")
    setup = services.setup_influxdb(f"http://127.0.0.1:{influx_port}", "monitor", "monitor", work / "influx-token")
    return redis, influx, setup, f"redis://127.0.0.1:{redis_port}/0"


class InfluxdRunning:
    """The bench's influxd, which a scenario may restart on the same data and port with other settings."""

    def __init__(self, process: Process, work: Path, url: str):
        self.process, self.work, self.port = process, work, int(url.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        return self.process.popen.pid

    def restart(self, **environment: str) -> int:
        """Stop it, start it again with these variables set (INFLUXD_PPROF_DISABLED="false"...); its new pid."""
        self.process.stop()
        saved = {key: os.environ.get(key) for key in environment}
        os.environ.update(environment)
        try:
            self.process = services.start_influxd(self.work / "influxdb", self.port, self.work / "log")
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
        return self.pid

    def restart_compacting(self, **environment: str) -> int:
        """`restart` with short cold durations, so InfluxDB snapshots its cache and fully compacts its shards within
        a minute, as it does hours after their last write (by default after 10 minutes and 4 hours)."""
        return self.restart(
            INFLUXD_STORAGE_CACHE_SNAPSHOT_WRITE_COLD_DURATION="5s",
            INFLUXD_STORAGE_COMPACT_FULL_WRITE_COLD_DURATION="20s",
            **environment,
        )

    def stop(self) -> None:
        self.process.stop()


def git_revision() -> str:
    result = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return result.stdout.strip() or "unknown"


def page_batches(graphs: list[tuple[int, str]], first: int = 6, batch: int = 52, pool: int = 20) -> list[list[int]]:
    """A device page's data requests as static/js/graphs.js sends them, from its (graph id, data-reads) in page
    order: the `first` graphs in view, then a device and template a request (at most `batch`; sets of fewer than
    a quarter of that share requests of `pool`)."""
    sets: dict[str, list[int]] = {}
    for graph, reads in graphs[first:]:
        sets.setdefault(reads, []).append(graph)
    out, small = [[graph for graph, _ in graphs[:first]]], []
    for members in sets.values():
        for i in range(0, len(members), batch):
            part = members[i : i + batch]
            if len(part) >= batch / 4:
                out.append(part)
            else:
                small += part
    return out + [small[i : i + pool] for i in range(0, len(small), pool)]
