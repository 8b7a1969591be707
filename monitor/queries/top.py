"""Dashboard rankings (busiest ports, hottest sensors, slowest volumes) and the volume latency heatmap."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from monitor import flux, rollups

_RANKING = """base = from(bucket: params.bucket)
  |> range(start: params.start, stop: params.stop)
  |> filter(fn: (r) => r._measurement == params.measurement and contains(value: r._field, set: params.fields))
"""


def _per_series(
    measurement: str, fields: list[str], tag: str, start: datetime, end: datetime, fn: str
) -> dict[tuple[str, str, str], float]:
    """{(device, tag value, field): fn over the range} from the finest tier holding the range."""
    from monitor.queries import client

    tier = rollups.pick_tier(start, datetime.now(timezone.utc))
    stat = "max" if fn == "max" else "mean"
    where = f' |> filter(fn: (r) => r.stat == "{stat}")' if tier.step_s else ""
    script = _RANKING + f"base{where} |> {fn}()\n"
    params = {"bucket": tier.bucket, "start": start, "stop": end, "measurement": measurement, "fields": fields}
    result: dict[tuple[str, str, str], float] = {}
    for table in client().query_api().query(flux.bind(script, params)):
        for record in table.records:
            value = record.get_value()
            if value is not None and math.isfinite(float(value)):
                key = (str(record.values.get("device")), str(record.values.get(tag)), record.get_field())
                result[key] = float(value)
    return result


def port_averages(start: datetime, end: datetime) -> dict[tuple[str, str], dict[str, float]]:
    """{(device, port): {"in_bps": mean, "out_bps": mean}} over the range."""
    found: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (device, port, field), value in _per_series(
        "interface", ["in_bps", "out_bps"], "port", start, end, "mean"
    ).items():
        found[(device, port)][field] = value
    return dict(found)


def hottest_sensors(start: datetime, end: datetime, limit: int = 10) -> list[tuple[str, str, float]]:
    """[(device, sensor name, highest value)] of temperature sensors over the range, hottest first."""
    found = _per_series("sensor", ["value"], "name", start, end, "max")
    ranked = sorted(((d, n, v) for (d, n, _), v in found.items()), key=lambda item: -item[2])
    return ranked[:limit]


def slowest_volumes(start: datetime, end: datetime, limit: int = 10) -> list[tuple[str, str, float]]:
    """[(device, volume, mean latency ms of the slower direction)] over the range, slowest first."""
    found = _per_series("volume", ["read_latency_ms", "write_latency_ms"], "volume", start, end, "mean")
    worst: dict[tuple[str, str], float] = {}
    for (device, volume, _), value in found.items():
        worst[(device, volume)] = max(value, worst.get((device, volume), 0.0))
    return sorted(((d, v, ms) for (d, v), ms in worst.items()), key=lambda item: -item[2])[:limit]


_HEATMAP = """from(bucket: params.bucket)
  |> range(start: params.start, stop: params.stop)
  |> filter(fn: (r) => r._measurement == "volume" and r.device == params.device and r._field == params.field)
"""


def latency_heatmap(device: str, field: str, start: datetime, end: datetime, columns: int) -> dict:
    """Mean latency per (volume, time column): {"times": [ms], "volumes": [...], "values": [[ms or None]]}."""
    from monitor.queries import client

    tier = rollups.pick_tier(start, datetime.now(timezone.utc))
    every = max(tier.step_s or 60, math.ceil((end - start).total_seconds() / max(columns, 1)))
    stat = ' |> filter(fn: (r) => r.stat == "mean")' if tier.step_s else ""
    script = (
        _HEATMAP
        + stat
        + '\n  |> aggregateWindow(every: params.every, fn: mean, createEmpty: false, timeSrc: "_start")\n'
    )
    params = {
        "bucket": tier.bucket,
        "start": start,
        "stop": end,
        "device": device,
        "field": field,
        "every": timedelta(seconds=every),
    }
    cells: dict[str, dict[int, float]] = defaultdict(dict)
    for table in client().query_api().query(flux.bind(script, params)):
        for record in table.records:
            if record.get_value() is not None:
                t_ms = int(record.get_time().timestamp() * 1000)
                cells[str(record.values.get("volume"))][t_ms] = float(record.get_value())
    times = sorted({t for row in cells.values() for t in row})
    volumes = sorted(cells)
    return {
        "times": times,
        "volumes": volumes,
        "values": [[cells[v].get(t) for t in times] for v in volumes],
        "resolution_s": every,
    }
