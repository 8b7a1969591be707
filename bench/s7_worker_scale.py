"""Scenario 7: the whole Celery path at fleet scale: worker CPU per device-poll, against snmpsim and a busy agent."""

from __future__ import annotations

import time
from pathlib import Path

from bench import stack
from bench.common import Fleet, cpu_tree, rss_children_mb, rss_mb
from bench.replayagent import ReplayAgent


def _wait_for_first_polls(count: int, deadline: float) -> None:
    """Until every device has had a good poll (discovered, first counters kept), or the deadline."""
    from monitor.models import Device

    while time.time() < deadline:
        if Device.objects.filter(last_success_at__isnull=False).count() >= count:
            return
        time.sleep(2)


def run(
    env: dict[str, str], influx, fleet: Fleet, work: Path, replay: ReplayAgent | None = None, processes: int = 8
) -> dict:
    """The worker against 300 snmpsim switches and, with `replay`, against 2,000 switches of the replaying agent
    (bench/replayagent.py: answers at once, so the worker is busy rather than waiting on the simulator)."""
    runs = {"snmpsim": one_fleet(env, influx, [("127.0.0.1", p, n) for p, n in fleet.devices[:300]], work, processes)}
    if replay is not None:
        devices = [("127.0.0.1", replay.port, f"r{n}") for n in range(2000)]
        runs["replay"] = one_fleet(env, influx, devices, work, processes)
    return runs


def one_fleet(
    env: dict[str, str],
    influx,
    devices: list[tuple[str, int, str]],
    work: Path,
    processes: int,
    interval: int = 60,
    seconds: float = 120.0,
) -> dict:
    """`devices` switches on one worker (prefork, `processes` processes) and beat, as deployed.

    Once every device has had its first poll, and one interval more, the worker's CPU (main process and pool) over
    `seconds` is divided by the polls it made in that time (its `poller` points, good or failed).
    """
    stack.clear_devices()
    stack.add_switches(devices, interval, timeout_s=10.0)
    log = work / "log"
    worker = stack.celery("worker", env, log, "-c", str(processes), "-n", "bench-scale@%h")
    beat = stack.celery("beat", env, log, "-s", str(work / "beat-scale"))
    try:
        _wait_for_first_polls(len(devices), deadline=time.time() + 10 * interval)
        time.sleep(interval)  # the start-up wave (discovery of every device at once) is over: steady state
        started, cpu0 = time.time(), cpu_tree(worker.popen.pid)
        time.sleep(seconds)
        stopped, cpu = time.time(), cpu_tree(worker.popen.pid) - cpu0
        memory, pool_memory = rss_mb(worker.popen.pid), rss_children_mb(worker.popen.pid)
    finally:
        beat.stop()
        worker.stop()
    polls = sum(len(v) for v in stack.sample_times(influx, "poller", "ok", started, stopped).values())
    good = sum(len(v) for v in stack.sample_times(influx, "poller", "duration_s", started, stopped).values())
    expected = len(devices) * seconds / interval
    from collections import Counter

    from monitor.models import Device

    errors = Counter(Device.objects.exclude(last_error="").values_list("last_error", flat=True)).most_common(3)
    stack.clear_devices()
    return {
        "devices": len(devices),
        "processes": processes,
        "polls_ok": good,
        "interval_s": interval,
        "seconds": seconds,
        "polls": polls,
        "polls_expected": expected,
        "worker_cpu_per_poll_ms": cpu / max(polls, 1) * 1e3,
        "switches_per_min_per_core": polls / max(cpu, 1e-9) * 60,
        "worker_main_rss_mb": memory,
        "worker_pool_rss_mb": pool_memory,
        "errors": [f"{count} x {text[:120]}" for text, count in errors],
    }
