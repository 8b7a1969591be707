"""Queries for the storage pages (plain data out): means per volume, member or pool over a range, each volume's
pool, capacity history for the forecast, and the series of the iSCSI path page on one time axis. Values travel as
parameters."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta, timezone

from monitor.timeseries import tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import any_of

Series = dict[tuple[str, str], list[tuple[int, float]]]  # (instance, field) -> [(t_ms, value)]


def _predicate(bind: dict, measurement: str, device: str, tag: str, instances: list[str], fields: list[str]) -> str:
    """`r` is one of these series; every value a parameter (tag names come from code)."""
    bind |= {"p_measurement": measurement, "p_device": device}
    terms = ["r._measurement == p_measurement", "r.device == p_device"]
    if instances:
        names = {f"p_i{i}": name for i, name in enumerate(instances)}
        bind |= names
        terms.append(any_of([f"r.{tag} == {key}" for key in names]))
    keys = {f"p_f{i}": name for i, name in enumerate(fields)}
    bind |= keys
    terms.append(any_of([f"r._field == {key}" for key in keys]))
    return " and ".join(terms)


def means(
    measurement: str,
    device: str,
    tag: str,
    fields: list[str],
    start: datetime,
    end: datetime,
    now: datetime | None = None,
) -> dict[tuple[str, str], float]:
    """{(instance, field): mean of every sample in the range}, from the finest tier holding it as at `now` (the
    request's moment; a rollup tier's mean is Σ sum / Σ count of its windows: exact)."""
    tier = tiers.finest_holding(start, now)
    params: dict = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end}
    keep = f' |> keep(columns: ["_value", "_field", "{tag}"])'
    head = "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n  |> filter(fn: (r) => {pred})\n"
    if not tier.step_s:
        pred = _predicate(params, measurement, device, tag, [], fields)
        rows = run(head.format(pred=pred) + f"  |> mean(){keep}\n", params)
        return _finite({(t.group.get(tag, ""), t.group["_field"]): t.rows[0][1] for t in rows if t.rows})
    stored = [f + "_sum" for f in fields] + [f + "_count" for f in fields]
    pred = _predicate(params, measurement, device, tag, [], stored)
    sums: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for table in run(head.format(pred=pred) + f"  |> sum(){keep}\n", params):
        field, _, stat = table.group["_field"].rpartition("_")
        if table.rows:
            sums[(table.group.get(tag, ""), field)][stat] = table.rows[0][1]
    return _finite({k: v["sum"] / v["count"] for k, v in sums.items() if v.get("count") and v.get("sum") is not None})


def windows(
    measurement: str,
    device: str,
    tag: str,
    instances: list[str],
    fields: list[str],
    start: datetime,
    end: datetime,
    every_s: int,
    peaks: bool = False,
    now: datetime | None = None,
) -> tuple[Series, int]:
    """The mean (or, `peaks`, the largest sample) of each field per window of at least `every_s` seconds, on the
    raw samples while raw retention holds the range as at `now`, else on the finest rollup tier holding it (a
    step's mean is Σ sum / Σ count of its windows: hourly windows keep no mean); returns (series, step)."""
    tier = tiers.finest_holding(start, now)
    step = max(every_s, tier.step_s or 1)
    if not tier.step_s:
        stored, fn = {f: f for f in fields}, "max" if peaks else "mean"
    elif peaks:
        stored, fn = {f + "_max": f for f in fields}, "max"
    else:
        stored, fn = {f + s: f for f in fields for s in ("_sum", "_count")}, "sum"
    if tier.step_s:
        step = math.ceil(step / tier.step_s) * tier.step_s
    params: dict = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end, "p_every": timedelta(seconds=step)}
    pred = _predicate(params, measurement, device, tag, instances, list(stored))
    script = (
        "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n"
        f"  |> filter(fn: (r) => {pred})\n"
        f'  |> aggregateWindow(every: p_every, fn: {fn}, createEmpty: false, timeSrc: "_start")\n'
        f'  |> keep(columns: ["_time", "_value", "_field", "{tag}"])\n'
    )
    found: Series = {}
    parts: dict[tuple[str, str], dict[str, dict[int, float]]] = defaultdict(dict)
    for table in run(script, params):
        name = table.group["_field"]
        key = (table.group.get(tag, ""), stored.get(name, name))
        rows = [(t, v) for t, v in table.rows if t is not None and v is not None and math.isfinite(v)]
        if fn == "sum":
            parts[key][name.rpartition("_")[2]] = dict(rows)
        else:
            found[key] = rows
    for key, got in parts.items():
        sums, counts = got.get("sum", {}), got.get("count", {})
        found[key] = [(t, sums[t] / counts[t]) for t in sorted(sums) if counts.get(t)]
    return found, step


def volume_pools(device: str, start: datetime, end: datetime, now: datetime | None = None) -> dict[str, str]:
    """{volume: pool} of this device's volumes whose samples in the range name their pool (the latest naming)."""
    tier = tiers.finest_holding(start, now)
    params = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end, "p_device": device}
    script = (
        "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n"
        '  |> filter(fn: (r) => r._measurement == "volume" and r.device == p_device and exists r.pool)\n'
        '  |> last() |> toFloat() |> keep(columns: ["_time", "_value", "volume", "pool"])\n'
    )
    latest: dict[str, tuple[int, str]] = {}
    for table in run(script, params):
        volume, pool = table.group.get("volume", ""), table.group.get("pool", "")
        for t, _ in table.rows:
            if volume and pool and (volume not in latest or (t or 0) > latest[volume][0]):
                latest[volume] = (t or 0, pool)
    return {volume: pool for volume, (_, pool) in latest.items()}


def capacity_history(
    measurement: str, device: str, tag: str, days: int = 30, now: datetime | None = None
) -> dict[str, list[tuple[float, float, float]]]:
    """{instance: [(epoch s, used bytes, size bytes)]} over the last `days`, one point per 6 hours (the forecast's
    input: enough points for a fit, few enough for a page of hundreds of volumes)."""
    end = now or datetime.now(timezone.utc)
    found, _ = windows(
        measurement, device, tag, [], ["used_bytes", "size_bytes"], end - timedelta(days=days), end, 6 * 3600, now=end
    )
    out: dict[str, list[tuple[float, float, float]]] = {}
    for instance in {i for i, _ in found}:
        sizes = dict(found.get((instance, "size_bytes"), []))
        out[instance] = [
            (t / 1000.0, used, sizes[t]) for t, used in found.get((instance, "used_bytes"), []) if t in sizes
        ]
    return out


def _finite(found: dict) -> dict:
    return {key: value for key, value in found.items() if value is not None and math.isfinite(value)}
