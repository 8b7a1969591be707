"""One device's polls as the pollers run them (each given the state the one before kept): the median SNMP requests
and time of a poll, for the request-count benches (optics_requests.py, health_requests.py)."""

from __future__ import annotations

import json
import statistics
import time
from datetime import datetime, timezone
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


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


def measure(port: int, cases: dict[str, tuple], polls: int, timeout: float) -> dict[str, dict]:
    """{label: median_poll of the agent on loopback `port` as (community, profile)} for each case, each printed as it
    is measured."""
    from collectors.snmptypes import SnmpTarget

    figures = {}
    width = max(len(label) for label in cases)
    for label, (community, profile) in cases.items():
        target = SnmpTarget("127.0.0.1", port, community=community, timeout=timeout)
        figures[label] = median_poll(target, profile, polls)
        print(f"{label:{width}} {figures[label]['requests']:>5} requests {figures[label]['poll_ms']:>8} ms")
    return figures


def write_results(name: str, polls: int, figures: dict) -> Path:
    """bench/results/<name>-<UTC time>.json with the polls and each case's figures."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS / f"{name}-{stamp}.json"
    out.write_text(json.dumps({"polls": polls, "cases": figures}, indent=2) + "\n")
    return out
