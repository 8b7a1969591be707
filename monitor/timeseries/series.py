"""Points and legend statistics for many graphs with one read per tier: the device page asks for a screenful of
graphs at once. Aggregates (members summed) are computed in monitor.timeseries.aggregates."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime, timedelta
from operator import itemgetter

from monitor.timeseries import assemble, cache, percentiles, tiers
from monitor.timeseries import edges as raw_edges
from monitor.timeseries.client import run
from monitor.timeseries.flux import (
    Params,
    Plot,
    any_of,
    chain,
    grid,
    keep_columns,
    series_predicate,
    total_tail,
    window,
)
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.plan import Bounds, Layout, Window, layout

# A batch with this many instances (ports...) of one device and template reads all of that device's instances
# (a batch of most of a switch's ports: the extra series cost less than a predicate naming each port).
EVERY_INSTANCE_AT = 48
PART = "windows-cols"  # the cache's name for a chart's windows (assemble.rollup_part): renamed when their form changes
# Tiers whose windows keep their mean (collectors/rollup.py): a chart of one window a point reads it, one column
# instead of sums and counts, and the range's Σ sum and Σ count as two numbers (a third fewer rows to send and read).
MEANS_KEPT = ("5m",)


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
    groups: dict[tuple, list[Plot]] = defaultdict(list)
    for plot in plots:
        shape = layout(plot, span, raw_first=False)
        groups[(shape, plot.members[0].interval_s)].append(plot)
    out: dict[str, dict] = {}
    for (shape, interval), members in groups.items():
        if p95 == "only" and tiers.finest_holding(span.start, span.now).step_s:
            out |= percentiles.only(members, span, shape)
        elif shape.tier.step_s:
            out |= _rollup_group(members, span, shape, interval, p95, detail, columns, versions)
        else:  # raw samples ("only" too: their percentiles were not deferred in the first place)
            found = _gather(members, span, shape, interval, detail)
            out |= {plot.key: assemble.graph(plot, found, shape, span, interval) for plot in members}
            percentiles.fill(members, out, found, span, shape, defer=(p95 == "later"))
    return out


def _rollup_group(
    plots: list[Plot],
    span: Window,
    shape: Layout,
    interval: int,
    p95: str,
    detail: bool,
    columns: bool = False,
    versions: Mapping[str, object] | None = None,
) -> dict[str, dict]:
    """Graphs read from a rollup tier over its whole windows (cached until a newer window is written), then the
    raw samples after the newest window, so the chart and its legend reach the last poll."""
    raw = tiers.tiers()[0]
    start, end = cache.aligned(span.start, span.end, span.now, shape.tier.step_s)
    whole = Window(start, end, span.points, span.now)
    keys = {p.key: cache.key(PART, shape, p.template.slug, p.members, p.scale, start, end, detail) for p in plots}
    cached = cache.get_many(list(keys.values()))
    parts = {p.key: cached[keys[p.key]] for p in plots if keys[p.key] in cached}
    missing = [p for p in plots if p.key not in parts]
    if missing:
        found = _gather(missing, whole, shape, 0, detail, tail=raw.holds(end, span.now))
        fresh = {p.key: assemble.rollup_part(p, found, shape, span) for p in missing}
        cache.set_many({keys[key]: part for key, part in fresh.items()}, shape.tier.step_s)
        parts |= fresh
    head = span.start if span.start < start and raw.holds(span.start, span.now) else None
    edges = {}
    if raw.holds(end, span.now):
        edges = raw_edges.read(plots, head, start, end, span.end, span.now, shape.tier.step_s, interval, versions)
    bounds = Bounds(head, start, end)
    out = {plot.key: assemble.finish(plot, parts[plot.key], edges, bounds, interval, columns) for plot in plots}
    if head is not None or raw.holds(start, span.now):  # the 95th percentile of the raw samples summarised
        percentiles.fill_from_windows(plots, out, parts, edges, span, bounds, defer=(p95 == "later"))
    else:
        percentiles.fill(plots, out, {}, whole, shape, defer=(p95 == "later"))
    return out


def _predicate(plots: list[Plot], suffix: str, bind: Params, lookup: Lookup, only_totals: bool = False) -> str:
    """The series of these graphs (fields + `suffix`), one term per template and device: (its ports) and (its
    fields); registers each series with `lookup`."""
    groups: dict[tuple, list[tuple[Plot, list[str]]]] = defaultdict(list)
    for plot in plots:
        fields = [f for f in _fields(plot) if not only_totals or plot.template.totals]
        names = [f + suffix for f in fields]
        for name, base_field in zip(names, fields, strict=True):
            lookup.register(plot, plot.members[0], name, base_field)
        if names:
            groups[(plot.template.slug, plot.members[0].device)].append((plot, names))
    parts = []
    for items in groups.values():
        first, names = items[0]
        instances = [plot.members[0].instance for plot, _ in items]
        every = bool(first.template.instance_tag) and len(items) >= EVERY_INSTANCE_AT
        parts.append(series_predicate(first.template, first.members[0], names, bind, "", every, False, instances))
    return any_of(parts) if parts else ""


def _fields(plot: Plot) -> list[str]:
    return list(plot.template.fields)


def _gather(plots: list[Plot], span: Window, shape: Layout, interval: int, detail: bool, tail: bool = False) -> dict:
    """Run the group's one script; {(plot key, field): {result name: rows}}. Per window: mean and max (and min
    with `detail`); per series: count, minimum, mean, last, and the total where the legend shows one."""
    bind = Params()
    base = {"p_start": span.start, "p_stop": span.end, "p_every": timedelta(seconds=shape.every_s)}
    bucket = bind(shape.tier.bucket)
    keep, untimed = keep_columns(plots), keep_columns(plots, timed=False)
    lookup = Lookup()
    script = []

    def pred(suffix: str, only_totals: bool = False) -> str:
        return _predicate(plots, suffix, bind, lookup, only_totals)

    if shape.tier.step_s:  # a rollup tier: each window's Σ sum / Σ count, max (and min); whole-range figures
        sums, counts, maxima = pred("_sum"), pred("_count"), pred("_max")
        if shape.every_s == shape.tier.step_s and shape.tier.name in MEANS_KEPT:  # a window a point: its mean
            script += [
                chain(bucket, pred("_mean"), window("max"), untimed, "wmean"),  # the one stored mean of the window
                chain(bucket, sums, "|> sum()", untimed, "ssum"),
                chain(bucket, counts, "|> sum()", untimed, "scount"),
            ]
        else:
            script += [
                chain(bucket, sums, window("sum"), untimed, "wsum"),
                chain(bucket, counts, window("sum"), untimed, "wcount"),
            ]
        script.append(chain(bucket, maxima, window("max"), untimed, "wmax"))
        minima = pred("_min")
        if detail:
            script.append(chain(bucket, minima, window("min"), untimed, "wmin"))
        script.append(chain(bucket, minima, "|> min()", untimed, "lo"))
        if shape.every_s != shape.tier.step_s and not tail:  # else the newest sample or window stands for it
            script.append(chain(bucket, sums, "|> last()", keep, "lastsum"))
            script.append(chain(bucket, counts, "|> last()", keep, "lastcount"))
        totals = pred("_total", only_totals=True)
        if totals:
            script.append(chain(bucket, totals, "|> sum()", untimed, "total"))
    elif shape.windowed:  # raw samples, windowed
        every = pred("")
        for name in ("mean", "max", "min") if detail else ("mean", "max"):
            script.append(chain(bucket, every, window(name), untimed, "w" + name))
        for name, tail in (("n", "|> count()"), ("lo", "|> min()"), ("avg", "|> mean()"), ("last", "|> last()")):
            script.append(chain(bucket, every, tail, untimed, name))
        totals = pred("", only_totals=True)
        if totals:
            script.append(chain(bucket, totals, total_tail(interval), untimed, "tsum"))
            script.append(chain(bucket, totals, "|> first()", untimed, "tfirst"))
    else:  # few enough raw samples to read them all
        script.append(chain(bucket, pred(""), "", keep, "raw"))
    found = lookup.index(run("".join(script), base | bind.values))
    if shape.windowed:  # window rows carry no time: their place in the grid gives it
        times = grid(int(span.start.timestamp() * 1000), int(span.end.timestamp() * 1000), shape.every_s * 1000)
        for results in found.values():
            for name, rows in results.items():
                if name.startswith("w"):
                    results[name] = list(zip(times, map(itemgetter(1), rows), strict=False))  # as many as both
    return found


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
