"""The demo's first history: 30 days of the simulated fleet written through the product's own write path (samples
and the rollup windows they close), so the month and year views have data on the first start.

Each device is polled twice for real (collectors.poll, against its simulated agent) to learn what its polls
return; past polls are that shape with values that follow office hours, weekends and a short burst a day."""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable

from collectors.influx import InfluxWriter
from collectors.poll import poll_device
from collectors.profiles import Profile
from collectors.samples import Sample
from collectors.snmptypes import SnmpTarget
from monitor.timeseries.history import HistoryWriter

DAY = 86400
RAW_DAYS = 14  # the raw bucket's retention: older history is written as rollups only
BUSY = ("interface", "volume", "disk_io", "member")  # measurements whose figures follow the working day
SKIP = {"uptime_s"}  # climbs on its own; a made-up past would contradict the agent
# Levels and shares, not amounts of work: they do not follow the working day (read share, I/O size, latency...).
LEVELS = {"read_pct", "avg_io_bytes", "queue_depth", "size_bytes", "free_bytes", "connections", "status", "health"}
GROWTH_PER_DAY = 0.004  # a volume's used space was this share of its size smaller per day back (the forecast)


async def _shape(target: SnmpTarget, key: str, profile: Profile | None) -> list[Sample]:
    """What a poll of this device returns, with rates: two polls two seconds apart."""
    first = await poll_device(target, key, None, profile=profile, engine="fast")
    await asyncio.sleep(2.0)
    second = await poll_device(target, key, first.state, profile=profile, engine="fast")
    return second.samples


def load(t: float, seed: int) -> float:
    """How busy the network is at `t` (0.15 at night to 1.0 at mid-afternoon, weekends at 40 %), per series."""
    hour = (t % DAY) / 3600.0
    office = math.exp(-(((hour - 14.0 + (seed % 5) * 0.3) / 3.5) ** 2))
    weekend = 0.4 if time.gmtime(t).tm_wday >= 5 else 1.0
    return (0.15 + 0.85 * office) * weekend


def past(sample: Sample, t: float, rng: random.Random) -> Sample | None:
    """The sample as it might have been at `t`."""
    seed = hash((sample.measurement, tuple(sample.tags.items()))) & 0xFFFF
    busy = sample.measurement in BUSY
    factor = load(t, seed) * rng.uniform(0.9, 1.1) if busy else 1.0 + 0.05 * math.sin(t / 7200 + seed)
    if busy and (t + seed * 37) % DAY < 60:  # one minute a day at three times the usual: zoom keeps it
        factor *= 3.0
    fields = {}
    days_back = max(0.0, (time.time() - t) / DAY)
    for name, value in sample.fields.items():
        if name in SKIP:
            continue
        if name == "used_bytes" and "size_bytes" in sample.fields:
            grown = GROWTH_PER_DAY * (seed % 3) * days_back * sample.fields["size_bytes"]  # some grow, some do not
            fields[name] = max(0.0, value - grown)
        elif name in LEVELS or name.endswith("_latency_ms") or type(value) is not float:
            fields[name] = value
        else:
            fields[name] = value * factor
    return Sample(sample.measurement, dict(sample.tags), fields, t) if fields else None


def write(
    writer: InfluxWriter,
    devices: list[tuple[str, SnmpTarget, Profile | None]],
    until: float,
    days: int = 30,
    step_s: int = 60,
    progress: Callable[[str], None] = print,
) -> int:
    """Write `days` of history of each (key, target, profile) up to `until`; returns the polls written."""
    shapes = {key: asyncio.run(_shape(target, key, profile)) for key, target, profile in devices}
    history = HistoryWriter(writer)
    rng = random.Random(30)
    end = until - until % 300  # the live pollers carry on from the window they are in
    old_step = 300  # older than raw retention: rollups only, a poll every 5 minutes is plenty
    polls = 0
    for key, samples in shapes.items():
        t = end - days * DAY
        while t < end:
            raw = t >= end - RAW_DAYS * DAY
            step = step_s if raw else old_step
            made = [s for s in (past(sample, t, rng) for sample in samples if sample.measurement != "poller") if s]
            history.poll(key, t, made, step, raw=raw)
            polls += 1
            t += step
        progress(f"history of device {key} written")
    history.close(end)
    if history.failed:
        raise RuntimeError(f"InfluxDB did not take {history.failed} of the history's writes")
    return polls
