"""95th percentiles of long ranges (5-minute means) kept up to date as the range slides. A year's percentile
reads about 5 % of a year of means per series (seconds for a page); its answer changes with every 5-minute
window. So the values at or above the percentile's lower bound are kept per series with their times; when the
range has moved on, only the windows that left it are counted and those that entered it are read. Exact: the
kept values are every value of the range at or above the bound, so while at least k remain the k-th largest is
among them; when fewer remain the series is read in full again."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from datetime import datetime

from monitor.timeseries import cache, stats
from monitor.timeseries.client import run
from monitor.timeseries.flux import Params, Plot, any_of, chain, keep_columns, series_predicate
from monitor.timeseries.lookup import Lookup

KEPT_S = 3 * 3600  # kept this long after the last view: a year of one series keeps ~9,000 values (140 KB)
Key = tuple[str, str]  # (plot key, field)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _state_key(plot: Plot, field: str, bucket: str, start: datetime, end: datetime) -> str:
    """Per series and length of window in hours: the whole windows of "the last year" are 5 minutes fewer at
    some moments than at others (cache.aligned), and a month's and a year's views keep their own values."""
    hours = round((end - start).total_seconds() / 3600)
    return cache.key("p95-kept", bucket, plot.template.slug, plot.members, field, hours)


def slide(plots: list[Plot], start: datetime, end: datetime, bucket: str) -> tuple[dict[Key, float | None], set[Key]]:
    """The percentiles of [start, end) found from kept values, and the series that need a full read."""
    series = {(p.key, f): p for p in plots for f in p.template.fields}
    keys = {key: _state_key(plot, key[1], bucket, start, end) for key, plot in series.items()}
    states = cache.get_many(list(keys.values()))
    first, last = _ms(start), _ms(end)
    usable = {
        key: states[keys[key]]
        for key in series
        if keys[key] in states and states[keys[key]]["start"] <= first < states[keys[key]]["end"] <= last
    }
    full = set(series) - set(usable)
    changes = _changes({key: (series[key], state) for key, state in usable.items()}, start, end, bucket)
    found, kept = {}, {}
    for key, state in usable.items():
        gone, entered = changes.get(key, (0, []))
        cut = bisect_left(state["t"], first)  # kept in time order: what left the range is a prefix
        times, values = state["t"][cut:], state["v"][cut:]
        for t, v in sorted(entered):
            if v >= state["bound"]:
                times.append(t)
                values.append(v)
        n = state["n"] - gone + len(entered)
        k = stats.rank_from_top(n) if n > 0 else 0
        if k and len(values) >= k:
            found[key] = sorted(values)[-k]
            kept[keys[key]] = state | {"start": first, "end": last, "n": n, "t": times, "v": values}
        else:
            full.add(key)
    cache.set_many(kept, KEPT_S, windows=1)
    return found, full


def keep(wanted: dict, start: datetime, end: datetime, bucket: str, values: dict[Key, list]) -> None:
    """Keep what a full read found: `wanted` {key: (plot, n, bound)}, `values` {key: [(t ms, v) >= bound]}."""
    states = {
        _state_key(plot, key[1], bucket, start, end): _state(_ms(start), _ms(end), n, bound, values.get(key, []))
        for key, (plot, n, bound) in wanted.items()
    }
    cache.set_many(states, KEPT_S, windows=1)


def _state(first: int, last: int, n: int, bound: float | None, pairs: list) -> dict:
    """Times and values in time order as machine-number columns: a year of a page's kept values loads in
    milliseconds, and what leaves the range is cut off in one slice."""
    pairs = sorted(pairs)
    return {
        "start": first,
        "end": last,
        "n": n,
        "bound": float("-inf") if bound is None else bound,
        "t": array("q", [t for t, _ in pairs]),
        "v": array("d", [v for _, v in pairs]),
    }


def _changes(usable: dict[Key, tuple[Plot, dict]], start: datetime, end: datetime, bucket: str) -> dict:
    """{key: (windows that left the range, [(t ms, mean)] of those that entered it)}: one script, a pair of
    reads per distinct kept range (a page's series were usually kept together)."""
    groups: dict[tuple[int, int], list[tuple[Key, Plot]]] = {}
    for key, (plot, state) in usable.items():
        groups.setdefault((state["start"], state["end"]), []).append((key, plot))
    bind, lookup, script, params = Params(), Lookup(), "", {}
    name = bind(bucket)
    # The columns of every group's chains from every graph the lookup holds: a group of one device's graphs must
    # still name the device when the script reads several (keep_columns leaves out what its graphs share).
    everyone = [plot for plot, _ in usable.values()]
    kept, counted = keep_columns(everyone), keep_columns(everyone, timed=False)
    for number, ((old_start, old_end), members) in enumerate(groups.items()):
        preds = []
        for (_, field), plot in members:
            lookup.register(plot, plot.members[0], field + "_mean", field)
            preds.append(series_predicate(plot.template, plot.members[0], [field + "_mean"], bind))
        pred = any_of(preds)
        left = datetime.fromtimestamp(old_start / 1000, start.tzinfo)
        came = datetime.fromtimestamp(old_end / 1000, start.tzinfo)
        if left < start:
            params |= {f"g{number}_start": left, f"g{number}_stop": start}
            script += chain(name, pred, "|> count()", counted, f"gone{number}", f"g{number}")
        if came < end:
            params |= {f"e{number}_start": came, f"e{number}_stop": end}
            script += chain(name, pred, "", kept, f"came{number}", f"e{number}")
    if not script:
        return {}
    out: dict = {}
    for key, results in lookup.index(run(script, params | bind.values)).items():
        gone = sum(int(v or 0) for name, rows in results.items() if name.startswith("gone") for _, v in rows)
        came = [(t, v) for name, rows in results.items() if name.startswith("came") for t, v in rows if v is not None]
        out[key] = (gone, came)
    return out
