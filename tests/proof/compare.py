"""Compare each read of the series API with what the model says it must show (docs/graphs.md), field by field.

A page's first request (p95=later) is held to everything but a 95th percentile still pending; its second
(p95=only) to the 95th percentile and its source; the single-graph read (p95=now) to all. Numbers agree within
1e-9 relative (bits from integer octets are exact). Every difference names the read, the moment (from the batch's
anchor), the range, the plot and the scenarios' notes, so a failure reads on its own."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

REL = 1e-9
STATS = ("current", "average", "minimum", "maximum", "total")
# Differences expected for now, each a product defect known and not yet fixed (empty once it is): none of the kinds
# below (the totals after gaps, the coverage of an aggregate's members after an outage, the coarse charts' edges and
# the 5-minute fill of slow members were fixed: their kept examples must agree).
PENDING_KINDS: set[str] = set()
EDGE_GRID = False
FILL_5M: set[str] = set()
# An aggregate on a coarse chart (a rollup tier drawn at an interval longer than its window): the product draws the
# steps after the newest window counted a window of the tier each (monitor/timeseries/aggregates.py _with_tail), not
# one per interval of the chart's grid as single graphs now do, and values them apart from the grid's windows. A
# product defect, known and not fixed yet: point differences at an aggregate's edges are expected until it is.
EDGE_GRID_AGGREGATES = True
# A rollup chart whose raw tail holds no sample (the device silent, or its newest answer a gap): the product takes
# `current` from the cached windows (monitor/timeseries/assemble.py _from_rollup: the newest window's or point's
# mean), the docs the newest sample while raw retention holds it (kept example rollup-current-without-tail.json). A
# product defect, reported to the lead; empty this when it is fixed.
SILENT = {"missed", "reboot", "backoff"}
TAIL_S = 4200  # a 3,600-s device's hour is counted 63 to 68 minutes after its end (docs/graphs.md "Tiers")
WIDTHS = {"5m": 300, "1h": 3600}
SPANS = {"1h": 3600, "6h": 6 * 3600, "1d": 86400, "1w": 7 * 86400, "1m": 31 * 86400}


@dataclass(frozen=True)
class Difference:
    how: str
    moment_s: float  # from the batch's anchor
    span: str
    plot: str
    field: str
    got: Any
    want: Any
    notes: tuple[str, ...]
    keys: tuple[str, ...]  # scenario keys of the plot
    pending: str = ""  # why the difference is expected for now ("": it is not)

    def __str__(self) -> str:
        said = "; ".join(n for n in self.notes if not n.startswith("kind:"))
        kinds = ",".join(sorted({n[5:] for n in self.notes if n.startswith("kind:")}))
        flag = f" [expected-pending: {self.pending}]" if self.pending else ""
        return (
            f"{self.how} T0{self.moment_s:+.0f}s {self.span} {self.plot} {self.field}: got {_short(self.got)}, "
            f"model {_short(self.want)}{flag} | {kinds} | {said}"
        )

    @property
    def kind(self) -> str:
        """The class of a difference: which figure, on which read."""
        return f"{self.field}@{self.how.split('-')[-1]}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 160 else text[:157] + "..."


def same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if not isinstance(a, int | float) or not isinstance(b, int | float):
        return a == b
    return math.isclose(float(a), float(b), rel_tol=REL, abs_tol=1e-9)


def series_of(data: dict, field: str) -> dict | None:
    return next((s for s in data.get("series", []) if s["field"] == field), None)


def drawn_points(item: dict) -> dict[int, tuple]:
    """{t seconds: (min, mean, max)} of a series as answered (columns or point rows)."""
    if "cols" in item:
        cols = item["cols"]
        size = len(cols["t"])
        mins = cols.get("min", [None] * size)
        return {
            t // 1000: (lo, mean, hi)
            for t, lo, mean, hi in zip(cols["t"], mins, cols["mean"], cols["max"], strict=True)
        }
    return {p[0] // 1000: (p[1], p[2], p[3]) for p in item.get("points", [])}


def model_points(points) -> dict[int, tuple]:
    """{t seconds: (min, mean, max)} of the model's points: (t, value) samples or (t, min, mean, max) intervals (t in
    epoch milliseconds or seconds), or dicts or objects of the latter."""
    out = {}
    for point in points or ():
        if isinstance(point, dict):
            t, lo, mean, hi = point["t"], point.get("min"), point.get("mean"), point.get("max")
        elif isinstance(point, tuple | list) and len(point) == 2:
            t, lo = point
            mean = hi = lo
        elif isinstance(point, tuple | list):
            t, lo, mean, hi = point[:4]
        else:
            t, lo, mean, hi = point.t, point.min, point.mean, point.max
        out[int(t // 1000 if t > 1e11 else t)] = (lo, mean, hi)
    return out


def compare(
    read, field: str, expected, notes: tuple[str, ...], keys: tuple[str, ...], zero: float, total_divisor: float | None
) -> list:
    """Every difference between one read (tests/proof/batch.py Read) of `field` and the model's Expected (whose total
    is in the series' unit times seconds: the API's is divided by the template's `total_divisor`, bits to bytes;
    None: the template shows no total)."""
    data, part = read.data, read.how.split("-")[-1]  # later, only, or single
    kinds = {n[5:] for n in notes if n.startswith("kind:")}
    pending = "wt-span" if PENDING_KINDS & kinds else ""
    pending_all = pending if read.plot.startswith("aggregate") else ""  # an aggregate's coverage, not only its total
    sparse = read.plot.startswith("aggregate") and expected.p95_source == "5-minute means" and FILL_5M & kinds
    p95_pending = pending_all or ("fill-5m" if sparse else "")
    out: list[Difference] = []

    def differ(name: str, got: Any, want: Any, is_pending: str = "") -> None:
        if not same(got, want):
            out.append(
                Difference(
                    read.how, read.moment - zero, read.span.name, read.plot, name, got, want, notes, keys, is_pending
                )
            )

    if "error" in data:
        differ("error", data["error"], "an answer")
        return out
    item = series_of(data, field) or {"stats": {}}
    stats = item.get("stats", {})
    if part in ("later", "single"):
        differ("tier", data.get("tier"), expected.tier)
        differ("every_s", data.get("resolution_s"), expected.every_s)
        differ("aggregated", data.get("aggregated"), expected.aggregated)
        for name in STATS:
            want = getattr(expected, name)
            if name == "total":
                if total_divisor is None:
                    continue
                want = want / total_divisor if want is not None else None
            why = pending if name == "total" else pending_all
            if name == "current" and not why and expected.tier in WIDTHS and SILENT & kinds:
                why = "current-rollup"
            differ(name, stats.get(name), want, why)
        if part == "single" or stats.get("p95") is not None:
            differ("p95", stats.get("p95"), expected.p95, p95_pending)
            differ("p95_source", data.get("p95_source"), expected.p95_source)
        got, want = drawn_points(item), model_points(expected.points)
        missing, extra = sorted(want.keys() - got.keys()), sorted(got.keys() - want.keys())
        wrong = [t for t in sorted(want.keys() & got.keys()) if not _same_point(got[t], want[t])]
        edges = _edge_grid(read, expected, [*missing, *extra, *wrong]) or pending_all
        if missing:
            differ("points missing", [int(t - zero) for t in missing[:12]], f"{len(missing)} points", edges)
        if extra:
            differ("points extra", [int(t - zero) for t in extra[:12]], f"{len(extra)} not in the model", edges)
        if wrong:
            first = wrong[0]
            differ(f"points wrong ({len(wrong)})", (int(first - zero), got[first]), want[first], edges)
    else:
        differ("p95", stats.get("p95"), expected.p95, p95_pending)
        differ("p95_source", data.get("p95_source"), expected.p95_source)
    return out


def _edge_grid(read, expected, times: list[float]) -> str:
    """Which coarse-chart edge defect (EDGE_GRID) explains point differences at `times`, "" for none."""
    width = WIDTHS.get(expected.tier)
    known = EDGE_GRID or (EDGE_GRID_AGGREGATES and read.plot.startswith("aggregate"))
    if not known or width is None or expected.every_s <= width or not times:
        return ""
    end = read.moment
    start = read.span.start if read.span.start is not None else end - SPANS[read.span.name]
    head_until = math.floor(start / expected.every_s) * expected.every_s + expected.every_s
    tail_from = end - TAIL_S - width - expected.every_s
    found = {"head-grid" if t <= head_until else "tail-grid" if t >= tail_from else "" for t in times}
    if not EDGE_GRID:
        found = {f"aggregate-{name}" if name else "" for name in found}
    return "" if "" in found else "+".join(sorted(found))


def _same_point(got: tuple, want: tuple) -> bool:
    """min, mean, max; a side the answer leaves out (a page's batch has no minima) is not compared."""
    return all(g is None or same(g, w) for g, w in zip(got, want, strict=True))
