"""A graph's JSON from what its read returned: points [t ms, min, mean, max] and the legend, by the rules of
docs/graphs.md (averages of every sample, extremes of every sample, totals by each sample's own interval)."""

from __future__ import annotations

from collections import defaultdict

from monitor.timeseries import stats, tiers
from monitor.timeseries.flux import Plot
from monitor.timeseries.plan import SOURCES, Layout, Window


def graph(plot: Plot, found: dict, shape: Layout, span: Window, interval: int) -> dict:
    """One graph's JSON: points [t ms, min, mean, max] scaled, and the legend (p95 filled in later)."""
    series = []
    for definition in plot.template.series:
        got = found.get((plot.key, definition.field), {})
        if shape.tier.step_s:
            points, legend = _from_rollup(got, plot.template.totals)
        elif shape.windowed:
            points, legend = _from_windows(got, plot.template.totals, interval)
        else:
            points, legend = _from_samples(got.get("raw", []), plot.template.totals, interval)
        scale = plot.scale
        if not plot.template.percentile:
            legend["p95"] = None
        legend = {k: (v * scale if v is not None and k != "total" else v) for k, v in legend.items()}
        if plot.template.totals and legend.get("total") is not None:
            legend["total"] = legend["total"] / plot.template.total_divisor
        series.append(
            {
                "field": definition.field,
                "label": definition.label,
                "points": [[t, _times(lo, scale), mid * scale, hi * scale] for t, lo, mid, hi in points],
                "stats": legend,
            }
        )
    return {
        "series": series,
        "resolution_s": shape.every_s,
        "aggregated": shape.windowed,
        "tier": shape.tier.name,
        "unit": plot.template.unit,
        "p95_source": SOURCES[tiers.finest_holding(span.start, span.now).name] if plot.template.percentile else None,
    }


def _legend(current, average, minimum, maximum, totals: bool, total) -> dict:
    legend = {"current": current, "average": average, "minimum": minimum, "maximum": maximum, "p95": None}
    if totals:
        legend["total"] = total
    return legend


def _from_samples(rows: list, totals: bool, interval: int) -> tuple[list, dict]:
    samples = [(t, v) for t, v in rows if v is not None]
    values = [v for _, v in samples]
    legend = _legend(
        values[-1] if values else None,
        sum(values) / len(values) if values else None,
        min(values, default=None),
        max(values, default=None),
        totals,
        stats.total(samples, interval) if samples else None,
    )
    legend["p95"] = stats.percentile(values)
    return [(t, v, v, v) for t, v in samples], legend


def _times(value: float | None, scale: float) -> float | None:
    return None if value is None else value * scale


def _only(got: dict, name: str) -> float | None:
    """The one value of a whole-range figure (count, min, mean, last, sum)."""
    values = [v for _, v in got.get(name, ()) if v is not None]
    return values[-1] if values else None


def _from_windows(got: dict, totals: bool, interval: int) -> tuple[list, dict]:
    slots: dict[int, list] = defaultdict(lambda: [None, None, None])
    for column, name in ((0, "wmin"), (1, "wmean"), (2, "wmax")):
        for t, v in got.get(name, ()):
            if v is not None:
                slots[t][column] = v
    points = [(t, s[0], s[1], s[2]) for t, s in sorted(slots.items()) if s[1] is not None and s[2] is not None]
    total = None
    if totals and points:
        total = (_only(got, "tsum") or 0.0) + (_only(got, "tfirst") or 0.0) * interval
    legend = _legend(
        _only(got, "last"),
        _only(got, "avg"),
        _only(got, "lo"),
        max((p[3] for p in points), default=None),
        totals,
        total,
    )
    return points, legend


def _from_rollup(got: dict, totals: bool) -> tuple[list, dict]:
    slots: dict[int, list] = defaultdict(lambda: [None, None, None, None])
    for column, name in ((0, "wmin"), (1, "wsum"), (2, "wmax"), (3, "wcount")):
        for t, v in got.get(name, ()):
            if v is not None:
                slots[t][column] = v
    points = [
        (t, s[0], s[1] / s[3], s[2]) for t, s in sorted(slots.items()) if s[1] is not None and s[2] is not None and s[3]
    ]
    count = sum(s[3] for s in slots.values() if s[1] is not None and s[3])
    summed = sum(s[1] for s in slots.values() if s[1] is not None and s[3])  # Σ of windows = Σ of the range
    legend = _legend(
        _last_mean(got.get("lastsum", ()), got.get("lastcount", ())),
        summed / count if count and summed is not None else None,
        _only(got, "lo"),
        max((p[3] for p in points), default=None),
        totals,
        _only(got, "total") if points else None,
    )
    return points, legend


def _last_mean(sums, counts) -> float | None:
    """The newest window's mean, from last() of its sum and of its count."""
    if not sums or not counts or sums[-1][1] is None or not counts[-1][1]:
        return None
    return sums[-1][1] / counts[-1][1]
