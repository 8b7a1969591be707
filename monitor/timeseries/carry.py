"""A chart's windows carried over from the same range a window or two earlier, so a page stays warm as time moves
on: a live page's refresh after a new rollup window, or a page opened again minutes later, reads the windows
at the two ends of the range and the range's few legend figures instead of every window again."""

from __future__ import annotations

import math
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from monitor.timeseries import assemble, cache
from monitor.timeseries.flux import Plot
from monitor.timeseries.gather import gather_pieces
from monitor.timeseries.pieces import Piece, means_kept, reads_last
from monitor.timeseries.plan import Layout, Window

# Cached windows live two windows (cache.set_many): the range one or two windows earlier may still be there.
BACK = 2
# Windows carried over are read whole again after this, so a window written late (a spool's replay after an
# InfluxDB outage) reaches a page that never closes within the hour.
CARRY_FOR_S = 3600

KeyOf = Callable[[Plot, datetime, datetime], str]


@dataclass(frozen=True)
class Ask:
    """What a batch of charts asks of a rollup tier: its layout, the whole windows of the range, the range asked,
    whether windows' minima are wanted and whether raw samples after the newest window stand for its last value."""

    shape: Layout
    whole: Window
    span: Window
    detail: bool
    tail: bool


def carried(plots: list[Plot], key_of: KeyOf, ask: Ask) -> dict[str, dict]:
    """{plot key: part} for the plots whose part of the range moved back by one or two tier windows is cached:
    its windows that lie whole in both ranges, the windows at each end read anew, the legend's figures moved on
    by those of the windows that left and entered the range. Plots without such a part are left out (read whole)."""
    # pragma: no mutate block (reads Redis: tests/test_carried_windows.py)
    step, backs = timedelta(seconds=ask.shape.tier.step_s), range(1, BACK + 1)
    start, end = ask.whole.start, ask.whole.end
    earlier = {(p.key, back): key_of(p, start - back * step, end - back * step) for p in plots for back in backs}
    found = cache.get_many(list(earlier.values()))
    by_back: dict[int, dict[str, tuple[Plot, dict]]] = {}
    for plot in plots:
        for back in backs:
            part = found.get(earlier[(plot.key, back)])
            if part is not None and time.time() - part.get("_read_at", 0) < CARRY_FOR_S and _same_fields(plot, part):
                by_back.setdefault(back, {})[plot.key] = (plot, part)
                break
    out: dict[str, dict] = {}
    for back, pairs in by_back.items():
        out |= _moved(pairs, back, ask)
    return out


def _same_fields(plot: Plot, part: dict) -> bool:
    """Whether a cached part has the template's series, in its order (a deploy may have changed the template)."""
    return [item["field"] for item in part.get("series", ())] == [d.field for d in plot.template.series]


def _moved(pairs: dict[str, tuple[Plot, dict]], back: int, ask: Ask) -> dict[str, dict]:
    """Parts of the range from the parts of the range `back` tier windows earlier (see `carried`), in one read:
    the windows at each end, and the figures of the windows that left the range and of those that entered it."""
    # pragma: no mutate block (reads InfluxDB; the arithmetic is in _spans, _legend: tests/test_carried_windows.py)
    plots, shape = [p for p, _ in pairs.values()], ask.shape
    start, end = ask.whole.start.timestamp(), ask.whole.end.timestamp()
    found = _spans(start, end, back * shape.tier.step_s, shape.every_s, means_kept(shape))
    if found is None:
        return {}
    first_whole, last_whole, spans = found
    pieces = {"gone": Piece(_span(ask, *spans["gone"]), windows=False, tail=True)}
    if "new" in spans:
        pieces["tail"] = Piece(_span(ask, *spans["tail"]), figures=False)
        pieces["new"] = Piece(_span(ask, *spans["new"]), windows=False, tail=ask.tail)
    else:  # the windows new are the tail: one read gives both
        pieces["tail"] = Piece(_span(ask, *spans["tail"]), tail=ask.tail)
    if "head" in spans:
        pieces["head"] = Piece(_span(ask, *spans["head"]), figures=False)
    read = gather_pieces(plots, shape, ask.detail, pieces)
    ends = {
        name: {p.key: assemble.rollup_part(p, read[name], shape) for p in plots}
        for name in ("head", "tail")
        if name in read
    }
    out, unsure, entered = {}, [], "new" if "new" in read else "tail"
    lasts = reads_last(shape, ask.tail)  # last() read, as a cold read reads it
    for plot, old in pairs.values():
        series = []
        for index, item in enumerate(old["series"]):
            middle = _between(item["cols"], first_whole * 1000, last_whole * 1000)
            head = [ends["head"][plot.key]["series"][index]["cols"]] if "head" in ends else []
            cols = _joined([*head, middle, ends["tail"][plot.key]["series"][index]["cols"]])
            figures = [read[name].get((plot.key, item["field"]), {}) for name in ("gone", entered)]
            acc = _legend(item["acc"], *figures, cols, plot.scale, lasts)
            if acc["lo"] is UNSURE:
                unsure.append((plot, index))
            series.append({"field": item["field"], "label": item["label"], "cols": cols, "acc": acc})
        out[plot.key] = assemble.meta(plot, shape) | {"series": series, "_read_at": old["_read_at"]}
    if unsure:
        _minima(out, unsure, ask)
    return out


def _spans(
    start: float, end: float, moved: float, every: int, together: bool
) -> tuple[float, float, dict[str, tuple[float, float]]] | None:
    """The whole windows kept (first, last) and what `_moved` reads, in seconds: the windows gone, the tail from
    the last kept, the windows new (in the tail's read when they are the tail and `together`), a head cut short;
    None when no window lies whole in both ranges."""
    first_whole = math.ceil(start / every) * every  # from here windows are whole in both ranges...
    last_whole = math.floor((end - moved) / every) * every  # ...to here (the old range's last may be cut short)
    if last_whole <= first_whole:
        return None
    spans = {"gone": (start - moved, start), "tail": (last_whole, end)}
    if last_whole != end - moved or not together:
        spans["new"] = (end - moved, end)
    if start < first_whole:
        spans["head"] = (start, first_whole)
    return first_whole, last_whole, spans


UNSURE = object()  # a minimum that left the range, where the windows still in it were not read


def _legend(old: dict, gone: dict, new: dict, cols: dict, scale: float, lasts: bool) -> dict:
    """The sums behind the legend: the old range's, less the windows gone, plus the windows new (count, sum and
    total add up); the maximum of the windows kept; the minimum where the old one did not leave the range; the
    newest window's mean from last() where it was read (`lasts`), else from the newest point."""
    left, entered = assemble.figures(gone), assemble.figures(new)
    kept = old["n"] - left["n"]
    if kept <= 0:  # nothing left of the old range: the new windows' own figures (no residue of a subtraction)
        n, summed, total, lowest = entered["n"], entered["sum"], entered["total"], entered["lo"]
    else:
        n, summed = kept + entered["n"], old["sum"] - left["sum"] + entered["sum"]
        total = None
        if old["total"] is not None or entered["total"] is not None:
            total = (old["total"] or 0.0) - (left["total"] or 0.0) + (entered["total"] or 0.0)
        lowest = _lowest(old["lo"], left["lo"], entered["lo"])
    highs = [v for v in cols["max"] if v == v]
    current = entered["current"]
    if current is None and lasts:  # nothing entered: the newest window is the old range's, if any is kept
        current = old["current"] if kept > 0 else None
    elif current is None:
        current = cols["mean"][-1] / scale if len(cols["t"]) and scale else None
    return {
        "n": n,
        "sum": summed,
        "lo": lowest,
        "hi": max(highs) / scale if highs and scale else None,
        "total": total,
        "current": current,
    }


def _lowest(old: float | None, left: float | None, entered: float | None) -> object:
    """The range's minimum from the old one and those of the windows gone and new; UNSURE where it is unknown."""
    if entered is not None and (old is None or entered <= old):
        return entered
    if old is None or left is None or left > old:  # the old minimum is still in the range
        return old
    return UNSURE


def _minima(out: dict, unsure: list[tuple[Plot, int]], ask: Ask) -> None:
    """The minimum of the whole range, read for the series whose old minimum left it (a second, small read)."""
    # pragma: no mutate block (reads InfluxDB: tests/test_carried_windows.py)
    plots = list({plot.key: plot for plot, _ in unsure}.values())
    found = gather_pieces(plots, ask.shape, False, {"lo": Piece(ask.whole, lowest=True)})["lo"]
    for plot, index in unsure:
        item = out[plot.key]["series"][index]
        item["acc"]["lo"] = assemble.figures(found.get((plot.key, item["field"]), {}))["lo"]


def _span(ask: Ask, since: float, until: float) -> Window:
    return Window(_at(since), _at(until), ask.span.points, ask.span.now)


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def _between(cols: dict, since_ms: int, until_ms: int) -> dict:
    """The windows of `cols` starting in [since_ms, until_ms)."""
    lo, hi = bisect_left(cols["t"], since_ms), bisect_left(cols["t"], until_ms)
    return {name: column[lo:hi] for name, column in cols.items()}


def _joined(parts: list[dict]) -> dict:
    """Columns one after another; "min" where any part has it (NaN for the windows of parts without); "n" (each
    point's samples) where every part has it."""
    out = {"t": array("q"), "mean": array("d"), "max": array("d")}
    with_min = any(v == v for cols in parts for v in cols.get("min", ()))  # as a cold read: where a window has one
    if with_min:
        out["min"] = array("d")
    if all("n" in cols for cols in parts if len(cols["t"])) and any(len(cols["t"]) for cols in parts):
        out["n"] = array("q")
    for cols in parts:
        for name in out:
            out[name].extend(cols[name] if name in cols else array(out[name].typecode, [assemble.NAN] * len(cols["t"])))
    return out
