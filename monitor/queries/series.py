"""Series and legend statistics for one graph or a summed aggregate, from the finest tier that holds the window."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from monitor import flux, rollups
from monitor.graphtemplates import GraphTemplate

MAX_POINTS = 2000
LEGEND = ("current", "average", "minimum", "maximum", "p95")


@dataclass(frozen=True)
class Selection:
    """What a graph draws: one (device, instance), or several summed per interval (an aggregate)."""

    members: tuple[tuple[str, str], ...]  # (device id, instance tag value)

    @property
    def summed(self) -> bool:
        return len(self.members) > 1


def _source(template: GraphTemplate, selection: Selection, stat: str | None) -> str:
    """from |> range |> filter with equality predicates only, so InfluxDB pushes windows and aggregates down."""
    tag = template.instance_tag
    if selection.summed:
        pairs = [
            f"r.device == params.d{i}" + (f" and r.{tag} == params.i{i}" if tag else "")
            for i in range(len(selection.members))
        ]
        where = "(" + " or ".join(f"({pair})" for pair in pairs) + ")"
    else:
        where = "r.device == params.device" + (f" and r.{tag} == params.instance" if tag else "")
    for name in sorted(getattr(template, "filters", {})):
        where += f" and r.{name} == params.tag_{name}"  # tag names come from code, values are bound
    if stat:
        where += f' and r.stat == "{stat}"'
    fields = " or ".join(f"r._field == params.f{i}" for i in range(len(template.series)))
    return (
        "from(bucket: params.bucket) |> range(start: params.start, stop: params.stop)\n"
        f"  |> filter(fn: (r) => r._measurement == params.measurement and {where} and ({fields}))"
    )


def _streams(template: GraphTemplate, selection: Selection, rollup: bool) -> str:
    """Define lo/mid/hi: the streams whose min, mean and max a point shows."""
    if selection.summed:
        return (
            f"mid = {_source(template, selection, 'mean' if rollup else None)}\n"
            '  |> aggregateWindow(every: params.step, fn: mean, createEmpty: false, timeSrc: "_start")\n'
            '  |> group(columns: ["_field"])\n'
            '  |> aggregateWindow(every: params.step, fn: sum, createEmpty: false, timeSrc: "_start")\n'
            "lo = mid\nhi = mid\n"
        )
    if rollup:
        return "".join(
            f"{name} = {_source(template, selection, stat)}\n"
            for name, stat in (("lo", "min"), ("mid", "mean"), ("hi", "max"))
        )
    return f"mid = {_source(template, selection, None)}\nlo = mid\nhi = mid\n"


def build_flux(template: GraphTemplate, selection: Selection, rollup: bool, windowed: bool) -> str:
    """The whole script for a window; only `params.*` carries request values."""
    parts = [_streams(template, selection, rollup)]
    if windowed:
        for stream, fn in (("lo", "min"), ("mid", "mean"), ("hi", "max")):
            parts.append(
                f'{stream} |> aggregateWindow(every: params.every, fn: {fn}, createEmpty: false, timeSrc: "_start")'
                f' |> yield(name: "{fn}")\n'
            )
    elif rollup and not selection.summed:
        parts += [f'{s} |> yield(name: "{fn}")\n' for s, fn in (("lo", "min"), ("mid", "mean"), ("hi", "max"))]
    else:
        parts.append('mid |> yield(name: "raw")\n')
    stats = {
        "current": "mid |> last()",
        "average": "mid |> mean()",
        "p95": 'mid |> quantile(q: 0.95, method: "exact_selector")',
        "integral": "mid |> integral(unit: 1s)",
    }
    parts += [f'{call} |> yield(name: "{name}")\n' for name, call in stats.items()]
    return "".join(parts)


def graph_series(
    template: GraphTemplate,
    device_key: str,
    instance: str,
    start: datetime,
    end: datetime,
    points: int,
    raw_interval_s: int,
    scale: float = 1.0,
    now: datetime | None = None,
) -> dict:
    """One graph's points ([t_ms, min, mean, max], never more than `points`) and legend statistics."""
    selection = Selection(((device_key, instance),))
    return series(template, selection, start, end, points, raw_interval_s, scale, now)


def series(
    template: GraphTemplate,
    selection: Selection,
    start: datetime,
    end: datetime,
    points: int,
    raw_interval_s: int,
    scale: float = 1.0,
    now: datetime | None = None,
) -> dict:
    """Points and legend statistics of a selection (several members are summed per interval first)."""
    from monitor.queries import client

    tier = rollups.pick_tier(start, now or datetime.now(timezone.utc))
    native = tier.step_s or raw_interval_s
    span = (end - start).total_seconds()
    every_s = max(native, math.ceil(span / max(points, 1)))
    every_s = math.ceil(every_s / native) * native
    windowed = every_s > native
    params: dict[str, object] = {
        "bucket": tier.bucket,
        "start": start,
        "stop": end,
        "measurement": template.measurement,
    }
    params |= {f"f{i}": definition.field for i, definition in enumerate(template.series)}
    if selection.summed:
        for i, (device, instance) in enumerate(selection.members):
            params[f"d{i}"], params[f"i{i}"] = device, instance
        params["step"] = timedelta(seconds=native)
    else:
        params["device"], params["instance"] = selection.members[0]
    for name, value in getattr(template, "filters", {}).items():
        params[f"tag_{name}"] = value
    if windowed:
        params["every"] = timedelta(seconds=every_s)
    script = build_flux(template, selection, tier.step_s > 0, windowed)
    tables = client().query_api().query(flux.bind(script, params))
    return _collect(template, tables, scale) | {
        "resolution_s": every_s,
        "aggregated": windowed or tier.step_s > 0,
        "tier": tier.name,
        "unit": template.unit,
    }


def _collect(template: GraphTemplate, tables, scale: float) -> dict:
    rows: dict[str, dict[int, list[float | None]]] = defaultdict(dict)
    stats: dict[str, dict[str, float]] = defaultdict(dict)
    slot = {"min": 0, "mean": 1, "max": 2}
    for table in tables:
        for record in table.records:
            result, field, value = record.values.get("result"), record.get_field(), record.get_value()
            if value is None:
                continue
            if result in LEGEND or result == "integral":
                stats[field][result] = float(value)
                continue
            point = rows[field].setdefault(int(record.get_time().timestamp() * 1000), [None, None, None])
            if result == "raw":
                point[:] = [float(value) * scale] * 3
            elif result in slot:
                point[slot[result]] = float(value) * scale
    series = []
    for definition in template.series:
        found = stats.get(definition.field, {})
        legend = {key: (found[key] * scale if key in found else None) for key in LEGEND}
        values = rows.get(definition.field, {}).values()
        lows = [p[0] for p in values if p[0] is not None]
        highs = [p[2] for p in values if p[2] is not None]
        legend["minimum"] = min(lows) if lows else None  # lo points are window minima: exact
        legend["maximum"] = max(highs) if highs else None  # hi points are window maxima: exact
        if template.totals:
            integral = found.get("integral")
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
    return {"series": series}
