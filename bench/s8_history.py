"""Scenario 8's history: days of raw samples for the switches whose pages are opened, shaped from their live polls.

A fresh install holds minutes of data, so a 1-day page would read a few points and the disk per switch and day
would be mostly per-series overhead. Before the measured window, each chosen switch's latest raw points (every
series, whatever the product's schema) are written again once a minute back over `days`: floats follow a daily
swing with some jitter, integers and strings are kept (a `tick` field follows its time). Written to the raw bucket
(the pages read it) and to a bucket of their own (its compacted size per switch and day is the raw tier's disk).
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import time
import urllib.request

BUCKET = "bench_history"
DAY_S = 86400


def _query(influx, flux: str) -> list[dict]:
    """Rows of a Flux query with each value typed by its datatype annotation."""
    request = urllib.request.Request(
        f"{influx.url}/api/v2/query?org={influx.org}",
        data=json.dumps({"query": flux, "type": "flux", "dialect": {"annotations": ["datatype"]}}).encode(),
        headers={"Authorization": f"Token {influx.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        text = response.read().decode()
    rows, header, types = [], None, None
    for line in csv.reader(io.StringIO(text)):
        if not line:
            header = None
        elif line[0] == "#datatype":
            types = line
        elif header is None:
            header = line
        else:
            rows.append({name: (kind, value) for name, kind, value in zip(header, types or header, line, strict=False)})
    return rows


def _escape(text: str) -> str:
    """A measurement, tag or field name or a tag value for line protocol (names here have no `=`)."""
    for char in "\\, =":
        text = text.replace(char, "\\" + char)
    return text


def _value(kind: str, raw: str, field: str, at: int, scale: float) -> str:
    if kind == "double":
        return repr(float(raw) * scale)
    if kind == "long":
        return f"{at if field == 'tick' else int(raw)}i"
    if kind == "unsignedLong":
        return f"{int(raw)}u"
    if kind == "boolean":
        return raw
    return '"' + raw.replace("\\", "\\\\").replace('"', '\\"') + '"'


def template(influx, device: str) -> dict[str, dict[str, tuple[str, str]]]:
    """The device's series (measurement and tags as line protocol) and each one's latest fields (type, value): a
    poll after the first, whose points carry rates."""
    flux = f'from(bucket:"{influx.bucket}") |> range(start:-3m) |> filter(fn:(r) => r.device == "{device}") |> last()'
    series: dict[str, dict[str, tuple[str, str]]] = {}
    for row in _query(influx, flux):
        tags = sorted(
            (k, v[1]) for k, v in row.items() if not k.startswith("_") and k not in ("", "result", "table") and v[1]
        )
        key = _escape(row["_measurement"][1]) + "".join(f",{_escape(k)}={_escape(v)}" for k, v in tags)
        series.setdefault(key, {})[row["_field"][1]] = row["_value"]
    return series


def lines(series: dict, until: int, days: float, seed: int) -> list[str]:
    """One point a minute per series over `days` before `until`, floats on a daily swing with 5 % jitter."""
    rng = random.Random(seed)
    phase = rng.random() * 2 * math.pi
    out = []
    for at in range(until - int(days * DAY_S), until, 60):
        swing = (1 + 0.45 * math.sin(2 * math.pi * at / DAY_S + phase)) / 1.45
        for key, fields in series.items():
            body = ",".join(
                f"{_escape(name)}={_value(kind, raw, name, at, swing * (0.95 + 0.1 * rng.random()))}"
                for name, (kind, raw) in fields.items()
            )
            out.append(f"{key} {body} {at}")
    return out


def write(influx, bucket: str, batch: list[str]) -> None:
    request = urllib.request.Request(
        f"{influx.url}/api/v2/write?org={influx.org}&bucket={bucket}&precision=s",
        data="\n".join(batch).encode(),
        headers={"Authorization": f"Token {influx.token}", "Content-Type": "text/plain; charset=utf-8"},
    )
    urllib.request.urlopen(request, timeout=300).close()


def _create_bucket(influx, name: str) -> None:
    headers = {"Authorization": f"Token {influx.token}", "Content-Type": "application/json"}
    org = urllib.request.Request(f"{influx.url}/api/v2/orgs?org={influx.org}", headers=headers)
    with urllib.request.urlopen(org, timeout=30) as response:
        org_id = json.load(response)["orgs"][0]["id"]
    body = json.dumps({"orgID": org_id, "name": name, "retentionRules": []}).encode()
    urllib.request.urlopen(
        urllib.request.Request(f"{influx.url}/api/v2/buckets", data=body, headers=headers), timeout=30
    ).close()


def backfill(influx, device_ids: list[int], days: float, until: int) -> dict:
    """`days` of history for each device, ending at `until` (before its first live poll); returns what was written."""
    _create_bucket(influx, BUCKET)
    started, points, values = time.perf_counter(), 0, 0
    for device in device_ids:
        series = template(influx, str(device))
        if not any(len(fields) > 2 for key, fields in series.items() if key.startswith("interface,")):
            raise RuntimeError(f"device {device}'s latest interface points carry no rates: no history shaped")
        batch = lines(series, until, days, device)
        for start in range(0, len(batch), 20_000):
            chunk = batch[start : start + 20_000]
            write(influx, influx.bucket, chunk)
            write(influx, BUCKET, chunk)
        points += len(batch)
        values += len(batch) // max(1, len(series)) * sum(len(f) for f in series.values())
    return {
        "switches": len(device_ids),
        "days": days,
        "points": points,
        "field_values": values,
        "seconds": time.perf_counter() - started,
    }


def rollups(influx, device_ids: list[int], days: float, until: int, spool) -> dict | None:
    """The history's 5-minute and 1-hour windows, by the product's own backfill (the pollers' accumulator), into
    `bench_history_5m` and `bench_history_1h`: the rollup tiers' disk per switch and day. None when the product
    has no such backfill (rollups written by a Celery job)."""
    try:
        from collectors.influx import InfluxWriter
        from monitor.timeseries import backfill, tiers
        from monitor.timeseries.client import connect
    except ImportError:
        return None
    from datetime import datetime, timezone

    end = datetime.fromtimestamp(until // 3600 * 3600, timezone.utc)
    start = datetime.fromtimestamp(until - int(days * DAY_S), timezone.utc)
    writer = InfluxWriter(
        influx.url,
        influx.token,
        influx.org,
        BUCKET,
        spool,
        timeout_ms=120_000,
        rollup_buckets=tiers.rollup_buckets(BUCKET),
    )
    started = time.perf_counter()
    with connect(600_000) as client:
        tiers.ensure_buckets(client, influx.org, BUCKET, include_raw=False)
        report = backfill.backfill(client, writer, BUCKET, {str(d): 60 for d in device_ids}, start, end)
    return {
        "lines_5m": report.lines_5m,
        "lines_1h": report.lines_1h,
        "failed_writes": report.failed_writes,
        "seconds": time.perf_counter() - started,
        "days": (end - start).total_seconds() / DAY_S,
    }
