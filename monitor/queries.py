"""InfluxDB queries for graphs: series and legend statistics as plain data. Request values enter only as params."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from influxdb_client import InfluxDBClient

from monitor import flux
from monitor.graphtemplates import GraphTemplate

MAX_POINTS = 2000

_STATS = {
    "average": "mean()",
    "minimum": "min()",
    "maximum": "max()",
    "p95": 'quantile(q: 0.95, method: "exact_selector")',
    "current": "last()",
    "integral": "integral(unit: 1s)",
}


@lru_cache(maxsize=1)
def client() -> InfluxDBClient:
    return InfluxDBClient(
        url=settings.INFLUXDB_URL,
        token=settings.INFLUXDB_TOKEN,
        org=settings.INFLUXDB_ORG,
        timeout=settings.INFLUXDB_TIMEOUT_MS,
    )


def _base(template: GraphTemplate) -> str:
    instance = f" and r.{template.instance_tag} == params.instance" if template.instance_tag else ""
    return (
        "base = from(bucket: params.bucket)\n"
        "  |> range(start: params.start, stop: params.stop)\n"
        f"  |> filter(fn: (r) => r._measurement == params.measurement and r.device == params.device{instance})\n"
        "  |> filter(fn: (r) => contains(value: r._field, set: params.fields))\n"
        '  |> keep(columns: ["_time", "_value", "_field", "_start", "_stop"])\n'
    )


def build_flux(template: GraphTemplate, aggregate: bool) -> str:
    """The whole Flux script for a graph window; only `params.*` carries request values."""
    parts = [_base(template)]
    if aggregate:
        for fn in ("min", "mean", "max"):
            parts.append(
                f'base |> aggregateWindow(every: params.every, fn: {fn}, createEmpty: false, timeSrc: "_start")'
                f' |> yield(name: "{fn}")\n'
            )
    else:
        parts.append('base |> yield(name: "raw")\n')
    for name, call in _STATS.items():
        parts.append(f'base |> {call} |> yield(name: "{name}")\n')
    return "".join(parts)


def graph_series(
    template: GraphTemplate,
    device_key: str,
    instance: str,
    start: datetime,
    end: datetime,
    points: int,
    raw_interval_s: int,
) -> dict:
    """Points (min/mean/max per interval, never more than `points`) and statistics for each series."""
    span = (end - start).total_seconds()
    every_s = max(raw_interval_s, math.ceil(span / max(points, 1)))
    aggregate = every_s > raw_interval_s
    params = {
        "bucket": settings.INFLUXDB_BUCKET,
        "start": start,
        "stop": end,
        "measurement": template.measurement,
        "device": device_key,
        "instance": instance,
        "fields": [s.field for s in template.series],
    }
    if aggregate:
        params["every"] = timedelta(seconds=every_s)
    tables = client().query_api().query(flux.bind(build_flux(template, aggregate), params))

    rows: dict[str, dict[int, list[float | None]]] = defaultdict(dict)
    stats: dict[str, dict[str, float]] = defaultdict(dict)
    slot = {"min": 0, "mean": 1, "max": 2}
    for table in tables:
        for record in table.records:
            result, field, value = record.values.get("result"), record.get_field(), record.get_value()
            if value is None:
                continue
            if result in _STATS:
                stats[field][result] = float(value)
                continue
            t_ms = int(record.get_time().timestamp() * 1000)
            point = rows[field].setdefault(t_ms, [None, None, None])
            if result == "raw":
                point[:] = [float(value)] * 3
            elif result in slot:
                point[slot[result]] = float(value)

    series = []
    for definition in template.series:
        field_stats = stats.get(definition.field, {})
        legend = {key: field_stats.get(key) for key in ("current", "average", "minimum", "maximum", "p95")}
        if template.totals:
            integral = field_stats.get("integral")
            legend["total"] = integral / template.total_divisor if integral is not None else None
        data = sorted(rows.get(definition.field, {}).items())
        series.append(
            {
                "field": definition.field,
                "label": definition.label,
                "points": [[t, *values] for t, values in data],
                "stats": legend,
            }
        )
    return {"resolution_s": every_s, "aggregated": aggregate, "unit": template.unit, "series": series}
