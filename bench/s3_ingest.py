"""Scenario 3: InfluxDB ingest through the poller's writer: field values per second, client CPU per field value."""

from __future__ import annotations

import json
import time
import urllib.request
from pathlib import Path

from bench.common import cpu_self, median
from collectors.influx import InfluxWriter
from collectors.samples import Sample
from monitor.devstack.services import InfluxSetup

PORTS = 52
FIELDS_PER_PORT = 4  # speed_bps, oper_up, in_bps, out_bps


def poll_samples(device: int, at: float) -> list[Sample]:
    """What one switch poll writes: a point per port and one for the system."""
    samples = [
        Sample(
            "interface",
            {"device": str(device), "port": f"1/g{p}"},
            {"speed_bps": 1_000_000_000, "oper_up": 1, "in_bps": 1.5e6 * p + device, "out_bps": 7.5e5 * p},
            at,
        )
        for p in range(1, PORTS + 1)
    ]
    return [*samples, Sample("system", {"device": str(device)}, {"uptime_s": at}, at)]


def count_points(setup: InfluxSetup, start: float, stop: float) -> int:
    """in_bps points the server holds between start and stop (to check that none was dropped)."""
    flux = (
        f'from(bucket:"{setup.bucket}") |> range(start:{int(start)}, stop:{int(stop) + 1})'
        ' |> filter(fn:(r) => r._measurement == "interface" and r._field == "in_bps")'
        " |> group() |> count()"
    )
    request = urllib.request.Request(
        f"{setup.url}/api/v2/query?org={setup.org}",
        data=json.dumps({"query": flux, "type": "flux"}).encode(),
        headers={"Authorization": f"Token {setup.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        rows = [line.split(",") for line in response.read().decode().splitlines() if line.strip()]
    if not rows:
        return 0
    header = rows[0]
    return sum(int(row[header.index("_value")]) for row in rows[1:] if len(row) == len(header))


def sustained(setup: InfluxSetup, spool: Path, polls_per_write: int, seconds: float, base: float) -> dict:
    """Write poll-shaped batches back to back for `seconds`; each poll gets its own second of history."""
    writer = InfluxWriter(setup.url, setup.token, setup.org, setup.bucket, spool)
    written = fields = polls = 0
    cpu0, wall0 = cpu_self(), time.perf_counter()
    while time.perf_counter() - wall0 < seconds:
        batch = []
        for _ in range(polls_per_write):
            batch += poll_samples(polls % 1000, base + polls // 1000)
            polls += 1
        written += writer.write(batch)
        fields += sum(len(s.fields) for s in batch)
    cpu, wall = cpu_self() - cpu0, time.perf_counter() - wall0
    writer.close()
    return {"fields_per_s": fields / wall, "cpu_per_field_us": cpu / fields * 1e6, "polls": polls, "ok": written}


def run(setup: InfluxSetup, work: Path, seconds: float = 12.0, runs: int = 3) -> dict:
    """Per-poll writes (as the Celery task does) and batched writes (as a batch poller would)."""
    result: dict = {}
    base = time.time() - 30 * 86400  # an empty stretch of history, so the counts below are exact
    for label, per_write in (("per_poll", 1), ("batched_100_polls", 100)):
        figures = []
        for n in range(runs):
            start = base + n * 10_000_000 / 1000 + (0 if label == "per_poll" else 5_000_000)
            figure = sustained(setup, work / "spool", per_write, seconds, start)
            stored = count_points(setup, start, start + figure["polls"] // 1000 + 1)
            figure["dropped"] = figure["polls"] * PORTS - stored
            figures.append(figure)
        result[label] = {
            "fields_per_s": median([f["fields_per_s"] for f in figures]),
            "cpu_per_field_us": median([f["cpu_per_field_us"] for f in figures]),
            "dropped": max(f["dropped"] for f in figures),
            "runs": runs,
            "seconds": seconds,
        }
    return result
