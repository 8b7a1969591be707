"""Exact 95th percentiles without reading every value: a lower bound from window minima and counts, then only
the values at or above it (InfluxDB pushes `_value >=` down), then the k-th largest. From raw samples while
raw holds the window, else from 5-minute means (the billing definition), else from hourly means."""

from __future__ import annotations

import math
from datetime import timedelta

from monitor.timeseries import cache, sliding, stats, tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import Params, Plot, any_of, chain, keep_columns, series_predicate
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.plan import Bounds, ReadPlan, Window

BOUND_WINDOWS = 2000  # windows per series for the bound: finer is tighter, coarser reads less


def fill(plots: list[Plot], out: dict, found: dict, span: Window, plan: ReadPlan, defer: bool) -> None:
    """Put every graph's p95 into its legend (already there for few raw samples); `defer` leaves the ones from
    rollups pending unless cached. Graphs whose legend has no percentile (errors, sizes) are left out."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_legends.py, tests/test_legends.py)
    plots = [plot for plot in plots if plot.template.percentile]
    if not plots:
        return
    source, whole = plan.source, plan.source_windows
    if whole is None:
        if plan.shape.windowed and plan.shape.tier.step_s == 0:
            _set(plots, out, _raw(plots, found, span))
        return
    keys = {plot.key: cache.key("p95", source.bucket, plot.template.slug, plot.members, *whole) for plot in plots}
    cached = cache.get_many(list(keys.values()))
    missing = [plot for plot in plots if keys[plot.key] not in cached]
    hits = {
        (plot.key, field): v
        for plot in plots
        if keys[plot.key] in cached
        for field, v in cached[keys[plot.key]].items()
    }
    _set(plots, out, hits)
    if not missing:
        return
    if defer:
        for plot in missing:
            out[plot.key]["p95_pending"] = True
        return
    computed = _from_rollups(missing, whole, source)
    _set(missing, out, computed)
    cache.set_many(
        {keys[p.key]: {f: computed.get((p.key, f)) for f in p.template.fields} for p in missing}, source.step_s
    )


def fill_from_windows(
    plots: list[Plot], out: dict, parts: dict, edges: dict, span: Window, bounds: Bounds, defer: bool
) -> None:
    """The p95 of the raw samples of charts drawn from 5-minute windows (`parts`, see assemble.rollup_part) and
    the raw samples at their edges (see assemble.finish): the windows' counts, means and minima stand in for
    the raw windows `_raw` starts from."""
    # pragma: no mutate block (reads InfluxDB; the arithmetic is in _derived: tests/test_legends.py)
    plots = [plot for plot in plots if plot.template.percentile]
    if defer:
        for plot in plots:
            out[plot.key]["p95_pending"] = True
        return
    head_ms, start_ms, end_ms = bounds.ms()
    derived = {
        (plot.key, item["field"]): _derived(
            item, edges.get((plot.key, item["field"]), {}), plot.scale, head_ms, start_ms, end_ms
        )
        for plot in plots
        for item in parts[plot.key]["series"]
    }
    first = bounds.head or bounds.start
    _set(plots, out, _raw(plots, derived, Window(first, span.end, span.points, span.now)))


def _derived(item: dict, got: dict, scale: float, head_ms: int | None, start_ms: int, end_ms: int) -> dict:
    """What `_raw` starts from, of one series drawn from 5-minute windows: its count, its windows' means (in the
    stored unit) with one more for the raw samples of each edge (head before `start_ms`, tail from `end_ms`), and
    its minimum."""
    acc, n = item["acc"], item["acc"]["n"]
    means = [(t, mean / scale) for t, mean in zip(item["cols"]["t"], item["cols"]["mean"], strict=True)]
    lowest = [acc["lo"]] if acc["lo"] is not None else []
    for name, since, until in (("head", head_ms, start_ms), ("tail", end_ms, None)):
        inside = [
            v
            for t, v in got.get(name, ())
            if v is not None and since is not None and t >= since and (until is None or t < until)
        ]
        if inside:
            means.append((since, sum(inside) / len(inside)))
            n += len(inside)
            lowest = [min([*lowest, *inside])]
    return {"n": [(None, n)], "wmean": means, "lo": [(None, v) for v in lowest]}


def only(plots: list[Plot], span: Window, plan: ReadPlan) -> dict[str, dict]:
    """Just the 95th percentiles (the second request of a page whose first deferred them)."""

    # pragma: no mutate block (reads InfluxDB: tests/test_legends.py)
    out = {plot.key: {"series": [{"field": f, "stats": {"p95": None}} for f in plot.template.fields]} for plot in plots}
    fill(plots, out, {}, span, plan, defer=False)
    for plot in plots:
        out[plot.key]["p95_source"] = plan.p95_source
    return out


def _set(plots: list[Plot], out: dict, values: dict[tuple[str, str], float | None]) -> None:
    for plot in plots:
        for series in out[plot.key]["series"]:
            value = values.get((plot.key, series["field"]))
            if value is not None:
                series["stats"]["p95"] = value * plot.scale


def _raw(plots: list[Plot], found: dict, span: Window) -> dict[tuple[str, str], float | None]:
    """From raw samples. A guess g (the 90th percentile of the chart's window means), then only the samples
    above g are read: if there are at least k, the p95 is the k-th largest of them; if fewer and g is the series'
    minimum, the p95 is that minimum (a constant or mostly idle series sends nothing); else every sample is read."""
    # pragma: no mutate block (reads InfluxDB; the arithmetic is in _guess and _settled: tests/test_legends.py)
    wanted, floors = {}, {}
    for plot in plots:
        for field in plot.template.fields:
            guessed = _guess(found.get((plot.key, field), {}))
            if guessed is not None:
                k, guess, floor = guessed
                wanted[(plot.key, field)] = (plot, k, guess)
                floors[(plot.key, field)] = floor
    bucket = tiers.tiers()[0].bucket
    result, again = _settled(wanted, floors, _at_least(wanted, bucket, span.start, span.end, "", strictly=True))
    return result | _at_least(again, bucket, span.start, span.end, "")


def _guess(got: dict) -> tuple[int, float, float] | None:
    """(k, guess, minimum) of a series' figures: the rank from the top of its 95th percentile, a guess at or below
    it (the 90th percentile of its window means, at least its minimum) and its minimum; None without samples."""
    n = int(sum(v for _, v in got.get("n", ()) if v))
    means = sorted(v for _, v in got.get("wmean", ()) if v is not None)
    lowest = [v for _, v in got.get("lo", ()) if v is not None]
    if not (n and means and lowest):
        return None
    return stats.rank_from_top(n), max(lowest[0], means[int(0.9 * len(means))]), lowest[0]


def _settled(wanted: dict, floors: dict, above: dict) -> tuple[dict, dict]:
    """The 95th percentiles the read above each guess settles, and the series to read again in full."""
    result, again = {}, {}
    for key, (plot, k, guess) in wanted.items():
        if above.get(key) is not None:
            result[key] = above[key]
        elif guess <= floors[key]:
            result[key] = floors[key]  # fewer than k samples above the minimum: the k-th largest is the minimum
        else:
            again[key] = (plot, k, None)
    return result, again


def _from_rollups(plots: list[Plot], whole: tuple, source: tiers.Tier) -> dict[tuple[str, str], float | None]:
    """From each 5-minute (or hourly) window's mean, over the whole windows of the range: from the values kept
    when the range was read before (monitor.timeseries.sliding), else read in full."""
    # pragma: no mutate block (reads InfluxDB: tests/test_legends.py, tests/test_planted_legends.py)
    start, end = whole
    if end <= start:
        return {}
    if source.name != "5m":  # hourly windows keep no mean: read sums and counts (ranges past 5-minute retention)
        return _hourly(plots, start, end, source)
    found, full = sliding.slide(plots, start, end, source.bucket)
    again = [plot for plot in plots if any((plot.key, field) in full for field in plot.template.fields)]
    return found | (_full_read(again, start, end, source) if again else {})


def _full_read(plots: list[Plot], start, end, source: tiers.Tier) -> dict[tuple[str, str], float | None]:
    """A lower bound per series from coarse windows' minima and counts, then its values at or above it (kept)."""
    # pragma: no mutate block (reads InfluxDB; the arithmetic is in _bound_window_s, stats: tests/test_legends.py)
    bucket_s = _bound_window_s((end - start).total_seconds())
    bind, lookup = Params(), Lookup()
    preds = []
    for plot in plots:
        for field in plot.template.fields:
            lookup.register(plot, plot.members[0], field + "_mean", field)
        preds.append(
            series_predicate(plot.template, plot.members[0], [f + "_mean" for f in plot.template.fields], bind)
        )
    pred, keep = any_of(preds), keep_columns(plots)
    bucket = bind(source.bucket)
    tail = '|> aggregateWindow(every: p_every, fn: {}, createEmpty: false, timeSrc: "_start")'
    script = chain(bucket, pred, tail.format("min"), keep, "bmin") + chain(
        bucket, pred, tail.format("count"), keep, "bcount"
    )
    found = lookup.index(
        run(script, {"p_start": start, "p_stop": end, "p_every": timedelta(seconds=bucket_s)} | bind.values)
    )
    wanted, counted = {}, {}
    for plot in plots:
        for field in plot.template.fields:
            got = found.get((plot.key, field), {})
            counts = dict(got.get("bcount", ()))
            windows = [(v, counts.get(t, 0.0)) for t, v in got.get("bmin", ()) if v is not None]
            n = int(sum(c for _, c in windows))
            if n:
                k = stats.rank_from_top(n)
                wanted[(plot.key, field)] = (plot, k, stats.lower_bound(windows, k))
                counted[(plot.key, field)] = n
    values = _above(wanted, source.bucket, start, end, "_mean", timed=True)
    sliding.keep(
        {key: (plot, counted[key], bound) for key, (plot, _, bound) in wanted.items()},
        start,
        end,
        source.bucket,
        values,
    )
    return {key: _kth(values.get(key, []), k) for key, (_, k, _) in wanted.items()}


def _bound_window_s(seconds: float) -> int:
    """The coarse windows of a range for its lower bound: BOUND_WINDOWS of them, of whole 5-minute windows, an
    hour at least."""
    return max(3600, math.ceil(seconds / BOUND_WINDOWS / 300) * 300)


def _kth(rows: list, k: int) -> float | None:
    values = [v for _, v in rows if v is not None]
    return stats.kth_largest(values, k) if len(values) >= k else None


def _at_least(
    wanted: dict, bucket_name: str, start, end, suffix: str, strictly: bool = False
) -> dict[tuple[str, str], float | None]:  # pragma: no mutate block (its defaults too)
    """Read each series' values at or above its bound (`strictly` above), in one script; the k-th largest of
    them is its p95 when there are at least k (else None)."""
    # pragma: no mutate block (reads InfluxDB: tests/test_legends.py)
    found = _above(wanted, bucket_name, start, end, suffix, strictly)
    return {key: _kth(found.get(key, []), k) for key, (_, k, _) in wanted.items()}


def below(bound: float) -> float:
    """A bound to send InfluxDB for values at or above `bound`: a little below it. A query's parameters reach it to
    16 significant digits (19047.619047619046 arrives as 19047.61904761905), so a window mean equal to the bound,
    often the very value a 95th percentile is, was left out and the percentile missing; values read a little below
    it are values of the series too, so the k-th largest of what is read is still the series' own."""
    return bound - abs(bound) * 1e-14


def _above(
    wanted: dict, bucket_name: str, start, end, suffix: str, strictly: bool = False, timed: bool = False
) -> dict[tuple[str, str], list]:  # pragma: no mutate block (its defaults too)
    """{key: rows (t ms or None, value)} of each series' values at or above its bound (`strictly` above)."""
    # pragma: no mutate block (reads InfluxDB: tests/test_legends.py)
    if not wanted:
        return {}
    bind, lookup = Params(), Lookup()
    preds = []
    for (_, field), (plot, _, bound) in wanted.items():
        lookup.register(plot, plot.members[0], field + suffix, field)
        at_least = bind(below(float(bound))) if bound is not None else ""
        preds.append(
            series_predicate(plot.template, plot.members[0], [field + suffix], bind, at_least, strictly=strictly)
        )
    plots = list({plot.key: plot for plot, _, _ in wanted.values()}.values())
    script = chain(bind(bucket_name), any_of(preds), "", keep_columns(plots, timed=timed), "p95")
    found = lookup.index(run(script, {"p_start": start, "p_stop": end} | bind.values))
    return {key: [row for row in found.get(key, {}).get("p95", ()) if row[1] is not None] for key in wanted}


def _hourly(plots: list[Plot], start, end, source: tiers.Tier) -> dict[tuple[str, str], float | None]:
    """From hourly windows' means (their sums over their counts): ranges past 5-minute retention."""
    # pragma: no mutate block (reads InfluxDB; the arithmetic is in _of_means: tests/test_legends.py)
    bind, lookup = Params(), Lookup()
    preds = []
    for plot in plots:
        names = []
        for field in plot.template.fields:
            for stat in ("_sum", "_count"):
                lookup.register(plot, plot.members[0], field + stat, field + stat)
                names.append(field + stat)
        preds.append(series_predicate(plot.template, plot.members[0], names, bind))
    script = chain(bind(source.bucket), any_of(preds), "", keep_columns(plots), "hourly")
    found = lookup.index(run(script, {"p_start": start, "p_stop": end} | bind.values))
    result = {}
    for plot in plots:
        for field in plot.template.fields:
            sums = found.get((plot.key, field + "_sum"), {}).get("hourly", ())
            counts = found.get((plot.key, field + "_count"), {}).get("hourly", ())
            result[(plot.key, field)] = _of_means(sums, counts)
    return result


def _of_means(sums, counts) -> float | None:
    """The 95th percentile of windows' means from their (t, sum) and (t, count) rows; windows without both left out."""
    by_time = dict(counts)
    return stats.percentile([s / by_time[t] for t, s in dict(sums).items() if s is not None and by_time.get(t)])
