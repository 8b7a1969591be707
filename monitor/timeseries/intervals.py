"""The poll interval a device was polled at, when: each poll's record says it (`poller` measurement, `interval_s`,
written with the poll's samples), so a total counts each sample by the interval in force when it was polled, as its
rollup windows did (collectors/rollup.py), not by the device's interval today: after a change from 300 to 60 s,
every older 300-s spacing counted as a gap, and a 6-hour view showed a fifth of the 1-day view's total."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from monitor.timeseries.client import Table
from monitor.timeseries.flux import Params, any_of, chain
from monitor.timeseries.rawcols import SeriesCols

MEASUREMENT, FIELD = "poller", "interval_s"
RESULT = "polled"
AFTER_S = 600  # a poll's record is written when it ends: read this far past a range for its last samples' polls


class Polled:
    """A device's poll intervals by time, from its polls' records (t ms, seconds); `now_s`: its interval today,
    for samples no record covers (history written before polls kept records)."""

    __slots__ = ("now_s", "times", "values")

    def __init__(self, rows: Iterable[tuple[int | None, float | None]], now_s: float):
        kept = sorted((t, v) for t, v in rows if t is not None and v)
        self.times, self.values, self.now_s = [t for t, _ in kept], [float(v) for _, v in kept], float(now_s)

    def at(self, t_ms: float) -> float:
        """The interval of the poll that read a sample at `t_ms`: its record is the first at or after it (written
        when the poll ends), else the newest before it, else the interval today."""
        i = bisect_left(self.times, t_ms)
        if i < len(self.times):
            return self.values[i]
        return self.values[-1] if self.values else self.now_s

    def differs(self, since_ms: float, until_ms: float) -> bool:
        """Whether a record from `since_ms` to `until_ms` (and the first after it) names another interval than
        today's: then an interval today's stands for is not the one its samples were polled at."""
        lo, hi = bisect_left(self.times, since_ms), bisect_left(self.times, until_ms)
        return any(v != self.now_s for v in self.values[lo : hi + 1])


def of(interval: float | Polled) -> Polled:
    """`interval` as Polled (a number: that interval throughout)."""
    return interval if isinstance(interval, Polled) else Polled((), interval)


def window(start: datetime, stop: datetime) -> dict[str, datetime]:
    """The `q_start`..`q_stop` of `flux` for samples from `start` to `stop`: AFTER_S more, since a poll's record is
    written when the poll ends."""
    return {"q_start": start, "q_stop": stop + timedelta(seconds=AFTER_S)}


def flux(bind: Params, bucket: str, devices: Sequence[str]) -> str:
    """A chain yielding the devices' poll records over `q_start`..`q_stop` (RESULT: time, interval, device)."""
    devices = list(dict.fromkeys(devices))
    predicate = f"r._measurement == {bind(MEASUREMENT)} and r._field == {bind(FIELD)} and " + any_of(
        [f"r.device == {bind(device)}" for device in devices]
    )
    return chain(bucket, predicate, "", '["_time", "_value", "device"]', RESULT, window="q")


def from_tables(tables: list[Table], now_of: dict[str, float]) -> dict[str, Polled]:
    """{device: Polled} from a script's RESULT tables, for each device of `now_of` ({device: interval today})."""
    rows: dict[str, list] = {device: [] for device in now_of}
    only = next(iter(now_of)) if len(now_of) == 1 else None
    for table in tables:
        if table.result == RESULT:
            device = table.group.get("device", only)
            if device in rows:
                rows[device] += table.rows
    return {device: Polled(found, now_of[device]) for device, found in rows.items()}


def from_series(kept: Iterable[SeriesCols], device: str, now_s: float) -> Polled:
    """A device's Polled from its raw series as read whole (monitor/timeseries/edges.py)."""
    rows = []
    for series in kept:
        if series.group.get("_measurement") == MEASUREMENT and FIELD in series.fields:
            rows += [(t, v) for t, v in zip(series.times, series.fields[FIELD], strict=True) if v == v]
    return Polled(rows, now_s)
