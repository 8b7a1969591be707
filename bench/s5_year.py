"""Scenario 5's years of data: the previous scenario's 48 ports (raw samples only, for the backfill), and a
52-port switch with every graph of a real one, written as the pollers write (samples and rollups)."""

from __future__ import annotations

import math
import time
from pathlib import Path

from collectors.influx import InfluxWriter
from collectors.rollup import spanned
from collectors.samples import Sample

YEAR_S = 365 * 86400
DAY = 86400
PORTS = 48
FIELDS = ("in_bps", "out_bps", "in_errors", "out_errors", "in_discards", "out_discards")
FIELDS += ("in_ucast_pps", "out_ucast_pps", "in_bcast_pps", "out_bcast_pps")


def buckets(name: str) -> None:
    """Fresh buckets `name` and its rollup tiers' (raw kept forever, rollups as deployed)."""
    from django.conf import settings

    from monitor.timeseries import client, tiers

    api = client.client().buckets_api()
    for tier in (name, *tiers.rollup_buckets(name).values()):
        found = api.find_bucket_by_name(tier)
        if found is not None:
            api.delete_bucket(found)
    api.create_bucket(bucket_name=name, org=settings.INFLUXDB_ORG)
    tiers.ensure_buckets(client.client(), settings.INFLUXDB_ORG, name, include_raw=False)


def writer(influx, name: str, spool: Path) -> InfluxWriter:
    from monitor.timeseries import tiers

    return InfluxWriter(
        influx.url, influx.token, influx.org, name, spool, timeout_ms=120_000, rollup_buckets=tiers.rollup_buckets(name)
    )


def raw_year(influx, work: Path, bucket: str, device_key: str, fine_step: int = 60, coarse_step: int = 900) -> int:
    """The previous scenario's data, raw samples only: port 1/g1 every `fine_step` s for a year, the other 47
    ports every `coarse_step` s (4,344,960 field values). Returns the field values written."""
    out = writer(influx, bucket, work / "spool-s5-raw")
    end = int(time.time()) // 60 * 60
    values = 0
    for port, step in [(1, fine_step), *((p, coarse_step) for p in range(2, PORTS + 1))]:
        batch = []
        for at in range(end - YEAR_S, end, step):
            wave = 1 + 0.5 * ((at // 3600) % 24) / 24
            fields = {"in_bps": 1e6 * port * wave, "out_bps": 5e5 * port * wave}
            batch.append(Sample("interface", {"device": device_key, "port": f"1/g{port}"}, fields, float(at)))
            if len(batch) >= 20_000:
                values += _write(out, batch)
                batch = []
        values += _write(out, batch)
    out.close()
    return values


def _write(out: InfluxWriter, batch: list[Sample]) -> int:
    if batch and not out.write(batch):
        raise RuntimeError("InfluxDB refused the scenario 5 data")
    return 2 * len(batch)


def switch_polls(device_key: str, at: float, ports: int = 52, span_s: float | None = None) -> list[Sample]:
    """What a poll of a busy 52-port switch returns at `at`: every port's rates, CPU, memory, two temperatures;
    with `span_s` (the time since the poll before), what its rates cover as the poller writes it."""
    hour = (at % DAY) / 3600.0
    office = 0.2 + 0.8 * math.exp(-(((hour - 14.0) / 3.5) ** 2))
    samples = []
    for port in range(1, ports + 1):
        level = 2.5e6 * (port % 8 + 1) * office * (1 + 0.3 * math.sin(at / (900 + 60 * port)))
        fields = {
            "in_bps": level,
            "out_bps": 0.6 * level,
            "in_errors": 0.01 if port % 7 == 0 else 0.0,
            "out_errors": 0.0,
            "in_discards": 0.2 * office if port % 5 == 0 else 0.0,
            "out_discards": 0.0,
            "in_ucast_pps": level / 6400,
            "out_ucast_pps": 0.6 * level / 6400,
            "in_bcast_pps": 1.0,
            "out_bcast_pps": 0.5,
            "speed_bps": 1_000_000_000,
            "oper_up": 1,
        }
        name = f"1/g{port}" if port <= 48 else f"1/xg{port - 48}"
        fields = spanned(fields, span_s) if span_s else fields
        samples.append(Sample("interface", {"device": device_key, "port": name}, fields, at))
    system = {"cpu_util": 8.0 + 20 * office, "mem_used_bytes": 1.5e8 + 1e7 * office, "mem_total_bytes": 2.5e8}
    samples.append(Sample("system", {"device": device_key}, system, at))
    for n, celsius in ((1, 31.0), (2, 54.0)):
        tags = {"device": device_key, "kind": "temperature", "name": f"sensor {n}"}
        samples.append(Sample("sensor", tags, {"value": celsius + 3 * office, "warning_high": 70.0}, at))
    return samples


def switch_year(out: InfluxWriter, device_key: str, days: int = 366, raw_days: int = 2, old_step: int = 900) -> int:
    """A year of the 52-port switch through the pollers' write path: raw samples every 60 s for the last
    `raw_days`, before that rollups only, from a poll every `old_step` s. Returns the polls written."""
    from monitor.timeseries.history import HistoryWriter

    history = HistoryWriter(out)
    end = time.time() // 300 * 300
    at, polls = end - days * DAY, 0
    before = at - old_step
    while at < end:
        raw = at >= end - raw_days * DAY
        step = 60 if raw else old_step
        history.poll(device_key, at, switch_polls(device_key, at, span_s=at - before), step, raw=raw)
        before, at, polls = at, at + step, polls + 1
    history.close(end)
    if history.failed:
        raise RuntimeError(f"InfluxDB refused {history.failed} writes of the switch's year")
    return polls


def year_switch(influx, work: Path, bucket: str = "year"):
    """A switch (a Device row) with a year written as the pollers write it into fresh buckets `bucket`..., which
    the settings then point at (raw samples kept 14 days, as deployed)."""
    from django.conf import settings

    from monitor.core import services
    from monitor.models import Device

    settings.MONITOR_RAW_RETENTION_DAYS = 14
    buckets(bucket)
    settings.INFLUXDB_BUCKET = bucket
    services.reset_clients()
    device = Device.objects.create(name="year-switch", host="127.0.0.1", community="y", poll_interval_s=60)
    out = writer(influx, bucket, work / "spool")
    switch_year(out, str(device.pk))
    out.close()
    return device


def switch_graphs(device) -> list:
    """The graph rows discovery would make for that switch: traffic, errors and packets per port, CPU, memory and
    the two temperatures."""
    from monitor.models import Graph, Interface

    graphs = []
    for port in range(1, 53):
        name = f"1/g{port}" if port <= 48 else f"1/xg{port - 48}"
        Interface.objects.create(device=device, name=name, if_index=port, speed_bps=1_000_000_000)
        for slug in ("traffic", "errors", "packets"):
            graphs.append(Graph(device=device, template=slug, instance=name, title=f"{slug} {name}"))
    graphs += [Graph(device=device, template=slug, instance="", title=slug) for slug in ("cpu", "memory")]
    graphs += [Graph(device=device, template="temperature", instance=f"sensor {n}", title=f"T{n}") for n in (1, 2)]
    for position, graph in enumerate(graphs):
        graph.position = position
    return Graph.objects.bulk_create(graphs)
