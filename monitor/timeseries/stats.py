"""Legend arithmetic on plain numbers: the 95th percentile by rank, a bound that lets InfluxDB return only the
values that can hold it, totals by what each sample's counter delta covers, and window points of samples in Python."""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping, Sequence

from collectors.rollup import sample_weight
from monitor.timeseries import intervals
from monitor.timeseries.intervals import Polled

Q = 0.95


def rank_from_top(n: int) -> int:
    """The 95th percentile is the value at ascending index ceil(0.95 n) - 1, i.e. the k-th largest for this k."""
    return n - math.ceil(Q * n) + 1


def percentile(values: Sequence[float]) -> float | None:
    """The 95th percentile of all these values (exact: a value of the data, never interpolated)."""
    if not values:
        return None
    return kth_largest(values, rank_from_top(len(values)))


def kth_largest(values: Iterable[float], k: int) -> float:
    return heapq.nlargest(k, values)[-1]


def lower_bound(windows: Iterable[tuple[float, float]], k: int) -> float | None:
    """A value at most the k-th largest of the data, from (window minimum, values in the window) pairs: the
    largest minimum above which at least k values are known to lie. None when the windows cannot vouch for k."""
    seen = 0.0
    for minimum, count in sorted(windows, key=lambda pair: -pair[0]):
        seen += count
        if seen >= k:
            return minimum
    return None


def by_time(rows: Iterable[tuple[int, float | None]], scale: float = 1.0) -> dict[int, float]:
    """{t ms: value x scale} of a read's rows, the missing values left out: a total's spans or bytes, by sample."""
    return {t: v * scale for t, v in rows if v is not None}


def total(
    points: Sequence[tuple[int, float]],
    interval: float | Polled,
    spans: Mapping[int, float] | None = None,
    moved: Mapping[int, float] | None = None,
) -> float:
    """Σ value x its span: what each sample's counter delta moved (`moved`, {t ms: bytes x 8, in the rate's unit x s},
    as the poller wrote it), else value x its span (`spans`, {t ms: s}); a rate's total, never bridged across a gap.
    A sample written with neither (before the pollers wrote them) counts the time since the previous sample, or one
    poll interval after a gap longer than two intervals or for the first: the interval each sample was polled at
    (`Polled`; a number: that one throughout). Times in ms."""
    return total_between(points, -math.inf, None, interval, spans, moved)


def total_between(
    points: Sequence[tuple[int, float]],
    since_ms: float,
    until_ms: int | None,
    interval: float | Polled,
    spans: Mapping[int, float] | None = None,
    moved: Mapping[int, float] | None = None,
) -> float:
    """`total` of the samples from `since_ms` until `until_ms` (None: the last), each for its whole span; an
    earlier sample only sets the interval of the one after it (samples without a span)."""
    polled = intervals.of(interval)
    spans, moved = spans or {}, moved or {}
    result, last = 0.0, None
    for t_ms, value in points:
        t = t_ms / 1000.0
        if t_ms >= since_ms and (until_ms is None or t_ms < until_ms):
            volume = moved.get(t_ms)
            result += volume if volume is not None else value * sample_weight(t, last, polled.at(t_ms), spans.get(t_ms))
        last = t
    return result


def windowed(points: Sequence[tuple[int, float]], every_ms: int) -> list[list[float]]:
    """[t, min, mean, max] per window of `every_ms` aligned to the epoch, of (t ms, value) samples in time order."""
    out: list[list[float]] = []
    current, low, high, acc, n = None, 0.0, 0.0, 0.0, 0
    for t_ms, value in points:
        slot = t_ms - t_ms % every_ms
        if slot != current:
            if n:
                out.append([current, low, acc / n, high])
            current, low, high, acc, n = slot, value, value, 0.0, 0
        elif value < low:
            low = value
        elif value > high:
            high = value
        acc += value
        n += 1
    if n:
        out.append([current, low, acc / n, high])
    return out


def edge_windows(points: Sequence[tuple[int, float]], since_ms: int, every_ms: int) -> list[list[float]]:
    """[t, min, mean, max, samples] of (t ms, value) samples from `since_ms` on, one per interval of a chart's grid
    they fall in: the first from `since_ms`, the rest at multiples of `every_ms` (where a chart's rollup windows
    lie)."""
    slots: dict[int, list[float]] = {}
    for t_ms, value in points:
        slots.setdefault(max(since_ms, t_ms - t_ms % every_ms), []).append(value)
    return [[t, min(vs), sum(vs) / len(vs), max(vs), len(vs)] for t, vs in sorted(slots.items())]
