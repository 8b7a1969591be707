"""The monitor watches itself through its own pipeline: once a minute the health figures become samples
(`poller_group` and `poller_worker` measurements), so each figure has a graph over time like any device's."""

from __future__ import annotations

import time

from collectors.samples import Sample
from monitor.core import services
from monitor.health.figures import COUNTED, GROUP_ONLY, WORKER_ONLY, Figures, Health, health


def _fields(row: Figures, names: tuple[str, ...]) -> dict[str, float]:
    """Every figure as a float (a field never changes type); a figure with no value is left out."""
    values = {name: getattr(row, name) for name in names}
    return {name: float(value) for name, value in values.items() if value is not None}


def samples(figures: Health, now: float) -> list[Sample]:
    stale: dict[str, int] = {}
    for row in figures.stale:
        group = row.device.poller_group or "default"
        stale[group] = stale.get(group, 0) + 1
    out = []
    for row in figures.groups:
        row_fields = _fields(row, COUNTED + GROUP_ONLY) | {"stale": float(stale.get(row.name, 0))}
        out.append(Sample("poller_group", {"group": row.name}, row_fields, now))
    for row in figures.workers:
        out.append(Sample("poller_worker", {"worker": row.name}, _fields(row, COUNTED + WORKER_ONLY), now))
    return out


def record(now: float | None = None) -> int:
    """Write this minute's figures (spooled like any sample while InfluxDB is away); how many samples."""
    now = time.time() if now is None else now
    made = samples(health(now), now)
    services.influx_writer().write(made)
    return len(made)
