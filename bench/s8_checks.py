"""Scenario 8's checks, read back from InfluxDB: every tick of every device polled, every rollup window in time.

Rollup windows are checked through a small schema adapter, so the same checker reads the rollups of the poll
path (`<field>_min/_max/_sum/_count` per window in `<bucket>_5m` and `<bucket>_1h`, the primary schema) and
those of the older Celery job (`stat=min|mean|max` tagged points with the raw field names).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from bench import stack
from bench.common import percentile
from collectors.rollup import TIERS, begun_by_s

# Series every switch must have a rollup point for in each window: (measurement, raw field, identifying tags).
FAMILIES = (("interface", "in_bps", ("device", "port")), ("system", "uptime_s", ("device",)))


@dataclass(frozen=True)
class RollupSchema:
    """Where a rollup tier keeps a window of one raw field: the field it writes, and a tag when it has one."""

    name: str
    suffix: str = ""  # `<field><suffix>` is present in every written window
    stat: str = ""  # tag `stat` of the point that is present in every written window

    def predicate(self, raw_field: str) -> str:
        """A Flux filter body for the points that show a window of `raw_field` was written."""
        check = f'r._field == "{raw_field}{self.suffix}"'
        return f'{check} and r.stat == "{self.stat}"' if self.stat else check


SCHEMAS = {
    "window-fields": RollupSchema("window-fields", suffix="_count"),  # written by the pollers when a window closes
    "stat-tag": RollupSchema("stat-tag", stat="max"),  # monitor.rollups.rollup_recent, a Celery beat job
}


def detect_schema(influx, since: float, device: str) -> RollupSchema | None:
    """The schema of the 5-minute tier, read from one switch's points (None while it holds nothing). One switch:
    a `limit()` over every interface series of the tier (4 million at 2,000 switches) held 10 GB of InfluxDB's
    heap for 5 minutes, and the runs that called it were the runs whose InfluxDB grew to 9-18 GB."""
    flux = (
        f'from(bucket:"{influx.bucket}_5m") |> range(start:{int(since) - 3600})'
        f' |> filter(fn:(r) => r._measurement == "interface" and r.device == "{device}") |> limit(n:1)'
    )
    rows = stack.flux_rows(influx, flux)
    if any(row.get("stat") for row in rows):
        return SCHEMAS["stat-tag"]
    if any(row.get("_field", "").endswith("_count") for row in rows):
        return SCHEMAS["window-fields"]
    return None


def _keys(influx, bucket: str, start: int, stop: int, measurement: str, predicate: str, tags) -> set[tuple]:
    """The series (tag values) with a point of `predicate` in [start, stop): `last()` per series, pushed down."""
    flux = (
        f'from(bucket:"{bucket}") |> range(start:{start}, stop:{stop})'
        f' |> filter(fn:(r) => r._measurement == "{measurement}" and {predicate}) |> last()'
        f" |> keep(columns:{['_time', *tags]!r}) |> group()".replace("'", '"')
    )
    return {tuple(row.get(tag, "") for tag in tags) for row in stack.flux_rows(influx, flux)}


@dataclass
class Window:
    """One rollup window of one tier and what was found of it."""

    tier: str
    start: int
    step: int
    expected: dict[str, set] = field(default_factory=dict)  # family -> series with raw data in the window
    written_after_s: float | None = None  # end of the window to the check that found every expected point
    looked_at: float = 0.0
    missing_at_deadline: int | None = None
    missing_at_end: int | None = None
    examples: list[str] = field(default_factory=list)

    @property
    def end(self) -> int:
        return self.start + self.step


# When the last device polled each minute has begun the poll that writes a window, after its end (collectors/rollup.py).
WRITTEN_AFTER_S = {tier: begun_by_s(step, 60) for tier, step in TIERS}  # the scenario polls every 60 s


class RollupChecker(threading.Thread):
    """Checks every window of each tier that ends between `first` and `last`: first when every device should have
    written it (WRITTEN_AFTER_S after its end, + grace: the checker's reads cost InfluxDB 5-8 s each, so none is spent
    before), then every minute until every expected series has its point, and for the verdict at one window after
    its end (+ grace). What is still missing then is looked for once more at the end of the run."""

    def __init__(
        self, influx, first: float, last: float, probe: str, schema: str = "auto", grace: float = 30.0
    ) -> None:
        """`probe`: the id of a switch whose points tell the rollup schema."""
        super().__init__(name="rollup-checker", daemon=True)
        self.influx, self.grace, self.stop_event, self.probe = influx, grace, threading.Event(), probe
        self.schema: RollupSchema | None = None if schema == "auto" else SCHEMAS[schema]
        self.windows = [
            Window(tier, start, step)
            for tier, step in TIERS
            for start in range(int(first) // step * step, int(last), step)
            if first < start + step <= last
        ]
        self.fives = {w.start: w for w in self.windows if w.tier == "5m"}  # an hour's expected series are theirs
        self.query_s: list[float] = []
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stop_event.wait(5.0):
            for window in self.windows:
                if window.written_after_s is None and window.missing_at_deadline is None:
                    self._check_due(window)

    def _check_due(self, window: Window) -> None:
        now = time.time()
        if now < window.end + WRITTEN_AFTER_S[window.tier] + self.grace:
            return
        deadline = window.end + window.step + self.grace
        if now - window.looked_at < 60 and now < deadline:
            return
        window.looked_at = now
        try:
            missing = self.missing(window)
        except Exception as exc:  # InfluxDB busy or away: noted, looked at again next time
            self.errors.append(f"{window.tier} {window.start}: {type(exc).__name__}: {str(exc)[:120]}")
            return
        if not missing:
            window.written_after_s = now - window.end
        elif now >= deadline:
            window.missing_at_deadline = len(missing)

    def missing(self, window: Window) -> list[str]:
        """Expected series of the window without their rollup point (the expected ones read once, from raw)."""
        started = time.perf_counter()
        if self.schema is None:
            self.schema = detect_schema(self.influx, window.start, self.probe)
        schema = self.schema or SCHEMAS["window-fields"]
        bucket, out = f"{self.influx.bucket}_{window.tier}", []
        for measurement, raw, tags in FAMILIES:
            self._expected(window, measurement, raw, tags)
            written = _keys(
                self.influx, bucket, window.start, window.start + 1, measurement, schema.predicate(raw), tags
            )
            out += [f"{measurement} {'/'.join(key)}" for key in sorted(window.expected[measurement] - written)]
        self.query_s.append(time.perf_counter() - started)
        if out:
            window.examples = out[:3]
        return out

    def _expected(self, window: Window, measurement: str, raw: str, tags) -> set[tuple]:
        """The series with raw samples in the window, read once. An hour's are its 5-minute windows' together (most
        read by their own checks), not one read of the hour's raw samples: 6 million values at 2,000 switches, read
        at 5.5 minutes past the hour inside the measure, slowed the pages then (docs/performance.md, scenario 8)."""
        if measurement not in window.expected:
            if window.step > 300:
                found: set[tuple] = set()
                for start in range(window.start, window.end, 300):
                    part = self.fives.setdefault(start, Window("5m", start, 300))
                    found |= self._expected(part, measurement, raw, tags)
            else:
                predicate = f'r._field == "{raw}"'
                found = _keys(self.influx, self.influx.bucket, window.start, window.end, measurement, predicate, tags)
            window.expected[measurement] = found
        return window.expected[measurement]

    def finish(self, run_end: float) -> dict:
        """Stop, look once more for what was missing at its deadline, and summarise per tier."""
        self.stop_event.set()
        self.join(timeout=120)
        for window in self.windows:
            overdue = window.end + window.step + self.grace <= run_end
            if window.written_after_s is None and (window.missing_at_deadline is not None or not overdue):
                try:
                    window.missing_at_end = len(self.missing(window))
                except Exception as exc:
                    self.errors.append(f"final {window.tier} {window.start}: {type(exc).__name__}")
        return self.summary(run_end)

    def summary(self, run_end: float) -> dict:
        tiers = {}
        for tier, step in TIERS:
            mine = [w for w in self.windows if w.tier == tier]
            due = [w for w in mine if w.end + step + self.grace <= run_end]
            lags = [w.written_after_s for w in mine if w.written_after_s is not None]
            tiers[tier] = {
                "windows": len(mine),
                "due": len(due),
                "on_time": sum(1 for w in due if w.written_after_s is not None),
                "late": sum(1 for w in due if w.written_after_s is None and w.missing_at_end == 0),
                "missing": sum(1 for w in due if w.written_after_s is None and (w.missing_at_end or 0) > 0),
                "not_yet_due_complete": sum(1 for w in mine if w not in due and w.written_after_s is not None),
                "not_yet_due_incomplete": sum(1 for w in mine if w not in due and w.written_after_s is None),
                "series_expected": max((sum(map(len, w.expected.values())) for w in mine), default=0),
                "written_after_p50_s": percentile(lags, 50),
                "written_after_max_s": max(lags, default=float("nan")),
                "examples": next((w.examples for w in mine if w.written_after_s is None and w.examples), []),
            }
        windows = [
            {
                "tier": w.tier,
                "start": w.start,
                "expected": sum(map(len, w.expected.values())),
                "written_after_s": w.written_after_s,
                "missing_at_deadline": w.missing_at_deadline,
                "missing_at_end": w.missing_at_end,
                "examples": w.examples,
            }
            for w in self.windows
        ]
        return {
            "schema": self.schema.name if self.schema else "none found",
            "tiers": tiers,
            "windows": windows,
            "check_query_p50_s": percentile(self.query_s, 50),
            "errors": self.errors[:5],
        }


def tick_report(influx, device_ids: list[int], interval: int, start: float, stop: float) -> dict:
    """Every scheduled tick in [start, stop) of every device against the `poller` points: missed (no good poll
    for it), failed polls and skipped ticks, per minute; lateness and duration of the good polls."""
    flux = (
        f'from(bucket:"{influx.bucket}") |> range(start:{int(start)}, stop:{int(stop) + 600})'
        ' |> filter(fn:(r) => r._measurement == "poller")'
        ' |> pivot(rowKey:["_time"], columnKey:["_field"], valueColumn:"_value")'
        ' |> keep(columns:["_time","device","ok","tick","skipped","skipped_tick","lateness_s","duration_s"])'
        " |> group()"
    )
    polled: set[tuple[str, int]] = set()
    failed, skipped = Counter(), Counter()
    lateness, duration = [], []
    for row in stack.flux_rows(influx, flux):
        if row.get("tick"):
            tick = int(float(row["tick"]))
            if start <= tick < stop and row.get("ok") in ("1", "1.0"):
                polled.add((row["device"], tick))
                lateness.append(float(row.get("lateness_s") or "nan"))
                duration.append(float(row.get("duration_s") or "nan"))
        elif row.get("skipped_tick"):
            tick = int(float(row["skipped_tick"]))
            if start <= tick < stop:
                skipped[int((tick - start) // 60)] += 1
        elif row.get("ok") in ("0", "0.0"):
            at = _epoch(row["_time"])
            if start <= at < stop + interval:
                failed[int((min(at, stop - 1) - start) // 60)] += 1
    missed, expected = Counter(), 0
    for device_id in device_ids:
        tick = stack.tick_of(device_id, interval, start)
        tick = tick if tick >= start else tick + interval
        while tick < stop:
            expected += 1
            if (str(device_id), tick) not in polled:
                missed[int((tick - start) // 60)] += 1
            tick += interval
    minutes = int((stop - start + 59) // 60)
    return {
        "expected": expected,
        "polled": len(polled),
        "missed": sum(missed.values()),
        "failed": sum(failed.values()),
        "skipped": sum(skipped.values()),
        "per_minute": [
            {"minute": m, "missed": missed[m], "failed": failed[m], "skipped": skipped[m]} for m in range(minutes)
        ],
        "lateness_p50_s": percentile(lateness, 50),
        "lateness_p95_s": percentile(lateness, 95),
        "lateness_max_s": max(lateness, default=float("nan")),
        "duration_p50_s": percentile(duration, 50),
        "duration_p95_s": percentile(duration, 95),
    }


def _epoch(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
