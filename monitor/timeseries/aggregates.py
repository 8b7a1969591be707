"""Aggregate graphs: each member resampled to the step, the members summed per step, then points and legend of
that sum. A member counts in a step when it has a sample there, or when its next sample's own interval reaches
into the step (a poll late or at another phase); it is missing only when it has no sample within its interval."""

from __future__ import annotations

import itertools
from collections import defaultdict
from datetime import timedelta

from monitor.timeseries import cache, stats, tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import Member, Params, Plot, any_of, chain, keep_columns, series_predicate
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.plan import SOURCES, Layout, Window, layout


def read(plot: Plot, span: Window, p95: str = "now") -> dict:
    """One aggregate graph's JSON (the shape of monitor.timeseries.series.read's)."""
    shape = layout(plot, span)
    source = tiers.finest_holding(span.start, span.now)
    start, end = span.start, span.end
    if shape.tier.step_s:
        start, end = cache.aligned(span.start, span.end, span.now, shape.tier.step_s)
    key = cache.key("aggregate", shape, plot.template.slug, plot.members, plot.scale, start, end, p95 == "later")
    if shape.tier.step_s and (hit := cache.get_many([key]).get(key)) is not None:
        return hit
    steps, totals = _summed(plot, shape.tier, shape.native_s, start, end)
    pending = False
    if not plot.template.percentile:
        p95s = {}
    elif source.name == shape.tier.name:
        p95s = {field: stats.percentile([v for _, v in values]) for field, values in steps.items()}
    elif p95 == "later":
        p95s, pending = {}, True
    else:
        means, _ = _summed(plot, source, source.step_s, *cache.aligned(span.start, span.end, span.now, source.step_s))
        p95s = {field: stats.percentile([v for _, v in values]) for field, values in means.items()}
    data = _assemble(plot, shape, steps, p95s, totals, source)
    if pending:
        data["p95_pending"] = True
    if shape.tier.step_s:
        cache.set_many({key: data}, shape.tier.step_s)
    return data


def _assemble(plot: Plot, shape: Layout, steps: dict, p95s: dict, totals: dict, source: tiers.Tier) -> dict:
    series = []
    every_ms = shape.every_s * 1000
    for definition in plot.template.series:
        values = steps.get(definition.field, [])
        numbers = [v for _, v in values]
        points = stats.windowed(values, 0, every_ms) if shape.windowed else [[t, v, v, v] for t, v in values]
        scale = plot.scale
        legend = {
            "current": numbers[-1] * scale if numbers else None,
            "average": sum(numbers) / len(numbers) * scale if numbers else None,
            "minimum": min(numbers) * scale if numbers else None,
            "maximum": max(numbers) * scale if numbers else None,
            "p95": p95s[definition.field] * scale if p95s.get(definition.field) is not None else None,
        }
        if plot.template.totals:
            found = totals.get(definition.field)
            legend["total"] = found / plot.template.total_divisor if found is not None and numbers else None
        series.append(
            {
                "field": definition.field,
                "label": definition.label,
                "points": [[t, lo * scale, mid * scale, hi * scale] for t, lo, mid, hi in points],
                "stats": legend,
            }
        )
    return {
        "series": series,
        "resolution_s": shape.every_s,
        "aggregated": shape.windowed,
        "tier": shape.tier.name,
        "unit": plot.template.unit,
        "p95_source": SOURCES[source.name] if plot.template.percentile else None,
    }


def _read(plot: Plot, tier: tiers.Tier, start, end, names: dict[str, str], margin_s: int = 0) -> dict:
    """Every member's points of these stored fields ({stored: field}), per (member index, stored field)."""
    bind, lookup, preds = Params(), Lookup(), []
    for index, member in enumerate(plot.members):
        one = Plot(f"{index}", plot.template, (member,))
        for stored in names:
            lookup.register(one, member, stored, stored)
        preds.append(series_predicate(plot.template, member, list(names), bind))
    script = chain(bind(tier.bucket), any_of(preds), "", keep_columns([plot]), "points")
    params = {"p_start": start - timedelta(seconds=margin_s), "p_stop": end + timedelta(seconds=margin_s)}
    found = lookup.index(run(script, params | bind.values))
    return {(int(index), stored): got.get("points", []) for (index, stored), got in found.items()}


def _summed(plot: Plot, tier: tiers.Tier, step_s: int, start, end) -> tuple[dict[str, list], dict[str, float]]:
    """({field: [(step start ms, Σ members)]} over the steps of [start, end), {field: Σ members' totals})."""
    fields = plot.template.fields
    first_ms, last_ms = int(start.timestamp()) * 1000, int(end.timestamp()) * 1000
    step_ms = step_s * 1000
    summed: dict[str, dict[int, float]] = {f: defaultdict(float) for f in fields}
    totals: dict[str, float] = defaultdict(float)
    if tier.step_s == 0:
        margin = 2 * max(m.interval_s for m in plot.members)
        got = _read(plot, tier, start, end, {f: f for f in fields}, margin)
        for index, member in enumerate(plot.members):
            for field in fields:
                samples = [(t, v) for t, v in got.get((index, field), []) if v is not None]
                for slot, value in _resample(samples, member, step_ms):
                    if first_ms - first_ms % step_ms <= slot < last_ms:
                        summed[field][slot] += value
                inside = [(t, v) for t, v in samples if first_ms <= t < last_ms]
                if plot.template.totals and inside:
                    totals[field] += stats.total(inside, member.interval_s)
    else:
        names = {f"{f}_{s}": f for f in fields for s in ("sum", "count")}
        got = _read(plot, tier, start, end, names)
        for index, member in enumerate(plot.members):
            for field in fields:
                counts = dict(got.get((index, field + "_count"), []))
                means = {
                    t: s / counts[t] for t, s in got.get((index, field + "_sum"), []) if s is not None and counts.get(t)
                }
                for slot, value in _fill(means, member, step_ms):
                    if first_ms <= slot < last_ms:
                        summed[field][slot] += value
        if plot.template.totals:
            got = _read(plot, tier, start, end, {f"{f}_total": f for f in fields})
            for (_, stored), rows in got.items():
                totals[stored[: -len("_total")]] += sum(v for _, v in rows if v is not None)
    return {field: sorted(values.items()) for field, values in summed.items()}, dict(totals)


def _resample(samples: list[tuple[int, float]], member: Member, step_ms: int) -> list[tuple[int, float]]:
    """A member's value per step: the mean of its samples there, else its next sample's when that sample's own
    interval reaches back into the step."""
    per_step: dict[int, list[float]] = defaultdict(list)
    times = [t for t, _ in samples]
    spacings = [b - a for a, b in itertools.pairwise(times)]
    for i, (t_ms, value) in enumerate(samples):
        per_step[t_ms - t_ms % step_ms].append(value)
        if i == 0:
            continue
        # Its own interval runs from the previous sample, unless that is a gap: more than twice the poll interval
        # and than the spacings beside it (history polled at another interval is not a gap).
        gap = spacings[i - 1]
        beside = spacings[i - 2 : i - 1] + spacings[i : i + 1] if i >= 2 else spacings[i : i + 1]
        if gap <= 2 * max([member.interval_s * 1000, *beside]):  # a list: with two samples nothing is beside
            slot = t_ms - t_ms % step_ms - step_ms
            while slot + step_ms > times[i - 1] and slot not in per_step:  # steps this sample's interval covers
                per_step[slot] = [value]
                slot -= step_ms
    return [(slot, sum(values) / len(values)) for slot, values in per_step.items()]


def _fill(means: dict[int, float], member: Member, step_ms: int) -> list[tuple[int, float]]:
    """Rollup windows of a member polled less often than the step: an empty window takes the next one's mean."""
    out = dict(means)
    if member.interval_s * 1000 >= step_ms:
        for t in sorted(means):
            if t - step_ms not in out:
                out[t - step_ms] = means[t]
    return list(out.items())
