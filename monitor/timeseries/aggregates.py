"""Aggregate graphs: each member resampled to the step, the members summed per step, then points and legend of
that sum. A member counts in a step when it has a sample there, when its next sample's span (what its counter delta
covers) reaches into the step (a poll late or at another phase, an outage), or at a live range's end while its next
poll is not due; it is missing only when no sample covers the step. From a rollup tier, the raw samples after the
newest window are one more point (docs/graphs.md)."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta

from collectors.rollup import MOVED, MOVED_SCALE, SPAN
from monitor.timeseries import assemble, cache, intervals, stats, tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import Member, Params, Plot, any_of, chain, keep_columns, series_predicate
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.plan import SOURCES, Layout, Window, ahead, lag, read_plan
from monitor.timeseries.summedmeans import summed_means


def read(plot: Plot, span: Window, p95: str = "now") -> dict:  # pragma: no mutate block (its defaults too)
    """One aggregate graph's JSON (the shape of monitor.timeseries.series.read's)."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    plan = read_plan([plot], span, raw_first=True, summed=True)
    shape, source = plan.shape, plan.source
    start, end = (plan.bounds.start, plan.bounds.end) if plan.bounds else (span.start, span.end)
    # v3: entries keep each series' step count and sum ("_steps") for the raw tail, and the 95th percentile only
    # where it comes from the chart's own windows; the 95th's source is in the key, as ranges of the same windows may
    # start either side of what raw retention holds
    key = cache.key("aggregate-v3", shape, plot.template.slug, plot.members, plot.scale, start, end, source.name)
    data = cache.get_many([key]).get(key) if shape.tier.step_s else None
    if data is None:
        data = _windows(plot, shape, source, span, start, end)
        if shape.tier.step_s:
            cache.set_many({key: data}, shape.tier.step_s)
    if plot.template.percentile and source.name != shape.tier.name:
        data = _with_p95(plot, data, plan.source_windows, source, later=p95 == "later")
    if plan.tail and end < span.end:
        tail = _tail(plot, end, span, shape.tier.step_s)  # the raw samples after the newest window
        return _with_tail(plot, data, tail, shape.every_s)
    return _public(data)


def _windows(plot: Plot, shape: Layout, source: tiers.Tier, span: Window, start, end) -> dict:
    """The graph over [start, end) of its tier: the members' steps summed, their legend, and their 95th percentile
    where the range's finest tier (`source`) is the chart's own (else `_with_p95`)."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    steps, totals = _summed(plot, shape.tier, shape.native_s, start, end, span.now)
    p95s = {}
    if plot.template.percentile and source.name == shape.tier.name:
        p95s = {field: stats.percentile([v for _, v in values]) for field, values in steps.items()}
    return _assemble(plot, shape, steps, p95s, totals, source)


def _with_p95(plot: Plot, data: dict, whole: tuple | None, source: tiers.Tier, later: bool) -> dict:
    """The graph with its 95th percentile of the members' summed means of `source`'s whole windows counted as
    written at the request's moment (cached until the next one is), not of the chart's coarser ones: a month's
    chart of hourly windows takes it from 5-minute windows that move on every 5 minutes. `later`: left out, marked
    pending (a page's second request asks for it)."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    if later:
        return data | {"p95_pending": True}
    assert whole is not None  # a rollup tier's windows (a raw source is the chart's own)
    step = source.step_s
    key = cache.key("aggregate-p95", source.name, plot.template.slug, plot.members, *whole)
    p95s = cache.get_many([key]).get(key)
    if p95s is None:
        means = summed_means(
            plot, source.name, *whole, lambda since, until: _summed(plot, source, step, since, until)[0]
        )
        p95s = {field: stats.percentile([v for _, v in values]) for field, values in means.items()}
        cache.set_many({key: p95s}, source.step_s)
    series = []
    for item in data["series"]:
        found = p95s.get(item["field"])
        p95 = found * plot.scale if found is not None else None
        series.append(item | {"stats": item["stats"] | {"p95": p95}})
    return data | {"series": series}


def _assemble(plot: Plot, shape: Layout, steps: dict, p95s: dict, totals: dict, source: tiers.Tier) -> dict:
    series = []
    every_ms = shape.every_s * 1000
    for definition in plot.template.series:
        values = steps.get(definition.field, [])
        numbers = [v for _, v in values]
        points = stats.windowed(values, every_ms)  # one step a point when not windowed: [t, v, v, v]
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
                "_steps": (len(numbers), sum(numbers)),  # for the raw tail's legend and point (_with_tail)
                "_last_n": _in_last_slot(values, every_ms),
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


def _in_last_slot(values: list[tuple[int, float]], every_ms: int) -> int:
    """How many of the steps (t ms, value) lie in the grid interval of the newest one (its point's steps)."""
    if not values:
        return 0
    last = values[-1][0] - values[-1][0] % every_ms
    return sum(1 for t, _ in values if t - t % every_ms == last)


def _public(data: dict) -> dict:
    """The graph without what is kept for the tail."""
    series = [{k: v for k, v in item.items() if not k.startswith("_")} for item in data["series"]]
    return data | {"series": series}


def _with_tail(plot: Plot, data: dict, tail: dict[str, tuple[list, float]], every_s: int) -> dict:
    """The graph of whole windows with the steps of the raw samples after the newest window (its members' values
    summed per step, as a window's), counted in every legend figure but the 95th percentile (of windows), drawn on
    the chart's grid as the windows will be once written."""
    out = _public(data)
    for item, kept in zip(out["series"], data["series"], strict=True):
        steps, total = tail.get(item["field"], ([], 0.0))
        if not steps:
            continue
        n, summed = kept["_steps"]
        values, legend, scale = [v for _, v in steps], dict(item["stats"]), plot.scale
        legend["current"] = values[-1] * scale
        legend["average"] = (summed + sum(values)) / (n + len(values)) * scale
        low, high = min(values) * scale, max(values) * scale
        legend["minimum"] = low if legend["minimum"] is None else min(legend["minimum"], low)
        legend["maximum"] = high if legend["maximum"] is None else max(legend["maximum"], high)
        if plot.template.totals:
            legend["total"] = (legend.get("total") or 0.0) + total / plot.template.total_divisor
        item["stats"] = legend
        drawn = assemble.edge_points(steps, 0, every_s * 1000, scale)
        points = item["points"]
        if points and drawn and drawn[0][0] == points[-1][0]:  # windows' points lie at their interval's start
            # the newest windows fill part of an interval of the chart's grid: the tail's first steps join its point
            _, lo, mid, hi, tail_n = drawn.pop(0)
            n = kept["_last_n"]
            last = points[-1]
            points = [
                *points[:-1],
                [last[0], min(last[1], lo), (last[2] * n + mid * tail_n) / (n + tail_n), max(last[3], hi)],
            ]
        item["points"] = [*points, *([t, lo, mid, hi] for t, lo, mid, hi, _ in drawn)]
    return out


def _tail(plot: Plot, since, span: Window, step_s: int) -> dict[str, tuple[list, float]]:
    """{field: ([(step start ms, Σ members' values)], Σ members' totals)} of the raw samples from `since` to the
    range's end, a step of `step_s` at a time (the last cut at the range's end): each member's value as in a step of
    its own (`_value_in`)."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    raw = tiers.tiers()[0]
    fields = plot.template.fields
    got = _read(plot, raw, since, span.end, _raw_names(plot), _margin_s(plot))
    since_ms, until_ms, now_ms = (int(x.timestamp() * 1000) for x in (since, span.end, span.now))
    slots = range(since_ms, until_ms, step_s * 1000)
    spans = [_spans(got, index) for index in range(len(plot.members))]
    out: dict[str, tuple[list, float]] = {}
    for field in fields:
        members = [[(t, v) for t, v in got.get((i, field), []) if v is not None] for i in range(len(plot.members))]
        steps = []
        for slot in slots:
            found = [
                _value_in(samples, member, slot, min(slot + step_s * 1000, until_ms), now_ms, spans[index])
                for index, (member, samples) in enumerate(zip(plot.members, members, strict=True))
            ]
            values = [v for v in found if v is not None]
            if values:
                steps.append((slot, sum(values)))
        total = sum(
            stats.total_between(
                samples,
                since_ms,
                until_ms,
                got.get((index, POLLED), member.interval_s),
                spans[index],
                _moved(got, index, field),
            )
            for index, (member, samples) in enumerate(zip(plot.members, members, strict=True))
        )
        out[field] = (steps, total)
    return out


def _raw_names(plot: Plot) -> dict[str, str]:
    """The stored fields of raw samples an aggregate reads ({stored: stored}: GraphTemplate.sample_fields)."""
    return {f: f for f in plot.template.sample_fields}


def _spans(got: dict, index: int) -> dict[int, float]:
    """{t ms: span} of a member's samples (`_read`'s rows of `span_s`)."""
    return stats.by_time(got.get((index, SPAN), []))


def _moved(got: dict, index: int, field: str) -> dict[int, float]:
    """{t ms: what the rate moved, in its unit x s} of a member's samples of `field` (`_read`'s rows of its bytes)."""
    name = MOVED.get(field)
    if name is None:
        return {}
    return stats.by_time(got.get((index, name), []), MOVED_SCALE)


def _margin_s(plot: Plot) -> int:
    """How far beyond a range raw samples are read, so the samples either side of it (whose own intervals may
    reach into it) are there: twice the longest poll interval, and at least half an hour for history polled less
    often than now."""
    return max(2 * max(m.interval_s for m in plot.members), 1800)


def _read(
    plot: Plot, tier: tiers.Tier, start, end, names: dict[str, str], margin_s: int = 0
) -> dict:  # pragma: no mutate block (its defaults too)
    """Every member's points of these stored fields ({stored: field}), per (member index, stored field); of raw
    samples with totals, also the intervals each member's device was polled at, per (member index, POLLED)."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    bind, lookup, preds = Params(), Lookup(), []
    for index, member in enumerate(plot.members):
        one = Plot(f"{index}", plot.template, (member,))
        for stored in names:
            lookup.register(one, member, stored, stored)
        preds.append(series_predicate(plot.template, member, list(names), bind))
    script = chain(bind(tier.bucket), any_of(preds), "", keep_columns([plot]), "points")
    params = {"p_start": start - timedelta(seconds=margin_s), "p_stop": end + timedelta(seconds=margin_s)}
    polls = tier.step_s == 0 and plot.template.totals
    if polls:  # the polls' records, for totals by the interval each sample was polled at
        script += intervals.flux(bind, bind(tier.bucket), [m.device for m in plot.members])
        params |= intervals.window(params["p_start"], params["p_stop"])
    tables = run(script, params | bind.values)
    found = {(int(index), stored): got.get("points", []) for (index, stored), got in lookup.index(tables).items()}
    if polls:
        polled = intervals.from_tables(tables, {m.device: float(m.interval_s) for m in plot.members})
        found |= {(index, POLLED): polled[m.device] for index, m in enumerate(plot.members)}
    return found


POLLED = "_polled"  # `_read`'s key of a member's intervals


def _summed(
    plot: Plot, tier: tiers.Tier, step_s: int, start, end, now=None
) -> tuple[dict[str, list], dict[str, float]]:
    """({field: [(step start ms, Σ members)]} over the steps of [start, end), {field: Σ members' totals})."""
    # pragma: no mutate block (reads InfluxDB and the cache: tests/test_planted_aggregates.py)
    fields = plot.template.fields
    first_ms, last_ms = int(start.timestamp()) * 1000, int(end.timestamp()) * 1000
    step_ms = step_s * 1000
    summed: dict[str, dict[int, float]] = {f: defaultdict(float) for f in fields}
    totals: dict[str, float] = defaultdict(float)
    if tier.step_s == 0:
        got = _read(plot, tier, start, end, _raw_names(plot), _margin_s(plot))
        now_ms = int(now.timestamp() * 1000) if now is not None else None
        for index, member in enumerate(plot.members):
            spans = _spans(got, index)
            for field in fields:
                samples = [(t, v) for t, v in got.get((index, field), []) if v is not None]
                for slot, value in _resample(samples, member, step_ms, now_ms, spans):
                    if first_ms - first_ms % step_ms <= slot < last_ms:
                        summed[field][slot] += value
                inside = [(t, v) for t, v in samples if first_ms <= t < last_ms]
                if plot.template.totals and inside:
                    polled = got.get((index, POLLED), member.interval_s)
                    totals[field] += stats.total(inside, polled, spans, _moved(got, index, field))
    else:
        names = {f"{f}_{s}": f for f in fields for s in ("sum", "count")}
        got = _read(plot, tier, start, end + timedelta(seconds=lag(plot, step_s) * step_s), names)  # and the fill's
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


def _own_since(times: list[int], i: int, interval_ms: int, spans: dict[int, float] | None = None) -> int:
    """When sample i's own interval starts: its span before it (`spans`, {t ms: s}: what its counter delta covers);
    for a sample written without one, at the previous sample, unless that is a gap (more than twice the poll
    interval and than the spacings beside it: history polled at another interval is not a gap) or there is none;
    then one poll interval before it."""
    span = spans.get(times[i]) if spans else None
    if span is not None and span > 0:
        return times[i] - round(span * 1000)
    if i == 0:
        return times[0] - interval_ms
    gap = times[i] - times[i - 1]
    beside = [times[b] - times[a] for a, b in ((i - 2, i - 1), (i, i + 1)) if a >= 0 and b < len(times)]
    if gap <= 2 * max([interval_ms, *beside]):
        return times[i - 1]
    return times[i] - interval_ms


def _resample(
    samples: list[tuple[int, float]],
    member: Member,
    step_ms: int,
    now_ms: int | None = None,
    spans: dict[int, float] | None = None,
) -> list[tuple[int, float]]:
    """A member's value per step: the mean of its samples there, else its next sample's when that sample's span
    (`_own_since`) reaches back into the step, else (the newest steps, up to `now_ms`) its newest sample's while its
    next poll is not due: a member is missing only where no sample covers the step."""
    per_step: dict[int, list[float]] = defaultdict(list)
    for t_ms, value in samples:
        per_step[t_ms - t_ms % step_ms].append(value)
    out = {slot: sum(values) / len(values) for slot, values in per_step.items()}
    times, interval_ms = [t for t, _ in samples], member.interval_s * 1000
    for i, (t_ms, value) in enumerate(samples):
        since = _own_since(times, i, interval_ms, spans)
        slot = t_ms - t_ms % step_ms - step_ms
        while slot + step_ms > since and slot not in out:  # steps this sample's interval covers
            out[slot] = value
            slot -= step_ms
    if samples and now_ms is not None and now_ms - times[-1] < interval_ms:
        newest, value = samples[-1]
        slot = newest - newest % step_ms + step_ms
        while slot <= now_ms and slot not in out:  # now_ms is before its next poll (newest + interval_ms)
            out[slot] = value
            slot += step_ms
    return list(out.items())


def _value_in(
    samples: list[tuple[int, float]],
    member: Member,
    since_ms: int,
    until_ms: int,
    now_ms: int,
    spans: dict[int, float] | None = None,
):
    """A member's value from `since_ms` to `until_ms`, by `_resample`'s rules for one step: the mean of its samples
    there, else its next sample's when its span reaches back, else its newest's while its next poll is not
    due (None: missing)."""
    inside = [v for t, v in samples if since_ms <= t < until_ms]
    if inside:
        return sum(inside) / len(inside)
    times, interval_ms = [t for t, _ in samples], member.interval_s * 1000
    after = next((i for i, t in enumerate(times) if t >= until_ms), None)
    if after is not None:
        return samples[after][1] if _own_since(times, after, interval_ms, spans) < until_ms else None
    if times and now_ms - times[-1] < interval_ms and times[-1] + interval_ms > since_ms:
        return samples[-1][1]
    return None


def _fill(means: dict[int, float], member: Member, step_ms: int) -> list[tuple[int, float]]:
    """Rollup windows of a member polled at least as seldom as the step: an empty window takes the mean of its
    nearest later window with a sample, within the member's poll interval (its sample there covers the interval
    before it: a member polled every 900 s fills the two or three 5-minute windows before each of its samples')."""
    out = dict(means)
    for t in sorted(means):  # in time order: a window between two samples' takes the later one's
        for k in range(1, ahead(member, step_ms) + 1):
            if t - k * step_ms in out:
                break
            out[t - k * step_ms] = means[t]
    return list(out.items())
