"""Scenario 6: fault isolation. 10 % of devices silent, 5 % answering 800 ms late; healthy polls stay on time."""

from __future__ import annotations

import time
from pathlib import Path

from bench import stack
from bench.common import Fleet, cpu_tree, percentile, rss_mb
from bench.delayproxy import DelayProxy
from monitor.devstack.processes import free_udp_port


def run(
    env: dict[str, str],
    influx,
    fleet: Fleet,
    work: Path,
    devices: int = 40,
    interval: int = 15,
    seconds: float = 90.0,
    concurrency: int = 8,
) -> dict:
    """Healthy, silent and late devices on one worker; count the healthy devices' missed ticks and start delays."""
    silent_n, late_n = max(1, devices // 10), max(1, devices // 20)
    healthy_n = devices - silent_n - late_n
    pool = fleet.devices[: healthy_n + late_n]
    proxies = [DelayProxy(port) for port, _ in pool[healthy_n:]]
    triples = [("127.0.0.1", port, name) for port, name in pool[:healthy_n]]
    triples += [("127.0.0.1", proxy.port, name) for proxy, (_, name) in zip(proxies, pool[healthy_n:], strict=True)]
    triples += [("127.0.0.1", free_udp_port(), "silent") for _ in range(silent_n)]
    stack.clear_devices()
    rows = stack.add_switches(triples, interval, timeout_s=2.0, retries=1)
    healthy = {str(row.pk): row.pk for row in rows[:healthy_n]}
    log = work / "log"
    worker = stack.celery("worker", env, log, "-c", str(concurrency), "-n", "bench-faults@%h")
    beat = stack.celery("beat", env, log, "-s", str(work / "beat-faults"))
    try:
        time.sleep(interval + 10)  # first ticks, worker warm
        started, cpu0 = time.time(), cpu_tree(worker.popen.pid)
        time.sleep(seconds)
        stopped, cpu = time.time(), cpu_tree(worker.popen.pid) - cpu0
        memory = rss_mb(worker.popen.pid)
    finally:
        beat.stop()
        worker.stop()
        for proxy in proxies:
            proxy.stop()
    times = stack.sample_times(influx, "system", "uptime_s", started, stopped)
    polled = stack.field_values(influx, "poller", "tick", started - interval, stopped + 2 * interval)
    skipped = stack.field_values(influx, "poller", "skipped_tick", started - interval, stopped + 2 * interval)
    delays, missed, expected = [], [], 0
    for key, pk in healthy.items():
        first = stack.tick_of(pk, interval, started) + interval
        ticks = range(first, int(stopped) - interval, interval)  # ticks whose poll had time to finish
        expected += len(ticks)
        done = {int(t) for t in polled.get(key, [])}  # the poller records the tick of every good poll
        for tick in ticks:
            if tick not in done:
                why = "skipped (overrun)" if tick in {int(t) for t in skipped.get(key, [])} else "no good poll"
                missed.append(f"device {pk} tick {tick}: {why}")
        delays += [at - stack.tick_of(pk, interval, at) for at in times.get(key, [])]
    late_keys = {str(row.pk) for row in rows[healthy_n : healthy_n + late_n]}
    return {
        "devices": devices,
        "silent": silent_n,
        "late": late_n,
        "interval_s": interval,
        "seconds": seconds,
        "worker_concurrency": concurrency,
        "healthy_expected": expected,
        "healthy_missed": len(missed),
        "missed_detail": missed[:10],
        "healthy_start_p50_s": percentile(delays, 50),
        "healthy_start_p95_s": percentile(delays, 95),
        "healthy_start_max_s": max(delays) if delays else float("nan"),
        "late_polls_ok": sum(len(times.get(k, [])) for k in late_keys),
        "worker_cpu_s": cpu,
        "worker_main_rss_mb": memory,
    }
