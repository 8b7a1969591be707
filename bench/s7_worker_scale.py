"""Scenario 7: the whole Celery path at fleet scale: worker CPU per device-poll with 1,000 switches on beat."""

from __future__ import annotations

import time
from pathlib import Path

from bench import stack
from bench.common import Fleet, cpu_tree, rss_mb


def _wait_for_first_polls(count: int, deadline: float) -> None:
    """Until every device has had a good poll (discovered, first counters kept), or the deadline."""
    from monitor.models import Device

    while time.time() < deadline:
        if Device.objects.filter(last_success_at__isnull=False).count() >= count:
            return
        time.sleep(2)


def run(
    env: dict[str, str],
    influx,
    fleet: Fleet,
    work: Path,
    devices: int = 300,
    interval: int = 60,
    seconds: float = 120.0,
    processes: int = 8,
) -> dict:
    """`devices` switches on one worker (prefork, `processes` processes) and beat, as deployed.

    Once every device has had its first poll, and one interval more, the worker's CPU (main process and pool) over
    `seconds` is divided by the polls it made in that time (its `poller` points, good or failed). The
    simulator answers about 1,800 switch polls a minute on an idle machine, one request at a time per
    process, so a burst of devices due together queues: the fleet is a sixth of that, a figure for the
    poller rather than for a simulator starved of CPU.
    """
    stack.clear_devices()
    chosen = fleet.devices[:devices]
    stack.add_switches([("127.0.0.1", port, name) for port, name in chosen], interval, timeout_s=10.0)
    log = work / "log"
    worker = stack.celery("worker", env, log, "-c", str(processes), "-n", "bench-scale@%h")
    beat = stack.celery("beat", env, log, "-s", str(work / "beat-scale"))
    try:
        _wait_for_first_polls(len(chosen), deadline=time.time() + 10 * interval)
        time.sleep(interval)  # the start-up wave (discovery of every device at once) is over: steady state
        started, cpu0 = time.time(), cpu_tree(worker.popen.pid)
        time.sleep(seconds)
        stopped, cpu = time.time(), cpu_tree(worker.popen.pid) - cpu0
        memory = rss_mb(worker.popen.pid)
    finally:
        beat.stop()
        worker.stop()
    polls = sum(len(v) for v in stack.sample_times(influx, "poller", "ok", started, stopped).values())
    good = sum(len(v) for v in stack.sample_times(influx, "poller", "duration_s", started, stopped).values())
    expected = len(chosen) * seconds / interval
    from collections import Counter

    from monitor.models import Device

    errors = Counter(Device.objects.exclude(last_error="").values_list("last_error", flat=True)).most_common(3)
    stack.clear_devices()
    return {
        "devices": len(chosen),
        "processes": processes,
        "polls_ok": good,
        "interval_s": interval,
        "seconds": seconds,
        "polls": polls,
        "polls_expected": expected,
        "worker_cpu_per_poll_ms": cpu / max(polls, 1) * 1e3,
        "switches_per_min_per_core": polls / max(cpu, 1e-9) * 60,
        "worker_main_rss_mb": memory,
        "errors": [f"{count} x {text[:120]}" for text, count in errors],
    }
