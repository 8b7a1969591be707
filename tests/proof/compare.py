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

    def __str__(self) -> str:
        said = "; ".join(n for n in self.notes if not n.startswith("kind:"))
        kinds = ",".join(sorted({n[5:] for n in self.notes if n.startswith("kind:")}))
        return (
            f"{self.how} T0{self.moment_s:+.0f}s {self.span} {self.plot} {self.field}: got {_short(self.got)}, "
            f"model {_short(self.want)} | {kinds} | {said}"
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
    out: list[Difference] = []

    def differ(name: str, got: Any, want: Any) -> None:
        if not same(got, want):
            out.append(
                Difference(read.how, read.moment - zero, read.span.name, read.plot, name, got, want, notes, keys)
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
            differ(name, stats.get(name), want)
        if part == "single" or stats.get("p95") is not None:
            differ("p95", stats.get("p95"), expected.p95)
            differ("p95_source", data.get("p95_source"), expected.p95_source)
        got, want = drawn_points(item), model_points(expected.points)
        missing, extra = sorted(want.keys() - got.keys()), sorted(got.keys() - want.keys())
        wrong = [t for t in sorted(want.keys() & got.keys()) if not _same_point(got[t], want[t])]
        if missing:
            differ("points missing", [int(t - zero) for t in missing[:12]], f"{len(missing)} points")
        if extra:
            differ("points extra", [int(t - zero) for t in extra[:12]], f"{len(extra)} not in the model")
        if wrong:
            first = wrong[0]
            differ(f"points wrong ({len(wrong)})", (int(first - zero), got[first]), want[first])
    else:
        differ("p95", stats.get("p95"), expected.p95)
        differ("p95_source", data.get("p95_source"), expected.p95_source)
    return out


def _same_point(got: tuple, want: tuple) -> bool:
    """min, mean, max; a side the answer leaves out (a page's batch has no minima) is not compared."""
    return all(g is None or same(g, w) for g, w in zip(got, want, strict=True))
