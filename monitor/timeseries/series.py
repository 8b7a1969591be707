"""Points and legend statistics for many graphs with one read per tier: the device page asks for a screenful of
graphs at once. Aggregates (members summed) are computed in monitor.timeseries.aggregates."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime

from monitor.timeseries import assemble, cache, carry, newest, percentiles
from monitor.timeseries import edges as raw_edges
from monitor.timeseries.flux import Plot
from monitor.timeseries.gather import gather, gather_raw
from monitor.timeseries.plan import ReadPlan, Window, read_plan

PART = "windows-cols"  # the cache's name for a chart's windows (assemble.rollup_part): renamed when their form changes


def read(
    plots: list[Plot],
    span: Window,
    p95: str = "now",
    detail: bool = True,
    columns: bool = False,
    versions: Mapping[str, object] | None = None,
) -> dict[str, dict]:
    """{plot key: {"series": [...], "resolution_s", "aggregated", "tier", "p95_source", ...}} for single graphs.

    A chart whose step is at least a rollup window is read from that tier (whole windows, cached until the next
    one is written) and the raw samples since the newest written window. `p95`: "now" computes every 95th
    percentile; "later" leaves out those that need a read of their own and marks the graph `p95_pending`, for a
    second request with "only". Without `detail`, a window's minimum is left out of its point (None): a page
    draws means and maxima, and this saves a third of what InfluxDB sends. With `columns`, charts read from a
    rollup tier carry `cols` instead of `points` (assemble.finish); others keep `points`. `versions`: each device's
    newest poll (device key -> anything that changes with it), so its newest raw samples are read once per poll
    (monitor.timeseries.edges)."""
    groups: dict[ReadPlan, list[Plot]] = defaultdict(list)
    for plot in plots:
        groups[read_plan([plot], span)].append(plot)
    out: dict[str, dict] = {}
    for plan, members in groups.items():
        if p95 == "only" and plan.source.step_s:
            out |= percentiles.only(members, span, plan)
        elif plan.bounds is not None:
            out |= _rollup_group(members, span, plan, p95, detail, columns, versions)
        else:  # raw samples ("only" too: their percentiles were not deferred in the first place)
            found, polled = gather_raw(members, span, plan.shape, plan.interval_s, detail)
            out |= {
                plot.key: assemble.graph(plot, found, plan, polled.get(plot.members[0].device, plan.interval_s))
                for plot in members
            }
            percentiles.fill(members, out, found, span, plan, defer=(p95 == "later"))
    return out


def _rollup_group(
    plots: list[Plot],
    span: Window,
    plan: ReadPlan,
    p95: str,
    detail: bool,
    columns: bool = False,
    versions: Mapping[str, object] | None = None,
) -> dict[str, dict]:
    """Graphs read from a rollup tier over the plan's whole windows (cached until a newer window is written), then
    the raw samples after the newest window, so the chart and its legend reach the last poll."""
    shape, bounds, interval = plan.shape, plan.bounds, plan.interval_s
    assert bounds is not None  # a rollup chart's plan
    start, end = bounds.start, bounds.end
    whole = Window(start, end, span.points, span.now)

    def key_of(plot: Plot, since: datetime, until: datetime) -> str:
        return cache.key(PART, shape, plot.template.slug, plot.members, plot.scale, since, until, detail)

    keys = {p.key: key_of(p, start, end) for p in plots}
    cached = cache.get_many(list(keys.values()))
    parts = {p.key: cached[keys[p.key]] for p in plots if keys[p.key] in cached}
    missing = [p for p in plots if p.key not in parts]
    if missing:
        fresh = carry.carried(missing, key_of, carry.Ask(shape, whole, span, detail, plan.tail))
        if rest := [p for p in missing if p.key not in fresh]:
            found = gather(rest, whole, shape, 0, detail, tail=plan.tail)
            fresh |= {p.key: assemble.rollup_part(p, found, shape) for p in rest}
        cache.set_many({keys[key]: part for key, part in fresh.items()}, shape.tier.step_s)
        parts |= fresh
    edges, polled = {}, {}
    if plan.tail:
        edges, polled = raw_edges.read(
            plots, bounds.head, start, end, span.end, span.now, shape.tier.step_s, interval, versions
        )
    # the current value of graphs whose tail holds no sample: their newest sample, not a window's mean
    silent = newest.without_tail(plots, parts, edges, bounds.ms()[2])
    found = newest.newest(silent, span.start, end, span.now, shape.tier.step_s)
    out = {
        plot.key: assemble.finish(
            plot, parts[plot.key], edges, plan, span, polled.get(plot.members[0].device, interval), columns, found
        )
        for plot in plots
    }
    if plan.source.step_s == 0:  # the 95th percentile of the raw samples summarised
        percentiles.fill_from_windows(plots, out, parts, edges, span, bounds, defer=(p95 == "later"))
    else:
        percentiles.fill(plots, out, {}, span, plan, defer=(p95 == "later"))  # the range's 5-minute windows
    return out


def one(
    template,
    device: str,
    instance: str,
    start: datetime,
    end: datetime,
    points: int,
    interval_s: int,
    now: datetime | None = None,
) -> dict:
    """One graph's data (for the CLI, tests and callers with no Graph row): `read` for a batch of one."""
    from monitor.timeseries.flux import Member

    plot = Plot("one", template, (Member(device, instance, interval_s),))
    return read([plot], Window.of(start, end, points, now))["one"]
