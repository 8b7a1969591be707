"""The one Flux script that reads a batch of graphs from one tier: windows, and the figures of the whole range
behind their legends."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from operator import itemgetter

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
from monitor.timeseries.plan import Layout, Window

# A batch with this many instances (ports...) of one device and template reads all of that device's instances
# (a batch of most of a switch's ports: the extra series cost less than a predicate naming each port).
EVERY_INSTANCE_AT = 48
# Tiers whose windows keep their mean (collectors/rollup.py): a chart of one window a point reads it, one column
# instead of sums and counts, and the range's Σ sum and Σ count as two numbers (a third fewer rows to send and read).
MEANS_KEPT = ("5m",)


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


@dataclass(frozen=True)
class Piece:
    """One range of a rollup tier's read: its windows, the figures of the range behind a legend, or both; `tail`:
    raw samples after the newest window stand for its last value (no last() read); `lowest`: the minimum alone."""

    span: Window
    windows: bool = True
    figures: bool = True
    tail: bool = False
    lowest: bool = False


def gather(plots: list[Plot], span: Window, shape: Layout, interval: int, detail: bool, tail: bool = False) -> dict:
    """Run the group's one script; {(plot key, field): {result name: rows}}. Per window: mean and max (and min
    with `detail`); per series: count, minimum, mean, last, and the total where the legend shows one."""
    if shape.tier.step_s:
        return gather_pieces(plots, shape, detail, {"": Piece(span, tail=tail)})[""]
    bind = Params()
    base = {"p_start": span.start, "p_stop": span.end, "p_every": timedelta(seconds=shape.every_s)}
    bucket = bind(shape.tier.bucket)
    keep, untimed = keep_columns(plots), keep_columns(plots, timed=False)
    lookup = Lookup()
    script = []

    def pred(suffix: str, only_totals: bool = False) -> str:
        return _predicate(plots, suffix, bind, lookup, only_totals)

    if shape.windowed:  # raw samples, windowed
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
    if shape.windowed:
        _timed(found, span, shape.every_s)
    return found


def gather_pieces(plots: list[Plot], shape: Layout, detail: bool, pieces: dict[str, Piece]) -> dict[str, dict]:
    """One script reading ranges of a rollup tier (each window's Σ sum / Σ count or stored mean, max and maybe
    min; the range's figures): {piece name: {(plot key, field): {result name: rows}}}."""
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


def means_kept(shape: Layout) -> bool:
    """Whether a chart's points are each one window of a tier that keeps its windows' means."""
    return shape.every_s == shape.tier.step_s and shape.tier.name in MEANS_KEPT


def reads_last(shape: Layout, tail: bool) -> bool:
    """Whether a rollup read takes last() of sums and counts for the legend's current value: not where a point is
    one window (the newest point is it) or where raw samples after the newest window stand for it (`tail`)."""
    return shape.every_s != shape.tier.step_s and not tail


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
    """A piece's chains: windows (the stored mean where a point is one window of a tier that keeps it), figures."""
    pred, script = reads.pred, []
    minima = pred("_min")
    if piece.lowest:
        return [reads.chain(minima, "|> min()", "lo")]
    sums, counts, maxima = pred("_sum"), pred("_count"), pred("_max")
    means = means_kept(shape)
    if piece.windows and means:
        script.append(reads.chain(pred("_mean"), window("max"), "wmean"))  # the window's one stored mean
    elif piece.windows:
        script += [reads.chain(sums, window("sum"), "wsum"), reads.chain(counts, window("sum"), "wcount")]
    if piece.windows:
        script.append(reads.chain(maxima, window("max"), "wmax"))
        if detail:
            script.append(reads.chain(minima, window("min"), "wmin"))
    if not piece.figures:
        return script
    if means or not piece.windows:  # the range's Σ sum and Σ count, where no windows' sums give them
        script += [reads.chain(sums, "|> sum()", "ssum"), reads.chain(counts, "|> sum()", "scount")]
    script.append(reads.chain(minima, "|> min()", "lo"))
    if reads_last(shape, piece.tail):
        script += [reads.chain(sums, "|> last()", "lastsum", True), reads.chain(counts, "|> last()", "lastcount", True)]
    totals = pred("_total", only_totals=True)
    if totals:
        script.append(reads.chain(totals, "|> sum()", "total"))
    return script
