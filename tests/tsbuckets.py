"""Buckets of a test's own (raw kept forever, rollup tiers as deployed) and a writer for planted history."""

from __future__ import annotations

import math
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

from collectors.influx import InfluxWriter
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
    api.create_bucket(bucket_name=base, org=settings.INFLUXDB_ORG)  # raw kept forever: old samples load
    tiers.ensure_buckets(client.client(), settings.INFLUXDB_ORG, base, include_raw=False)
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
    raw: bool = True,
    field: str = "in_bps",
) -> None:
    """One sample of `port` per time, `rate(t)` bit/s, written with its rollups as a poll would write it."""
    for at in times:
        value = rate(at)
        fields = {field: float(value)} if value is not None and math.isfinite(value) else {}
        history.poll(device, at, [Sample("interface", {"device": device, "port": port}, fields, at)], interval_s, raw)
