"""Write polls' samples and the rollup windows they close exactly as the poll path does, for samples that were
not polled just now: the demo's first history and tests that plant known data."""

from __future__ import annotations

from collections.abc import Iterable

from collectors.influx import InfluxWriter, WriteResult
from collectors.lineprotocol import format_samples, series_key
from collectors.rollup import Windows
from collectors.samples import Sample
from monitor.timeseries import intervals
from monitor.timeseries.templates import ROLLUP_TOTALS


class HistoryWriter:
    """Feeds each device's polls, in time order, through its own rollup windows; writes in large batches."""

    def __init__(self, writer: InfluxWriter, batch_lines: int = 20_000, rollups: bool = True):
        self.writer = writer
        self.rollups = rollups  # False: raw samples only, as written before the pollers kept rollups
        self.batch_lines = batch_lines
        self.windows: dict[str, Windows] = {}
        self.lines: dict[str, list[str]] = {"raw": [], "5m": [], "1h": []}
        self.failed = 0

    def poll(self, device: str, at: float, samples: Iterable[Sample], interval_s: float, raw: bool = True) -> None:
        """One poll of `device` that started at `at`; `raw=False` keeps only its rollups (history older than
        the raw bucket's retention). Its raw samples come with the poll's record of its interval, as the pollers
        write it (monitor/polling/records.py)."""
        record = Sample(intervals.MEASUREMENT, {"device": device}, {intervals.FIELD: int(interval_s)}, at)
        samples = [*samples, record]
        windows = self.windows.setdefault(device, Windows())
        if self.rollups:
            for tier, lines in windows.take(samples, interval_s, at, series_key, ROLLUP_TOTALS).items():
                self.lines[tier] += lines
        if raw:
            self.lines["raw"] += format_samples(samples)
        if max(len(lines) for lines in self.lines.values()) >= self.batch_lines:
            self.flush()

    def flush(self) -> None:
        for tier, lines in self.lines.items():
            if lines and self.writer.write_lines(lines, tier) is not WriteResult.WRITTEN:
                self.failed += 1
            lines.clear()

    def close(self, now: float) -> dict[str, Windows]:
        """Write every window that ended by `now`; the open ones are returned (a poller can carry them on)."""
        for windows in self.windows.values():
            out: dict[str, list[str]] = {}
            windows.close_due(now, out, ROLLUP_TOTALS)
            for tier, lines in out.items():
                self.lines[tier] += lines
        self.flush()
        return self.windows
