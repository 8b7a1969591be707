"""Home-page rankings (busiest ports, hottest sensors, slowest volumes) and the volume latency heatmap."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime, timedelta

from monitor.timeseries import cache, tiers
from monitor.timeseries.client import run

_READ = """from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)
  |> filter(fn: (r) => r._measurement == p_measurement and ({fields}))
"""


def _fields(names: list[str]) -> tuple[str, dict[str, str]]:
    """A field predicate InfluxDB pushes down (equalities, not `contains`), and its parameters."""
    params = {f"p_f{i}": name for i, name in enumerate(names)}
    return " or ".join(f"r._field == {key}" for key in params), params


def _run(script: str, params: dict, fields: list[str]):
    predicate, names = _fields(fields)
    return run(script.replace("{fields}", predicate), params | names)


def _per_series(
    measurement: str, fields: list[str], tag: str, start: datetime, end: datetime, fn: str, now: datetime | None
) -> dict:
    """{(device, tag value, field): mean or max over the range} from the finest tier holding the range, kept for
    one window of that tier (a minute for raw samples): a ranking reads every port of every device (208,000
    series at 2,000 switches), and one a window old differs by that window's share of the range at most."""
    tier = tiers.finest_holding(start, now)
    keep_s = tier.step_s or 60
    slot = (int(start.timestamp()) // keep_s, int(end.timestamp()) // keep_s)
    key = cache.key("top", measurement, tuple(fields), tag, fn, tier.bucket, *slot)
    found = cache.get_many([key]).get(key)
    if found is None:
        found = _read_per_series(tier, measurement, fields, tag, start, end, fn)
        cache.set_many({key: found}, keep_s, windows=1)
    return found


def _read_per_series(
    tier: tiers.Tier, measurement: str, fields: list[str], tag: str, start: datetime, end: datetime, fn: str
) -> dict:
    keep = f' |> keep(columns: ["_value", "_field", "device", "{tag}"])'
    params = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end, "p_measurement": measurement}
    if not tier.step_s:
        rows = _run(_READ + f"  |> {fn}(){keep}\n", params, fields)
        return _highest(((t.group.get("device", ""), t.group.get(tag, ""), t.group["_field"]), t.rows) for t in rows)
    if fn == "max":
        rows = _run(_READ + f"  |> max(){keep}\n", params, [f + "_max" for f in fields])
        return _highest(
            ((t.group.get("device", ""), t.group.get(tag, ""), t.group["_field"][:-4]), t.rows) for t in rows
        )
    stored = [f + "_sum" for f in fields] + [f + "_count" for f in fields]
    sums: dict[tuple, dict[str, float]] = defaultdict(dict)
    for table in _run(_READ + f"  |> sum(){keep}\n", params, stored):
        field, _, stat = table.group["_field"].rpartition("_")
        sums[(table.group.get("device", ""), table.group.get(tag, ""), field)][stat] = table.rows[0][1]
    return {key: got["sum"] / got["count"] for key, got in sums.items() if got.get("count") and "sum" in got}


def _highest(tables) -> dict:
    """{key: value} from (key, rows) pairs, the highest value where series share a key: two controllers' sensors of
    one name (a Dell SC's "CPU One" on each) are one line of a ranking, at the hotter one's figure, not at whichever
    InfluxDB listed first (once `keep` drops the tag telling them apart, their rows share one table)."""
    found: dict = {}
    for key, rows in tables:
        for _, value in rows:
            if value is not None and (found.get(key) is None or value > found[key]):
                found[key] = value
    return found


def _finite(found: dict) -> dict:
    return {key: value for key, value in found.items() if value is not None and math.isfinite(value)}


def port_averages(
    start: datetime, end: datetime, now: datetime | None = None, fn: str = "mean"
) -> dict[tuple[str, str], dict[str, float]]:
    """{(device, port): {"in_bps": mean, "out_bps": mean}} over the range (`fn="max"`: the highest samples)."""
    found: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (device, port, field), value in _finite(
        _per_series("interface", ["in_bps", "out_bps"], "port", start, end, fn, now)
    ).items():
        found[(device, port)][field] = value
    return dict(found)


def port_counts(start: datetime, end: datetime, now: datetime | None = None) -> dict[tuple[str, str], dict[str, float]]:
    """{(device, port): {"in_discards": highest, ...}} of each port's discards and errors per second over the range."""
    fields = ["in_discards", "out_discards", "in_errors", "out_errors"]
    found: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for (device, port, field), value in _finite(
        _per_series("interface", fields, "port", start, end, "max", now)
    ).items():
        found[(device, port)][field] = value
    return dict(found)


def hottest_sensors(
    start: datetime, end: datetime, limit: int = 10, now: datetime | None = None
) -> list[tuple[str, str, float]]:
    """[(device, sensor name, highest value)] of sensors over the range, hottest first."""
    found = _finite(_per_series("sensor", ["value"], "name", start, end, "max", now))
    ranked = sorted(((d, n, v) for (d, n, _), v in found.items()), key=lambda item: -item[2])
    return ranked[:limit]


def slowest_volumes(
    start: datetime, end: datetime, limit: int = 10, now: datetime | None = None
) -> list[tuple[str, str, float, float]]:
    """[(device, volume, worst latency ms, mean latency ms)] over the range, the worst first: the highest sample of
    either direction (a five-minute spike to 65 ms is what a user must see, not the day's mean of 6.8 ms), and the
    mean of the slower direction beside it."""
    fields = ["read_latency_ms", "write_latency_ms"]
    peaks = _finite(_per_series("volume", fields, "volume", start, end, "max", now))
    means = _finite(_per_series("volume", fields, "volume", start, end, "mean", now))
    worst: dict[tuple[str, str], list[float]] = {}
    for (device, volume, field), value in peaks.items():
        row = worst.setdefault((device, volume), [0.0, 0.0])
        row[0] = max(row[0], value)
        row[1] = max(row[1], means.get((device, volume, field), 0.0))
    ranked = sorted(((d, v, peak, mean) for (d, v), (peak, mean) in worst.items()), key=lambda item: -item[2])
    return ranked[:limit]


def latency_heatmap(
    device: str,
    field: str,
    start: datetime,
    end: datetime,
    columns: int,
    min_step_s: int = 60,
    now: datetime | None = None,
) -> dict:
    """The worst latency per (volume, time column): {"times": [ms], "volumes": [...], "values": [[ms or None]]};
    a column spans at least `min_step_s` (the device's poll interval) on raw samples. The worst, not the mean: a
    five-minute spike stays red in a week's view (a column of 25 minutes would average it to green). Tiers as at
    `now`, the request's moment."""
    tier = tiers.finest_holding(start, now)
    every = max(tier.step_s or max(5, min_step_s), math.ceil((end - start).total_seconds() / max(columns, 1)))
    if tier.step_s:
        every = math.ceil(every / tier.step_s) * tier.step_s
    script = (
        "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n"
        '  |> filter(fn: (r) => r._measurement == "volume" and r.device == p_device and r._field == p_field)\n'
        '  |> aggregateWindow(every: p_every, fn: max, createEmpty: false, timeSrc: "_start")\n'
        '  |> keep(columns: ["_time", "_value", "_field", "volume"])\n'
    )
    params = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end, "p_device": device}
    params |= {"p_every": timedelta(seconds=every), "p_field": field + "_max" if tier.step_s else field}
    cells: dict[str, dict[int, float]] = defaultdict(dict)
    for table in run(script, params):
        for t, value in table.rows:
            if value is not None and math.isfinite(value):
                volume = table.group.get("volume", "")
                cells[volume][t] = max(value, cells[volume].get(t, value))
    times = sorted({t for row in cells.values() for t in row})
    volumes = sorted(cells)
    return {
        "times": times,
        "volumes": volumes,
        "values": [[cells[v].get(t) for t in times] for v in volumes],
        "resolution_s": every,
    }
