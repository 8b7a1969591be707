"""One device's polls as the pollers run them (each given the state the one before kept): the median SNMP requests
and time of a poll, for the request-count benches (optics_requests.py, health_requests.py)."""

from __future__ import annotations

import statistics
import time


def median_poll(target, profile, polls: int) -> dict:
    """{"requests": median requests a poll, "poll_ms": median poll time} over `polls` polls of `target`."""
    from collectors.poll import poll_device
    from monitor.core import aio

    runs, previous = [], None
    for _ in range(polls):
        started = time.perf_counter()
        result = aio.run(poll_device(target, "d", previous, profile=profile, engine="fast"))
        runs.append((result.requests, time.perf_counter() - started))
        previous = result.state
    return {
        "requests": statistics.median(r for r, _ in runs),
        "poll_ms": round(1000 * statistics.median(t for _, t in runs), 1),
    }
