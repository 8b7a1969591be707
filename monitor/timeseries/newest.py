"""A rollup chart's `current` where its raw tail holds no sample (the device silent, or its newest rates gaps): the
newest raw sample of the range while raw retention holds it (docs/graphs.md "Legends"), not the newest window's
mean, which mixes older samples into a figure that says "now". Kept per graph and newest window, as the windows are:
a page of a silent device reads it once per window, not once per request."""

from __future__ import annotations

from datetime import datetime, timedelta

from monitor.timeseries import cache, tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import Params, Plot, chain, keep_columns
from monitor.timeseries.gather import series_of
from monitor.timeseries.lookup import Lookup

RESULT = "newest"


def without_tail(plots: list[Plot], parts: dict, edges: dict, end_ms: int) -> list[Plot]:
    """The graphs with a field whose windows (`parts`, assemble.rollup_part's) hold samples and whose raw tail (from
    `end_ms`, `edges.read`'s rows) holds none: a field with no sample in the range has no newest one to read."""

    def silent(plot: Plot, field: str) -> bool:
        rows = edges.get((plot.key, field), {}).get("tail", ())
        if any(t >= end_ms and v is not None for t, v in rows):
            return False
        return any(item["field"] == field and item["acc"]["n"] for item in parts[plot.key]["series"])

    return [plot for plot in plots if any(silent(plot, field) for field in plot.template.fields)]


def newest(plots: list[Plot], start: datetime, end: datetime, now: datetime, step_s: int) -> dict:
    """{(plot key, field): value} of each graph's newest raw sample from `start` (or raw retention's floor, if
    later) to `end`, the end of its newest window (of `step_s`); none for a field with no sample there."""
    raw = tiers.tiers()[0]
    floor = raw.floor(now)
    since = max(start, floor) if floor is not None else start
    if not plots or since >= end:
        return {}
    # read from the day holding the floor (or the range's start): the same all day, so kept by it for a window
    origin = floor if floor is not None else start
    origin = origin - timedelta(seconds=origin.timestamp() % 86400)
    keys = {plot.key: cache.key(RESULT, raw.bucket, plot.template.slug, plot.members, origin, end) for plot in plots}
    kept = cache.get_many(list(keys.values()))
    found = {plot.key: kept[keys[plot.key]] for plot in plots if keys[plot.key] in kept}
    if missing := [plot for plot in plots if plot.key not in found]:
        read = _read(missing, origin, end)
        fresh = {plot.key: {f: tv for (k, f), tv in read.items() if k == plot.key} for plot in missing}
        cache.set_many({keys[key]: value for key, value in fresh.items()}, step_s)
        found |= fresh
    since_ms = since.timestamp() * 1000
    return {(key, f): v for key, fields in found.items() for f, (t, v) in fields.items() if t >= since_ms}


def _read(plots: list[Plot], since: datetime, until: datetime) -> dict[tuple[str, str], tuple[int, float]]:
    """{(plot key, field): (t ms, value)} of the graphs' newest raw samples from `since` to `until`."""
    bind, lookup = Params(), Lookup()
    predicate = series_of(plots, bind, lookup)
    script = chain(bind(tiers.tiers()[0].bucket), predicate, "|> last()", keep_columns(plots), RESULT)
    out = {}
    for key, results in lookup.index(run(script, {"p_start": since, "p_stop": until} | bind.values)).items():
        rows = [(t, v) for t, v in results.get(RESULT, ()) if v is not None]
        if rows:
            out[key] = rows[-1]
    return out
