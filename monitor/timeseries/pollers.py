"""The pollers' own health over time (`poller_group`, `poller_worker`, written by monitor.health.sampling):
each point is the largest value of its step, so a minute of trouble is never averaged away on a long range."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta

from django.conf import settings

from monitor.timeseries.client import run

_SCRIPT = """from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)
  |> filter(fn: (r) => r._measurement == p_measurement)
  |> aggregateWindow(every: p_every, fn: max, createEmpty: false, timeSrc: "_start")
  |> keep(columns: ["_time", "_value", "_field", "{tag}"])
"""
TAGS = {"poller_group": "group", "poller_worker": "worker"}


def history(measurement: str, start: datetime, end: datetime, points: int = 240) -> dict[str, dict[str, list]]:
    """{group or worker: {figure: [(epoch ms, value)]}} over the range, at most about `points` per line."""
    tag = TAGS[measurement]  # a KeyError for anything else: tag names come from code, never from a request
    step = max(60, math.ceil((end - start).total_seconds() / max(2, points) / 60) * 60)
    params = {
        "p_bucket": settings.INFLUXDB_BUCKET,
        "p_start": start,
        "p_stop": end,
        "p_measurement": measurement,
        "p_every": timedelta(seconds=step),
    }
    found: dict[str, dict[str, list]] = defaultdict(dict)
    for table in run(_SCRIPT.replace("{tag}", tag), params):
        name = table.group.get(tag, "")
        found[name].setdefault(table.group.get("_field", ""), []).extend(table.rows)
    return {name: dict(figures) for name, figures in sorted(found.items())}
