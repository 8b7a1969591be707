"""The one read of a batch of graphs from one tier: windows, and the figures of the whole range behind their
legends. Flux, but for a rollup tier's windows read as stored (monitor.timeseries.influxql)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from operator import itemgetter

from collectors.rollup import MOVED
from monitor.timeseries import influxql, intervals, tiers
from monitor.timeseries.client import run
from monitor.timeseries.flux import (
    Params,
    Plot,
    any_of,
    chain,
    grid,
    keep_columns,
    series_predicate,
    window,
)
from monitor.timeseries.intervals import Polled
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.pieces import EVERY_INSTANCE_AT, Piece, means_kept, reads_of
from monitor.timeseries.plan import Layout, Window


def _predicate(
    plots: list[Plot], suffix: str, bind: Params, lookup: Lookup, only_totals: bool = False, what: str = ""
) -> str:
    """The series of these graphs (fields + `suffix`), one term per template and device: (its ports) and (its
    fields); registers each series with `lookup`. `what` of raw samples, for graphs with totals (`_names`)."""
    groups: dict[tuple, list[tuple[Plot, list[str]]]] = defaultdict(list)
    for plot in plots:
        fields = _names(plot, what) if not only_totals or plot.template.totals else []
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


def series_of(plots: list[Plot], bind: Params, lookup: Lookup) -> str:
    """The predicate of the graphs' fields' series, each registered with `lookup` (for reads of their own)."""
    return _predicate(plots, "", bind, lookup)


def _names(plot: Plot, what: str = "") -> list[str]:
    """A graph's fields (""); where its legend shows a total, with what its rates moved ("counted": the bytes,
    counted beside the rates), only that ("moved"), or with their spans too ("samples": everything a total of
    samples in Python reads, monitor/timeseries/stats.py)."""
    template = plot.template
    if what == "moved":
        return list(template.moved)
    if what == "counted":
        return [*template.fields, *template.moved]
    return list(template.sample_fields if what == "samples" else template.fields)


def gather(plots: list[Plot], span: Window, shape: Layout, interval: int, detail: bool, tail: bool = False) -> dict:
    """Run the group's one script; {(plot key, field): {result name: rows}}. Per window: mean and max (and min
    with `detail`); per series: count, minimum, mean, last, and the total where the legend shows one."""
    if shape.tier.step_s:
        return gather_pieces(plots, shape, detail, {"": Piece(span, tail=tail)})[""]
    return gather_raw(plots, span, shape, interval, detail)[0]


def gather_raw(
    plots: list[Plot], span: Window, shape: Layout, interval: int, detail: bool
) -> tuple[dict, dict[str, Polled]]:
    """`gather` of raw samples, and the intervals their devices were polled at ({device: Polled}, from their polls'
    records) where a legend shows a total and its samples are read. A windowed total is the sum of the bytes the
    rates moved, summed in InfluxDB ("msum"), where every rate has its bytes (the count of each, "n", is the same);
    a range holding samples written before the pollers wrote bytes has its samples read (`totals_read`, "traw")."""
    bind = Params()
    base = {"p_start": span.start, "p_stop": span.end, "p_every": timedelta(seconds=shape.every_s)}
    bucket = bind(shape.tier.bucket)
    keep, untimed = keep_columns(plots), keep_columns(plots, timed=False)
    lookup = Lookup()
    script = []

    def pred(suffix: str, only_totals: bool = False, what: str = "") -> str:
        return _predicate(plots, suffix, bind, lookup, only_totals, what)

    now_of = _now_of([p for p in plots if p.template.totals])
    if shape.windowed:  # raw samples, windowed
        every = pred("")
        for name in ("mean", "max", "min") if detail else ("mean", "max"):
            script.append(chain(bucket, every, window(name), untimed, "w" + name))
        counted = pred("", what="counted")  # the rates, and the bytes of those with totals
        script.append(chain(bucket, counted, "|> count()", untimed, "n"))
        for name, tail in (("lo", "|> min()"), ("avg", "|> mean()"), ("last", "|> last()")):
            script.append(chain(bucket, every, tail, untimed, name))
        moved = pred("", only_totals=True, what="moved")
        if moved:
            script.append(chain(bucket, moved, "|> sum()", untimed, "msum"))
    else:  # few enough raw samples to read them all
        script.append(chain(bucket, pred("", what="samples"), "", keep, "raw"))
        if now_of:
            script.append(intervals.flux(bind, bucket, list(now_of)))
            base |= intervals.window(span.start, span.end)
    tables = run("".join(script), base | bind.values)
    found = lookup.index(tables)
    if not shape.windowed:
        return found, intervals.from_tables(tables, now_of) if now_of else {}
    _timed(found, span, shape.every_s)
    again = [p for p in plots if p.template.totals and not _all_moved(found, p)]
    polled: dict[str, Polled] = {}
    if again:
        got, polled = totals_read(again, span)
        for key, rows in got.items():
            found[key]["traw"] = rows
    return found, polled


def _now_of(plots: list[Plot]) -> dict[str, float]:
    """{device: its poll interval today} of the graphs' devices (for samples no poll's record covers)."""
    return {p.members[0].device: float(p.members[0].interval_s) for p in plots}


def _all_moved(found: dict, plot: Plot) -> bool:
    """Whether every rate of a graph's range carries the bytes it moved (as many of each)."""
    for field in plot.template.fields:
        name = MOVED.get(field)
        if name is not None and _count(found, plot, field) != _count(found, plot, name):
            return False
    return True


def _count(found: dict, plot: Plot, field: str) -> float:
    rows = found.get((plot.key, field), {}).get("n", ())
    return sum(v for _, v in rows if v is not None)


def totals_read(plots: list[Plot], span: Window) -> tuple[dict[tuple[str, str], list], dict[str, Polled]]:
    """The raw samples of the fields whose legend shows a total, with their spans and bytes, {(plot key, field):
    rows}, and the intervals their devices were polled at: for graphs whose range holds samples written before the
    pollers wrote the bytes each rate moved."""
    bind, lookup = Params(), Lookup()
    bucket = bind(tiers.tiers()[0].bucket)
    predicate = _predicate(plots, "", bind, lookup, only_totals=True, what="samples")
    now_of = _now_of(plots)
    script = chain(bucket, predicate, "", keep_columns(plots), "traw") + intervals.flux(bind, bucket, list(now_of))
    params = {"p_start": span.start, "p_stop": span.end} | intervals.window(span.start, span.end)
    tables = run(script, params | bind.values)
    found = lookup.index(tables)
    return {key: results.get("traw", []) for key, results in found.items()}, intervals.from_tables(tables, now_of)


def gather_pieces(plots: list[Plot], shape: Layout, detail: bool, pieces: dict[str, Piece]) -> dict[str, dict]:
    """One request reading ranges of a rollup tier (each window's Σ sum / Σ count or stored mean, max and maybe
    min; the range's figures): {piece name: {(plot key, field): {result name: rows}}}. Windows as stored are
    InfluxQL's, windows of several stored ones Flux's (monitor.timeseries.influxql says why)."""
    if means_kept(shape):
        return influxql.read_stored(plots, shape, detail, pieces)
    return flux_pieces(plots, shape, detail, pieces)


def flux_pieces(plots: list[Plot], shape: Layout, detail: bool, pieces: dict[str, Piece]) -> dict[str, dict]:
    """`gather_pieces` in one Flux script, whatever the shape (aggregateWindow over each window)."""
    bind, lookup, preds = Params(), Lookup(), {}
    bucket = bind(shape.tier.bucket)
    keep, untimed = keep_columns(plots), keep_columns(plots, timed=False)

    def pred(suffix: str, only_totals: bool = False) -> str:
        if (suffix, only_totals) not in preds:
            preds[(suffix, only_totals)] = _predicate(plots, suffix, bind, lookup, only_totals)
        return preds[(suffix, only_totals)]

    params: dict[str, object] = {"p_every": timedelta(seconds=shape.every_s)}
    script = []
    for index, piece in enumerate(pieces.values()):
        params[f"r{index}_start"], params[f"r{index}_stop"] = piece.span.start, piece.span.end
        script += _rollup_chains(Reads(pred, bucket, keep, untimed, f"r{index}"), shape, detail, piece)
    names = list(pieces)
    out: dict[str, dict] = {name: {} for name in names}
    for target, results in lookup.index(run("".join(script), params | bind.values)).items():
        for result, rows in results.items():
            prefix, _, short = result.partition("_")
            out[names[int(prefix[1:])]].setdefault(target, {})[short] = rows
    for name, piece in pieces.items():
        if piece.windows:
            _timed(out[name], piece.span, shape.every_s)
    return out


def _timed(found: dict, span: Window, every_s: int) -> None:
    """Window rows carry no time: their place in the grid gives it."""
    times = grid(int(span.start.timestamp() * 1000), int(span.end.timestamp() * 1000), every_s * 1000)
    for results in found.values():
        for name, rows in results.items():
            if name.startswith("w"):
                results[name] = list(zip(times, map(itemgetter(1), rows), strict=False))  # as many as both


@dataclass(frozen=True)
class Reads:
    """How a script's chains name their series and columns, and the prefix of their range and results."""

    pred: Callable[..., str]
    bucket: str
    keep: str
    untimed: str
    prefix: str

    def chain(self, predicate: str, tail: str, name: str, timed: bool = False) -> str:
        keep = self.keep if timed else self.untimed
        return chain(self.bucket, predicate, tail, keep, f"{self.prefix}_{name}", window=self.prefix)


def _rollup_chains(reads: Reads, shape: Layout, detail: bool, piece: Piece) -> list[str]:
    """A piece's chains (pieces.reads_of): an aggregate per window, or over the range."""
    script = []
    for read in reads_of(shape, detail, piece):
        predicate = reads.pred(read.suffix, only_totals=read.name == "total")
        if predicate:
            tail = window(read.fn) if read.windowed else f"|> {read.fn}()"
            script.append(reads.chain(predicate, tail, read.name, timed=read.name.startswith("last")))
    return script
