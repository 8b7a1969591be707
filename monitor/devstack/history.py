"""The demo's first history: 30 days of the simulated fleet written through the product's own write path (samples
and the rollup windows they close), so the month and year views have data on the first start.

Each device is polled twice for real (collectors.poll, against its simulated agent) to learn what its polls
return; past polls are that shape, moved as the device's story says (monitor/devstack/story.py: the ports' sines,
the array's daily shape and hourly latency spike with the busy switch port), and what no story models follows
office hours, weekends and a short burst a day."""

from __future__ import annotations

import asyncio
import math
import random
import time
import zlib
from collections.abc import Callable

from collectors.influx import InfluxWriter
from collectors.poll import poll_device
from collectors.profiles import Profile
from collectors.rollup import NOT_STATS, TOTALS, spanned
from collectors.samples import Sample
from collectors.snmptypes import SnmpTarget
from monitor.devstack.story import Story
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


def _seed(sample: Sample) -> int:
    """A number of its own per series, the same in every run (str hashes change with each interpreter)."""
    return zlib.crc32(repr((sample.measurement, sorted(sample.tags.items()))).encode()) & 0xFFFF


def past(sample: Sample, t: float, rng: random.Random, story: Story | None = None) -> Sample | None:
    """The sample as it might have been at `t`: as the device's story tells it, else a generic working day."""
    told = story.past(sample, t) if story is not None else None
    seed = _seed(sample)
    busy = sample.measurement in BUSY and told is None
    factor = load(t, seed) * rng.uniform(0.9, 1.1) if busy else 1.0 + 0.05 * math.sin(t / 7200 + seed)
    if busy and (t + seed * 37) % DAY < 60:  # one minute a day at three times the usual: zoom keeps it
        factor *= 3.0
    fields = {}
    days_back = max(0.0, (time.time() - t) / DAY)
    for name, value in (told or sample).fields.items():
        if name in SKIP:
            continue
        if name == "used_bytes" and "size_bytes" in sample.fields:
            grown = GROWTH_PER_DAY * (seed % 3) * days_back * sample.fields["size_bytes"]  # some grow, some do not
            fields[name] = max(0.0, value - grown)
        elif told is not None or name in LEVELS or name.endswith("_latency_ms") or type(value) is not float:
            fields[name] = value
        else:
            fields[name] = value * factor
    return Sample(sample.measurement, dict(sample.tags), fields, t) if fields else None


def covering(sample: Sample, span_s: float) -> Sample:
    """A made-up port sample with what its rates cover, as the poller writes them (the span of the poll it was made
    from, two seconds, and its bytes are not this one's): the time since the poll before, and the bytes moved."""
    if sample.measurement not in TOTALS:
        return sample
    fields = {name: value for name, value in sample.fields.items() if name not in NOT_STATS}
    return sample._replace(fields=spanned(fields, span_s))


def write(
    writer: InfluxWriter,
    devices: list[tuple[str, SnmpTarget, Profile | None]],
    until: float,
    days: int = 30,
    step_s: int = 60,
    progress: Callable[[str], None] = print,
    stories: dict[str, Story] | None = None,
) -> int:
    """Write `days` of history of each (key, target, profile) up to `until`, each device as its story (by key)
    tells it; returns the polls written."""
    stories = stories or {}
    shapes = {key: asyncio.run(_shape(target, key, profile)) for key, target, profile in devices}
    history = HistoryWriter(writer)
    rng = random.Random(30)
    end = until - until % 300  # the live pollers carry on from the window they are in
    old_step = 300  # older than raw retention: rollups only, a poll every 5 minutes is plenty
    polls = 0
    for key, samples in shapes.items():
        story = stories.get(key)
        t = end - days * DAY
        before = t - old_step
        while t < end:
            raw = t >= end - RAW_DAYS * DAY
            step = step_s if raw else old_step
            made = [s for s in (past(x, t, rng, story) for x in samples if x.measurement != "poller") if s]
            history.poll(key, t, [covering(s, t - before) for s in made], step, raw=raw)
            polls += 1
            before, t = t, t + step
        progress(f"history of device {key} written")
    history.close(end)
    if history.failed:
        raise RuntimeError(f"InfluxDB did not take {history.failed} of the history's writes")
    return polls
