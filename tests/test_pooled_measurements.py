"""A page pools the graphs of small templates in one request: a traffic graph and a disk-throughput graph of one
device, read together over raw ranges, answer with each graph's own samples (the request answered 503: the polls'
records read in the same script carry no measurement, and were taken for a series of one of the two)."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.models import Device, Graph
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db
NOW = int(time.time()) // 60 * 60


@pytest.fixture
def planted(clean_backends, admin_client):
    device = Device.objects.create(name="mixed", host="127.0.0.1", community="x", poll_interval_s=60)
    traffic = Graph.objects.create(device=device, template="traffic", instance="p1", title="Traffic p1")
    disk = Graph.objects.create(device=device, template="disk_throughput", instance="sda", title="Disk sda")
    lines = []
    for k in range(1, 8 * 60):
        t = NOW - 60 * k
        lines.append(f"interface,device={device.pk},port=p1 in_bps={1e6 * (1 + k % 7)},out_bps=2e6 {t}")
        lines.append(f"disk_io,device={device.pk},disk=sda read_bps={1e5 * (1 + k % 5)},write_bps=3e5 {t}")
        lines.append(f"poller,device={device.pk} interval_s={300 if k > 300 else 60}i {t}")
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")
    return admin_client, traffic, disk


@pytest.mark.parametrize("preset", ["1h", "6h"])
@pytest.mark.parametrize("p95", ["later", "only", "now"])
def test_a_pooled_request_of_two_measurements_answers_each_graph(planted, preset, p95):
    client, traffic, disk = planted
    query = urlencode([("graph", traffic.pk), ("graph", disk.pk), ("range", preset), ("points", "300"),
                       ("p95", p95), ("shape", "columns")])  # fmt: skip
    response = client.get(f"/api/series?{query}")
    assert response.status_code == 200, response.content[:300]
    graphs = response.json()["graphs"]
    fields = {str(traffic.pk): ("in_bps", 1e6, 7e6), str(disk.pk): ("read_bps", 1e5, 5e5)}
    for key, (field, low, high) in fields.items():
        series = next(s for s in graphs[key]["series"] if s["field"] == field)
        if p95 != "only":
            assert (series["stats"]["minimum"], series["stats"]["maximum"]) == (low, high), (key, series["stats"])
            assert max(v for v in series["cols"]["max"] if v is not None) == high
