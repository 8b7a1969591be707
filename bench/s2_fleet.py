"""Scenario 2: fleet scaling. Poller CPU per device-poll at 10, 100 and 1,000 switches, devices per minute, memory."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from bench.common import Fleet, cpu_self, median, rss_mb
from bench.replayagent import ReplayAgent
from collectors.batch import BatchJob, line_protocol, poll_many
from collectors.procs import tune_gc_for_polling
from collectors.profiles import BUILTIN_DIR, load_profiles
from collectors.snmptypes import SnmpTarget

PROFILE = "dell-powerconnect-62xx"  # what discovery picks for the simulated 6248s, as in the product path


def useful_varbinds(outcomes) -> int:
    """sysUpTime plus, per port, status, two octet counters and the other counters read every poll (names,
    aliases and speeds are read again only when they may have changed, so they are not counted)."""
    return sum(1 + sum(3 + len(p.counters) for p in o.result.ports) for o in outcomes if o.result is not None)


async def rounds(jobs: list[BatchJob], engine: str, count: int, concurrency: int) -> list[dict]:
    """A warm-up round (first counters, no rates), then `count` measured rounds."""
    figures = []
    for n in range(count + 1):
        cpu0, wall0 = cpu_self(), time.perf_counter()
        outcomes = await poll_many(jobs, engine=engine, concurrency=concurrency)
        lines = line_protocol(outcomes)
        cpu, wall = cpu_self() - cpu0, time.perf_counter() - wall0
        failed = [o for o in outcomes if o.result is None]
        states = [o.result.state if o.result else None for o in outcomes]
        jobs = [BatchJob(j.target, j.key, state, j.profile) for j, state in zip(jobs, states, strict=True)]
        if n:
            ok = len(outcomes) - len(failed)
            figures.append(
                {
                    "cpu_per_poll_ms": cpu / max(ok, 1) * 1e3,
                    "cpu_per_varbind_us": cpu / max(useful_varbinds(outcomes), 1) * 1e6,
                    "wall_s": wall,
                    "failed": len(failed),
                    "lines": len(lines),
                    "errors": sorted({o.error for o in failed})[:3],
                }
            )
    return figures


def run(
    fleet: Fleet,
    sizes: tuple[int, ...] = (10, 100, 1000),
    engines: tuple[str, ...] = ("fast",),
    replay: ReplayAgent | None = None,
) -> dict:
    """Each size polls the first N switches of the fleet (spread over all snmpsim processes); with `replay`, the
    fast engine also polls 1,000 switches of the replaying agent (a busy poller, bench/replayagent.py)."""
    concurrency = 8 * len(fleet.processes)  # the simulator answers one request at a time per process
    tune_gc_for_polling()  # as in a Celery worker process (monitor/celery.py)
    profile = load_profiles([BUILTIN_DIR])[PROFILE]
    result: dict = {"agents": len(fleet.processes), "concurrency": concurrency, "sizes": {}}
    runs = [(engine, size, fleet.devices[:size]) for engine in engines for size in sizes]
    if replay is not None:
        runs.append(("fast@replay", 1000, [(replay.port, f"r{n}") for n in range(1000)]))
    for label, size, devices in runs:
        engine = label.split("@")[0]
        if engine == "pysnmp" and size > 100:
            continue  # about 0.1 s of CPU per poll: 1,000 switches would take minutes of the bench's budget
        jobs = [
            BatchJob(SnmpTarget("127.0.0.1", port, community=name, timeout=20.0, retries=1), name, profile=profile)
            for port, name in devices
        ]
        measured = 1 if (size >= 1000 and "@" not in label) or engine == "pysnmp" else 3
        figures = asyncio.run(rounds(jobs, engine, measured, 64 if "@" in label else concurrency))
        cpu_ms = median([f["cpu_per_poll_ms"] for f in figures])
        result["sizes"][f"{label}:{size}"] = {
            "cpu_per_poll_ms": cpu_ms,
            "cpu_per_varbind_us": median([f["cpu_per_varbind_us"] for f in figures]),
            "switches_per_min_per_core": 60_000 / cpu_ms,
            "wall_per_round_s": median([f["wall_s"] for f in figures]),
            "switches_per_min_wall": size / median([f["wall_s"] for f in figures]) * 60,
            "failed": max(f["failed"] for f in figures),
            "errors": figures[-1]["errors"],
            "rss_mb": rss_mb(os.getpid()),
            "rounds": len(figures),
        }
    return result


def run_product_fresh(
    devices: list[tuple[int, str]],
    sizes: tuple[int, ...],
    replay_port: int | None,
    django_work: Path,
    redis_url: str,
    influx,
) -> dict:
    """run_product in a newly spawned interpreter, as a worker process runs polls: the bench process carries the
    fleets, engines and results of the runs before it (over 600 MB), in which the same path measured 1.5x slower."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(_product_child, devices, sizes, replay_port, django_work, redis_url, influx).result()


def _product_child(devices, sizes, replay_port, django_work, redis_url, influx) -> dict:
    from bench import stack

    stack.configure(django_work, redis_url, influx, fresh=False)  # the parent's database, already migrated
    return run_product(Fleet(devices=list(devices)), sizes, replay_port=replay_port)


def run_product(
    fleet: Fleet,
    sizes: tuple[int, ...] = (10, 100, 1000),
    rounds_at_most: int = 3,
    replay_port: int | None = None,
) -> dict:
    """The product's own poll path in process: monitor.polling.run.run_polls on batches, as a worker runs them.

    Django (SQLite), Redis and InfluxDB are real; each batch claims, locks, polls concurrently, writes,
    records rows, syncs inventory when it changed and evaluates alerts. Needs bench.stack.configure first.
    """
    from django.conf import settings

    from bench import stack
    from monitor.polling.run import run_polls

    batch = settings.MONITOR_POLL_BATCH
    tune_gc_for_polling()  # as in a Celery worker process (monitor/celery.py)
    result: dict = {"batch": batch, "concurrency": settings.MONITOR_POLL_CONCURRENCY, "sizes": {}}
    runs = [("product", size, fleet.devices[:size]) for size in sizes]
    if replay_port is not None:
        runs.append(("product@replay", 1000, [(replay_port, f"r{n}") for n in range(1000)]))
    for label, size, devices in runs:
        stack.clear_devices()
        rows = stack.add_switches([("127.0.0.1", port, name) for port, name in devices], 60, timeout_s=10.0)
        ids = [row.pk for row in rows]
        figures = []
        measured = 1 if size >= 1000 and "@" not in label else rounds_at_most
        for n in range(measured + 2):  # discovery and first counters, then one round to settle, then measured
            cpu0, wall0 = cpu_self(), time.perf_counter()
            outcomes: dict[int, str] = {}
            for start in range(0, len(ids), batch):
                outcomes.update(run_polls(ids[start : start + batch]))
            cpu, wall = cpu_self() - cpu0, time.perf_counter() - wall0
            ok = sum(1 for text in outcomes.values() if text == "ok")
            if n >= 2:
                figures.append({"cpu_per_poll_ms": cpu / max(ok, 1) * 1e3, "wall_s": wall, "failed": size - ok})
        cpu_ms = median([f["cpu_per_poll_ms"] for f in figures])
        result["sizes"][f"{label}:{size}"] = {
            "cpu_per_poll_ms": cpu_ms,
            "switches_per_min_per_core": 60_000 / cpu_ms,
            "wall_per_round_s": median([f["wall_s"] for f in figures]),
            "switches_per_min_wall": size / median([f["wall_s"] for f in figures]) * 60,
            "failed": max(f["failed"] for f in figures),
            "rss_mb": rss_mb(os.getpid()),
            "rounds": len(figures),
        }
    stack.clear_devices()
    return result
