"""Roll up raw history written before the pollers kept rollups (an upgrade, imported data): raw samples are
read back device by device and fed to the pollers' own window accumulator (collectors.rollup), so a window
backfilled and a window written live are the same thing. Used by `manage.py rollup_backfill`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from influxdb_client import InfluxDBClient

from collectors.influx import InfluxWriter, WriteResult
from collectors.lineprotocol import series_key
from collectors.rollup import Windows
from monitor.timeseries.client import run
from monitor.timeseries.templates import ROLLUP_TOTALS

# Every field of one device, without the window columns (integer fields, states and counts, are skipped in
# Python: the same filter in Flux is not pushed down and made the read 11 times slower).
_SCRIPT = """from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)
  |> filter(fn: (r) => r.device == p_device)
  |> drop(columns: ["_start", "_stop"])
"""
SKIP = ("result", "table", "_field", "_measurement")
WRITERS, BATCH = 2, 10_000  # InfluxDB parses writes on its own cores: two in flight keep both busy


@dataclass
class Report:
    """What a backfill did: devices, raw values read, rollup lines written per tier, and writes not taken."""

    devices: int = 0
    values: int = 0
    lines_5m: int = 0
    lines_1h: int = 0
    failed_writes: int = 0


def backfill(
    influx: InfluxDBClient,
    writer: InfluxWriter,
    bucket: str,
    devices: dict[str, int],
    start: datetime,
    end: datetime,
    chunk: timedelta = timedelta(days=7),
    on_device: Callable[[str], None] | None = None,
) -> Report:
    """Roll up [start, end) of each device ({device key: poll interval s}); windows still open at `end` (the
    current ones, which the pollers write) are left alone. Writing overlaps reading: InfluxDB takes one batch
    on its own cores while the next is computed."""
    report = Report()
    with ThreadPoolExecutor(max_workers=WRITERS) as pool:
        pending: list[Future] = []
        for device, interval in devices.items():
            windows = Windows()
            cursor = start
            while cursor < end:
                upper = min(cursor + chunk, end)
                params = {"p_bucket": bucket, "p_start": cursor, "p_stop": upper, "p_device": device}
                out: dict[str, list[str]] = {}
                for (key, measurement), samples in _samples(run(_SCRIPT, params, influx, typed=True)).items():
                    for t_ms in sorted(samples):
                        windows.add(key, measurement, t_ms / 1000.0, samples[t_ms], interval, out, ROLLUP_TOTALS)
                        report.values += len(samples[t_ms])
                pending = _write(pool, pending, writer, out, report)
                cursor = upper
            out = {}
            windows.close_due(end.timestamp(), out, ROLLUP_TOTALS)
            pending = _write(pool, pending, writer, out, report)
            report.devices += 1
            if on_device is not None:
                on_device(device)
        for future in pending:
            report.failed_writes += future.result()
    return report


def _samples(tables: list) -> dict[tuple[str, str], dict[int, dict[str, float]]]:
    """Whole samples again ({(series, measurement): {t ms: {field: value}}}) from one table per field, so each
    window is written as one line with all its fields."""
    found: dict[tuple[str, str], dict[int, dict[str, float]]] = {}
    for table in tables:
        if table.value_type != "double":
            continue
        group = table.group
        measurement, field = group.get("_measurement", ""), group.get("_field", "")
        key = series_key(measurement, tuple((k, v) for k, v in group.items() if k not in SKIP))
        times = found.setdefault((key, measurement), {})
        for t_ms, value in table.rows:
            if value is not None and t_ms is not None:
                fields = times.get(t_ms)
                if fields is None:
                    times[t_ms] = {field: value}
                else:
                    fields[field] = value
    return found


def _write(pool, pending: list[Future], writer: InfluxWriter, out: dict[str, list[str]], report: Report) -> list:
    """Hand each tier's lines to the writing threads, at most a few batches ahead of them."""
    for tier, lines in out.items():
        for at in range(0, len(lines), BATCH):
            pending.append(pool.submit(_send, writer, lines[at : at + BATCH], tier))
        if tier == "5m":
            report.lines_5m += len(lines)
        else:
            report.lines_1h += len(lines)
    while len(pending) > 2 * WRITERS:
        report.failed_writes += pending.pop(0).result()
    return pending


def _send(writer: InfluxWriter, lines: list[str], tier: str) -> int:
    return 0 if writer.write_lines(lines, tier) is WriteResult.WRITTEN else 1
