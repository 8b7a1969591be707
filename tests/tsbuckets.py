"""Buckets of a test's own (every tier with its retention as deployed) and a writer for planted history."""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from collectors.influx import InfluxWriter
from collectors.rollup import spanned
from collectors.samples import Sample
from monitor.core import services
from monitor.timeseries import client, tiers
from monitor.timeseries.history import HistoryWriter


@contextmanager
def own_buckets(base: str, spool: Path):
    """Point the settings at fresh buckets `base` and its rollup tiers (`base_5m`...); yield a writer for all."""
    old = settings.INFLUXDB_BUCKET
    api = client.client().buckets_api()
    for name in (base, *tiers.rollup_buckets(base).values()):
        found = api.find_bucket_by_name(name)
        if found is not None:
            api.delete_bucket(found)
    # as `manage.py influxdb_buckets --raw` makes them: InfluxDB refuses raw samples past the raw retention
    tiers.ensure_buckets(client.client(), settings.INFLUXDB_ORG, base, include_raw=True)
    settings.INFLUXDB_BUCKET = base
    services.reset_clients()
    writer = InfluxWriter(
        settings.INFLUXDB_URL,
        settings.INFLUXDB_TOKEN,
        settings.INFLUXDB_ORG,
        base,
        spool,
        timeout_ms=60_000,
        rollup_buckets=tiers.rollup_buckets(base),
    )
    try:
        yield writer
    finally:
        writer.close()
        settings.INFLUXDB_BUCKET = old
        services.reset_clients()


def port_polls(
    history: HistoryWriter,
    device: str,
    port: str,
    times: list[float],
    rate,
    interval_s: float,
    raw: bool | None = None,
    field: str = "in_bps",
    spans: bool = False,
) -> None:
    """One sample of `port` per time, `rate(t)` bit/s, written with its rollups as a poll would write it; its raw
    sample too where `raw` (None: where the raw bucket still takes it, as after its retention). `spans`: with what
    the rate covers, as the pollers write it now (its span, the time since the time before, and the bytes it moved);
    else as written before they did."""
    kept_from = raw_kept_from()
    before = None
    for at in times:
        value = rate(at)
        fields = {field: float(value)} if value is not None and math.isfinite(value) else {}
        if spans and fields:
            fields = spanned(fields, at - before if before is not None else interval_s)
        before = at
        sample = Sample("interface", {"device": device, "port": port}, fields, at)
        history.poll(device, at, [sample], interval_s, at >= kept_from if raw is None else raw)


def raw_kept_from() -> float:
    """The oldest time (epoch seconds) the raw bucket takes a sample of now, with an hour to spare: InfluxDB refuses
    samples older than its retention (MONITOR_RAW_RETENTION_DAYS; 0: kept forever)."""
    days = settings.MONITOR_RAW_RETENTION_DAYS
    return time.time() - days * 86400 + 3600 if days else 0.0
