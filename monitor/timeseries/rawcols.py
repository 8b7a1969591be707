"""A device's raw samples as kept in the cache: per series one array of times and one array of values per field
(NaN where a field has no value at that time). A year's chart ends with the newest hourly window, so a page's
every request loaded its device's tail of up to 67 minutes (44,000 values of a 52-port switch) from Redis: as
(time, value) tuples that took 8.7 ms to unpickle, as arrays 0.8 ms (docs/performance.md, scenario 8). Rows are
made only for the series a request asks for."""

from __future__ import annotations

import math
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from monitor.timeseries.client import Table

NAN = float("nan")  # InfluxDB stores no NaN (line protocol has none): here it means "no value"


@dataclass(frozen=True)
class SeriesCols:
    """One series of a device: its tags and measurement, its sample times (ms, ascending) and each field's values."""

    group: dict[str, str]
    times: array  # "q"
    fields: dict[str, array]  # field -> "d", as long as `times`


def from_influxql(found: list[dict]) -> list[SeriesCols]:
    """InfluxQL's series (time first, then a column per field, null where a field has no value) as columns."""
    out = []
    for series in found:
        values = series["values"]
        if not values:
            continue
        group = dict(series.get("tags") or {}) | {"_measurement": series["name"]}
        columns = list(zip(*values, strict=True))
        fields = {
            name: array("d", (NAN if v is None else float(v) for v in column))
            for name, column in zip(series["columns"][1:], columns[1:], strict=True)
            if any(v is not None for v in column)
        }
        if fields:
            out.append(SeriesCols(group, array("q", columns[0]), fields))
    return out


def tables(kept: list[SeriesCols], name: str, wanted: Callable[[dict], bool] | None = None) -> list[Table]:
    """Tables named `name`, one per field with values, for the fields whose group (tags and `_field`) is `wanted`."""
    out = []
    for series in kept:
        for field, values in series.fields.items():
            group = series.group | {"_field": field}
            if wanted is None or wanted(group):
                rows = [(t, v) for t, v in zip(series.times, values, strict=True) if v == v]
                if rows:
                    out.append(Table(name, group, rows))
    return out


def newest_ms(kept: list[SeriesCols]) -> int:
    """The newest sample's time in `kept` (0 when it holds none)."""
    return max((series.times[-1] for series in kept if series.times), default=0)


def cut_to(kept: list[SeriesCols], until_ms: float) -> list[SeriesCols]:
    """`kept` without the samples at or after `until_ms` (itself when it holds none)."""
    if newest_ms(kept) < until_ms:
        return kept
    return merge(kept, [], -math.inf, until_ms)


def merge(kept: list[SeriesCols], fresh: list[SeriesCols], low_ms: float, cut_ms: float) -> list[SeriesCols]:
    """Series by series, the kept samples from `low_ms` until `cut_ms`, then the fresh ones (which start there)."""
    merged: dict[tuple, SeriesCols] = {}
    for series in kept:
        lo, hi = bisect_left(series.times, low_ms), bisect_left(series.times, cut_ms)
        if hi > lo:
            fields = {name: values[lo:hi] for name, values in series.fields.items()}
            merged[_ident(series)] = SeriesCols(series.group, series.times[lo:hi], fields)
    for series in fresh:
        have = merged.get(_ident(series))
        if have is None:
            merged[_ident(series)] = series
            continue
        for name in have.fields.keys() | series.fields.keys():
            values = have.fields.setdefault(name, array("d", [NAN]) * len(have.times))
            values.extend(series.fields.get(name) or array("d", [NAN]) * len(series.times))
        have.times.extend(series.times)
    return list(merged.values())


def _ident(series: SeriesCols) -> tuple:
    return tuple(sorted(series.group.items()))
