"""Latency percentiles that add up, from the arrays' own latency histograms (NIMBLE-MIB's 13 read and 13 write
buckets a volume, kept each poll as the count of I/Os of the interval in each bucket: `<op>_lat_<bound>` fields of
the `volume` measurement). Counts add: over any range, for one volume, several or a whole array, the bucket
counts are summed (raw samples, or the rollups' sums where the range reaches past the raw retention) and the q-th
percentile is the upper bound of the bucket that holds the q-th I/O: exact to the bucket's resolution, where an
average of averages, or a percentile of per-poll means, is not."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from collectors.histograms import BUCKETS, OPS, bound_text, fields, percentile
from monitor.timeseries import tiers
from monitor.timeseries.client import run

__all__ = ["BUCKETS", "OPS", "QUANTILES", "Percentiles", "bound_text", "counts", "fields", "percentile", "percentiles"]

QUANTILES = (0.5, 0.95, 0.99)
RAW_UP_TO = timedelta(hours=6)  # longer ranges are summed from the 5-minute windows

_READ = """from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)
  |> filter(fn: (r) => r._measurement == "volume" and r.device == p_device and ({fields}))
  |> group(columns: ["_field", "volume"]) |> sum()
"""


@dataclass
class Percentiles:
    """One direction's I/O count and its percentiles (q -> upper bound in ms) over a range."""

    ios: float
    at: dict[float, float | None]


def counts(
    device: str, start: datetime, end: datetime, now: datetime, volume: str | None = None
) -> dict[str, dict[str, float]]:
    """{volume: {bucket field: I/Os}} of the device (or of one `volume`) over [start, end); {} where the array serves
    no histogram. A range of up to RAW_UP_TO is summed from the raw samples; a longer one, or one the raw retention
    no longer holds, from the 5-minute windows (their sums: the same counts, 300 times fewer points; their whole
    windows, the one still open not yet)."""
    tier = tiers.finest_holding(start, now)
    if not tier.step_s and end - start > RAW_UP_TO:
        tier = next((t for t in tiers.tiers() if t.step_s and t.holds(start, now)), tier)
    names = [f for op in OPS for f in fields(op)]
    stored = [f"{name}_sum" for name in names] if tier.step_s else names
    params: dict = {"p_bucket": tier.bucket, "p_start": start, "p_stop": end, "p_device": device}
    params |= {f"p_f{i}": name for i, name in enumerate(stored)}
    predicate = " or ".join(f"r._field == p_f{i}" for i in range(len(stored)))
    if volume is not None:
        predicate, params["p_volume"] = f"({predicate}) and r.volume == p_volume", volume
    found: dict[str, dict[str, float]] = {}
    for table in run(_READ.replace("{fields}", predicate), params):
        name = table.group.get("_field", "").removesuffix("_sum")
        volume = table.group.get("volume", "")
        found.setdefault(volume, {})[name] = sum(v for _, v in table.rows if v is not None)
    return found


def percentiles(*volumes: dict[str, float]) -> dict[str, Percentiles]:
    """{op: Percentiles} of these volumes' bucket counts together (one volume, several, a whole array)."""
    out = {}
    for op in OPS:
        summed = [sum(volume.get(name, 0.0) for volume in volumes) for name in fields(op)]
        out[op] = Percentiles(sum(summed), {q: percentile(summed, q) for q in QUANTILES})
    return out


def table(found: dict[str, dict[str, float]]) -> list[dict]:
    """Rows for a page: the whole array first, then each volume by name; each with its I/Os and percentiles as text
    per direction."""
    if not found:
        return []
    rows = [("the whole array", percentiles(*found.values()))]
    rows += [(volume, percentiles(found[volume])) for volume in sorted(found, key=str.casefold)]
    return [
        {"name": name, **{op: {"ios": p.ios, "at": [bound_text(p.at[q]) for q in QUANTILES]} for op, p in got.items()}}
        for name, got in rows
    ]
