"""An aggregate's summed window means over a long range (what its 95th percentile of 5-minute means is of), kept
and carried on as the range moves: a year of an aggregate is 105,000 windows of every member, read again every
5 minutes otherwise. A window's sum never changes once it is among the range's whole windows (an aggregate's end
waits for its slow members' fill: plan.lag), so only the windows that entered are read; those that left are
cut off. Kept per aggregate and length of range, as sliding.py keeps single graphs' values."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable
from datetime import datetime, timezone

from monitor.timeseries import cache
from monitor.timeseries.flux import Plot

KEPT_S = 3 * 3600  # kept this long after the last view
Means = dict[str, list[tuple[int, float]]]


def summed_means(
    plot: Plot, tier: str, start: datetime, end: datetime, read: Callable[[datetime, datetime], Means]
) -> Means:
    """{field: [(window start ms, Σ members' means)]} of [start, end) of `tier`: from what was kept for this
    aggregate and length of range, with `read` of the windows that entered it, else `read` in full."""
    hours = round((end - start).total_seconds() / 3600)
    key = cache.key("aggregate-means", tier, plot.template.slug, plot.members, hours)
    first, last = _ms(start), _ms(end)
    state = cache.get_many([key]).get(key)
    if state is not None and state["start"] <= first and state["end"] <= last and first < state["end"]:
        entered = read(_at(state["end"]), end) if state["end"] < last else {}
        means = {}
        for field in plot.template.fields:
            times, values = state.get(field, (array("q"), array("d")))
            cut = bisect_left(times, first)  # in time order: what left the range is a prefix
            kept = list(zip(times[cut:], values[cut:], strict=True))
            means[field] = kept + [(t, v) for t, v in entered.get(field, []) if t < last]
    else:
        means = read(start, end)
    columns = {
        field: (array("q", [t for t, _ in rows]), array("d", [v for _, v in rows])) for field, rows in means.items()
    }
    cache.set_many({key: {"start": first, "end": last, **columns}}, KEPT_S, windows=1)
    return means


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, timezone.utc)
