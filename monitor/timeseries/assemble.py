"""A graph's JSON from what its read returned: points [t ms, min, mean, max] and the legend, by the rules of
docs/graphs.md (averages of every sample, extremes of every sample, totals by what each sample's counter delta
covers: its span)."""

from __future__ import annotations

import time
from array import array
from collections import defaultdict
from itertools import chain

from collectors.rollup import MOVED, MOVED_SCALE, SPAN
from monitor.timeseries import stats
from monitor.timeseries.flux import Plot
from monitor.timeseries.intervals import Polled
from monitor.timeseries.plan import Layout, ReadPlan, Window


def graph(plot: Plot, found: dict, plan: ReadPlan, interval: int | Polled) -> dict:
    """One graph's JSON from raw samples: points [t ms, min, mean, max] scaled, and the legend (p95 later);
    `interval`: the intervals its device was polled at (monitor/timeseries/intervals.py), or today's."""
    series = []
    spans = spans_of(found, plot)
    for definition in plot.template.series:
        got = found.get((plot.key, definition.field), {})
        moved = moved_of(found, plot, definition.field)
        if plan.shape.windowed:
            summed = _only(found.get((plot.key, MOVED.get(definition.field, "")), {}), "msum")
            points, legend = _from_windows(got, plot.template.totals, interval, spans, moved, summed)
        else:
            points, legend = _from_samples(got.get("raw", []), plot.template.totals, interval, spans, moved)
        series.append(_series(plot, definition, points, legend))
    return meta(plot, plan.shape) | {"p95_source": p95_source(plot, plan), "series": series}


def spans_of(found: dict, plot: Plot) -> dict[int, float]:
    """{t ms: span} of a graph's samples (their `span_s`, of every read that returned it)."""
    return stats.by_time(chain.from_iterable(found.get((plot.key, SPAN), {}).values()))


def moved_of(found: dict, plot: Plot, field: str) -> dict[int, float]:
    """{t ms: what the rate moved, in its unit x s} of a graph's samples of `field` (their bytes, of every read
    that returned them; none for fields without)."""
    name = MOVED.get(field)
    if name is None:
        return {}
    return stats.by_time(chain.from_iterable(found.get((plot.key, name), {}).values()), MOVED_SCALE)


def rollup_part(plot: Plot, found: dict, shape: Layout) -> dict:
    """A graph's windows from a rollup tier, scaled, with the sums behind its legend (`acc`): what is cached until
    the next window, and finished per request with the samples since (`finish`). The windows are kept as columns
    of machine numbers (`cols`): a page reads 20 graphs' worth from the cache per request, and columns load
    25 times as fast as rows of Python numbers (docs/performance.md)."""
    series = []
    for definition in plot.template.series:
        points, acc = _from_rollup(found.get((plot.key, definition.field), {}))
        cols = columns(points, plot.scale)
        series.append({"field": definition.field, "label": definition.label, "cols": cols, "acc": acc})
    return meta(plot, shape) | {"series": series, "_read_at": time.time()}


NAN = float("nan")


def columns(points: list, scale: float) -> dict:
    """Rows (t ms, min, mean, max[, samples]) as columns scaled: "t" (int64), "mean" and "max" (float64), "min"
    only where some window has one (a missing minimum is NaN), and "n" (int64, each point's samples: kept in the
    cache, never answered) where the rows carry it, so the raw samples at a chart's edges can join the point of
    their grid interval exactly (`finish`)."""
    cols = {
        "t": array("q", [p[0] for p in points]),
        "mean": array("d", [p[2] * scale for p in points]),
        "max": array("d", [p[3] * scale for p in points]),
    }
    if any(p[1] is not None for p in points):
        cols["min"] = array("d", [NAN if p[1] is None else p[1] * scale for p in points])
    if points and all(len(p) > 4 for p in points):
        cols["n"] = array("q", [p[4] for p in points])
    return cols


def points_of(cols: dict) -> list[list]:
    """The [t ms, min, mean, max] points of `columns` (min None where there is none)."""
    if "min" not in cols:
        return [[t, None, mean, high] for t, mean, high in zip(cols["t"], cols["mean"], cols["max"], strict=True)]
    found = zip(cols["t"], cols["min"], cols["mean"], cols["max"], strict=True)
    return [[t, None if low != low else low, mean, high] for t, low, mean, high in found]


def finish(
    plot: Plot,
    part: dict,
    edges: dict,
    plan: ReadPlan,
    span: Window,
    interval: int | Polled,
    columns: bool = False,
    newest: dict | None = None,
) -> dict:
    """The graph of a cached `part` and the raw samples of `edges` before its first window and after its newest:
    they are more points (partial windows, and the windows not yet written: one a chart interval, on the grid of the
    cached ones) and count in every figure of the legend. `columns`: the series carry `cols` (lists "t", "mean",
    "max" and maybe "min") instead of `points`, made from the cached machine arrays at C speed (a page's answer;
    rows of Python lists cost 17 ms per 20 graphs). The edges and the 95th percentile's source are the request's
    (`plan`): a cached part serves every range whose start lies in its first window. `newest`: {(plot key, field):
    value} of the newest raw sample before the tail, `current` where the tail holds none
    (monitor/timeseries/newest.py)."""
    assert plan.bounds is not None  # a rollup chart's plan
    head_ms, start_ms, end_ms = plan.bounds.ms()
    every_ms = part["resolution_s"] * 1000
    floor_ms = int(span.start.timestamp() * 1000)
    series = []
    spans = spans_of(edges, plot)
    for item in part["series"]:
        acc, cols = item["acc"], item["cols"]
        heads, tails = [], []
        n, summed, lowest, highest, current = acc["n"], acc["sum"], acc["lo"], acc["hi"], acc["current"]
        total = acc["total"] if len(cols["t"]) else None
        current = (newest or {}).get((plot.key, item["field"]), current)
        got = edges.get((plot.key, item["field"]), {})
        for name, since, until in (("head", head_ms, start_ms), ("tail", end_ms, None)):
            rows = [(t, v) for t, v in got.get(name, ()) if v is not None]
            inside = [(t, v) for t, v in rows if since is not None and t >= since and (until is None or t < until)]
            if not inside:
                continue
            values = [v for _, v in inside]
            # a point per interval of the chart's grid, timed at its start (the range's, where it cuts the first)
            (heads if name == "head" else tails).extend(edge_points(inside, floor_ms, every_ms, plot.scale))
            n, summed = n + len(values), summed + sum(values)
            lowest = min(values) if lowest is None else min(lowest, *values)
            highest = max(values) if highest is None else max(highest, *values)
            if name == "tail":
                current = values[-1]
            if plot.template.totals:
                moved = moved_of(edges, plot, item["field"])
                total = (total or 0.0) + stats.total_between(rows, since, until, interval, spans, moved)
        legend = _legend(current, summed / n if n else None, lowest, highest, plot.template.totals, total)
        joined = _joined(cols, heads, tails, with_min=not columns)
        joined = _on_the_grid(joined, cols, heads, tails, every_ms)
        if joined["t"]:  # the range's first interval: its point at the range's start, whatever fills it
            joined["t"][0] = max(_slot(joined["t"][0], every_ms), floor_ms)
        if columns:
            found = _scaled(plot, item["field"], item["label"], [], legend)
            del found["points"]
            series.append(found | {"cols": joined})
        else:
            series.append(_scaled(plot, item["field"], item["label"], points_of(joined), legend))
    kept = {k: v for k, v in part.items() if k != "series" and not k.startswith("_")}
    return kept | {"p95_source": p95_source(plot, plan), "series": series}


def edge_points(rows: list[tuple[int, float]], since: int, every_ms: int, scale: float) -> list[list]:
    """Points (scaled, each with its samples) of raw samples from `since` on: one for each interval of the chart's
    grid they fall in, as the rollup windows there will be once written (stats.edge_windows)."""
    drawn = stats.edge_windows(rows, since, every_ms)
    return [[t, lo * scale, mid * scale, hi * scale, n] for t, lo, mid, hi, n in drawn]


def _on_the_grid(joined: dict, cols: dict, heads: list, tails: list, every_ms: int) -> dict:
    """One point per interval of the chart's grid: where the newest cached windows fill only part of an interval
    (hourly windows on a 3-hour grid) the raw tail's first point lies in the same interval, and so may the raw
    head's last point and the first cached windows: each such pair becomes one point of every sample of both (the
    mean weighted by their samples), timed at the earlier (the interval's start, or the range's where it is cut)."""
    counts = cols.get("n")
    if counts is None or not len(cols["t"]):
        return joined
    drop = []
    if tails and _slot(tails[0][0], every_ms) == _slot(cols["t"][-1], every_ms):
        at = len(heads) + len(cols["t"]) - 1
        _merge(joined, at, at + 1, counts[-1], tails[0][4])
        drop.append(at + 1)
    if heads and _slot(heads[-1][0], every_ms) == _slot(cols["t"][0], every_ms):
        at = len(heads) - 1
        _merge(joined, at, at + 1, heads[-1][4], counts[0])
        drop.append(at + 1)
    for index in sorted(drop, reverse=True):
        for column in joined.values():
            del column[index]
    return joined


def _slot(t_ms: int, every_ms: int) -> int:
    return t_ms - t_ms % every_ms


def _merge(joined: dict, keep: int, other: int, kept_n: int, other_n: int) -> None:
    """Point `other`'s samples into point `keep` (lists of `_joined`; `keep` keeps its time)."""
    joined["mean"][keep] = (joined["mean"][keep] * kept_n + joined["mean"][other] * other_n) / (kept_n + other_n)
    joined["max"][keep] = max(joined["max"][keep], joined["max"][other])
    if "min" in joined:
        lows = [v for v in (joined["min"][keep], joined["min"][other]) if v is not None]
        joined["min"][keep] = min(lows) if lows else None


def _joined(cols: dict, heads: list, tails: list, with_min: bool = False) -> dict:
    """Cached columns as lists, with the edge points before and after; "min" where the windows have one, or
    `with_min` (the edge points' minima, None for the windows)."""
    out = {}
    for index, name in ((0, "t"), (1, "min"), (2, "mean"), (3, "max")):
        if name == "min" and name not in cols and not with_min:
            continue
        middle = cols[name].tolist() if name in cols else [NAN] * len(cols["t"])
        if name == "min":
            middle = [None if v != v else v for v in middle]
        out[name] = [p[index] for p in heads] + middle + [p[index] for p in tails]
    return out


def as_columns(series: dict) -> dict:
    """A series with `points` rows as one with `cols` (what a page asks for); one with `cols` as it is."""
    if "cols" in series:
        return series
    rows = series["points"]
    cols = {"t": [p[0] for p in rows], "mean": [p[2] for p in rows], "max": [p[3] for p in rows]}
    if any(p[1] is not None for p in rows):
        cols["min"] = [p[1] for p in rows]
    return {k: v for k, v in series.items() if k != "points"} | {"cols": cols}


def _series(plot: Plot, definition, points: list, legend: dict) -> dict:
    scaled = [[t, _times(lo, plot.scale), mid * plot.scale, hi * plot.scale] for t, lo, mid, hi in points]
    return _scaled(plot, definition.field, definition.label, scaled, legend)


def _scaled(plot: Plot, field: str, label: str, points: list, legend: dict) -> dict:
    """A series with its legend scaled (totals in the template's unit of volume, no p95 where none is kept)."""
    if not plot.template.percentile:
        legend["p95"] = None
    legend = {k: (v * plot.scale if v is not None and k != "total" else v) for k, v in legend.items()}
    if plot.template.totals and legend.get("total") is not None:
        legend["total"] = legend["total"] / plot.template.total_divisor
    return {"field": field, "label": label, "points": points, "stats": legend}


def meta(plot: Plot, shape: Layout) -> dict:
    return {
        "resolution_s": shape.every_s,
        "aggregated": shape.windowed,
        "tier": shape.tier.name,
        "unit": plot.template.unit,
    }


def p95_source(plot: Plot, plan: ReadPlan) -> str | None:
    """What the graph's 95th percentile is of (None: its legend has none): the plan's, as
    monitor.timeseries.percentiles computes it."""
    return plan.p95_source if plot.template.percentile else None


def _legend(current, average, minimum, maximum, totals: bool, total) -> dict:
    legend = {"current": current, "average": average, "minimum": minimum, "maximum": maximum, "p95": None}
    if totals:
        legend["total"] = total
    return legend


def _from_samples(
    rows: list, totals: bool, interval: int | Polled, spans: dict[int, float], moved: dict[int, float]
) -> tuple[list, dict]:
    samples = [(t, v) for t, v in rows if v is not None]
    values = [v for _, v in samples]
    legend = _legend(
        values[-1] if values else None,
        sum(values) / len(values) if values else None,
        min(values, default=None),
        max(values, default=None),
        totals,
        stats.total(samples, interval, spans, moved) if samples else None,
    )
    legend["p95"] = stats.percentile(values)
    return [(t, v, v, v) for t, v in samples], legend


def _times(value: float | None, scale: float) -> float | None:
    return None if value is None else value * scale


def _only(got: dict, name: str) -> float | None:
    """The one value of a whole-range figure (count, min, mean, last, sum)."""
    values = [v for _, v in got.get(name, ()) if v is not None]
    return values[-1] if values else None


def _from_windows(
    got: dict,
    totals: bool,
    interval: int | Polled,
    spans: dict[int, float],
    moved: dict[int, float],
    summed: float | None,
) -> tuple[list, dict]:
    """Points of raw windows and the legend of the range; a total of the bytes the rates moved, summed in InfluxDB
    (`summed`), or, where the range holds samples written without them, of its samples here (`traw`)."""
    slots: dict[int, list] = defaultdict(lambda: [None, None, None])
    for column, name in ((0, "wmin"), (1, "wmean"), (2, "wmax")):
        for t, v in got.get(name, ()):
            if v is not None:
                slots[t][column] = v
    points = [(t, s[0], s[1], s[2]) for t, s in sorted(slots.items()) if s[1] is not None and s[2] is not None]
    total = None
    if totals and points and "traw" in got:  # samples written before the pollers wrote bytes: summed here
        total = stats.total([(t, v) for t, v in got["traw"] if v is not None], interval, spans, moved)
    elif totals and points:  # every rate with its bytes: their sum
        total = (summed or 0.0) * MOVED_SCALE
    legend = _legend(
        _only(got, "last"),
        _only(got, "avg"),
        _only(got, "lo"),
        max((p[3] for p in points), default=None),
        totals,
        total,
    )
    return points, legend


def _from_rollup(got: dict) -> tuple[list, dict]:
    """Points of whole windows (mean = Σ sum / Σ count) and the sums of the range behind the legend."""
    if "wmean" in got:  # a window a point, each with its stored mean; the range's sums read apart
        points, n, summed = _of_means(got)
    else:
        aligned = _aligned(got)
        points, n, summed = _on_grid(*aligned) if aligned is not None else _by_time(got)
    acc = {
        "n": n,
        "sum": summed,  # Σ of windows = Σ of the range
        "lo": _only(got, "lo"),
        "hi": max((p[3] for p in points), default=None),
        "total": _only(got, "total"),
        "current": _last_mean(got["lastsum"], got.get("lastcount", ())) if "lastsum" in got else _newest(points),
    }
    return points, acc


def figures(got: dict) -> dict:
    """The sums behind a legend from a read of a range's figures (`gather` without windows); the newest window's
    mean where last() was read, else None."""
    current = _last_mean(got["lastsum"], got.get("lastcount", ())) if "lastsum" in got else None
    return {
        "n": _only(got, "scount") or 0,
        "sum": _only(got, "ssum") or 0.0,
        "lo": _only(got, "lo"),
        "total": _only(got, "total"),
        "current": current,
    }


def _aligned(got: dict) -> tuple | None:
    """The window columns (sums, counts, maxima, minima or None) when they share one grid: the same length and
    the same first and last times, as one read's windows do; else None."""
    sums, counts, maxima, minima = (got.get(name) for name in ("wsum", "wcount", "wmax", "wmin"))
    columns = [c for c in (sums, counts, maxima, minima) if c is not None]
    if sums is None or counts is None or maxima is None or not sums:
        return None
    if any(len(c) != len(sums) or c[0][0] != sums[0][0] or c[-1][0] != sums[-1][0] for c in columns):
        return None
    return sums, counts, maxima, minima


def _of_means(got: dict) -> tuple[list, float, float]:
    """Points of windows that each are one stored window (its mean and maximum), Σ count and Σ sum of the range."""
    means, maxima, minima = got.get("wmean", ()), got.get("wmax", ()), got.get("wmin")
    lows, highs = dict(minima) if minima is not None else {}, dict(maxima)
    points = [(t, lows.get(t), m, highs[t]) for t, m in means if m is not None and highs.get(t) is not None]
    return points, _only(got, "scount") or 0, _only(got, "ssum") or 0.0


def _on_grid(sums: list, counts: list, maxima: list, minima: list | None) -> tuple[list, float, float]:
    """Points, Σ count and Σ sum of windows side by side (one pass, no time lookups)."""
    points, n, summed = [], 0, 0.0
    lows = minima if minima is not None else [(None, None)] * len(sums)
    for (t, total), (_, count), (_, high), (_, low) in zip(sums, counts, maxima, lows, strict=True):
        if total is None or not count:
            continue
        n += count
        summed += total
        if high is not None:
            points.append((t, low, total / count, high, count))
    return points, n, summed


def _by_time(got: dict) -> tuple[list, float, float]:
    """Points, Σ count and Σ sum of windows matched by their times (columns of different grids)."""
    slots: dict[int, list] = defaultdict(lambda: [None, None, None, None])
    for column, name in ((0, "wmin"), (1, "wsum"), (2, "wmax"), (3, "wcount")):
        for t, v in got.get(name, ()):
            if v is not None:
                slots[t][column] = v
    points = [
        (t, s[0], s[1] / s[3], s[2], s[3])
        for t, s in sorted(slots.items())
        if s[1] is not None and s[2] is not None and s[3]
    ]
    n = sum(s[3] for s in slots.values() if s[1] is not None and s[3])
    summed = sum(s[1] for s in slots.values() if s[1] is not None and s[3])
    return points, n, summed


def _newest(points: list) -> float | None:
    """The newest window's mean, when each point is one window of its tier (no last() was read)."""
    return points[-1][2] if points else None


def _last_mean(sums, counts) -> float | None:
    """The newest window's mean, from last() of its sum and of its count."""
    if not sums or not counts or sums[-1][1] is None or not counts[-1][1]:
        return None
    return sums[-1][1] / counts[-1][1]
