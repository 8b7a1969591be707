"""The home page answers "is anything wrong?" by the worst moments of the range: a port that ran near line rate for
five minutes outranks one busy all day at half of it, a volume that spiked to 65 ms outranks one steady at 10 ms,
each with its mean beside it; devices not answering are named before the rankings."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.models import Device, Interface
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db
NOW = int(time.time()) // 60 * 60
MINUTES = 120  # two hours of samples a minute apart


def burst(k: int) -> bool:
    return 40 <= k < 45  # five minutes of the two hours


@pytest.fixture
def planted(clean_backends, admin_client):
    switch = Device.objects.create(name="core-sw", host="127.0.0.1", community="x", poll_interval_s=60)
    array = Device.objects.create(name="array-1", host="127.0.0.2", community="x", poll_interval_s=60)
    quiet = Device.objects.create(name="quiet-box", host="127.0.0.3", community="x", poll_interval_s=60)
    Device.objects.filter(pk=quiet.pk).update(
        last_poll_at=datetime.now(timezone.utc) - timedelta(minutes=1), consecutive_failures=4,
        last_error="no SNMP response before the timeout",
    )  # fmt: skip
    for index, name in ((1, "steady"), (2, "bursty")):
        Interface.objects.create(device=switch, name=name, if_index=index, speed_bps=10**9)
    lines = []
    for k in range(MINUTES):
        t = NOW - 60 * k
        lines.append(f"interface,device={switch.pk},port=steady in_bps=500e6,out_bps=1e6 {t}")
        lines.append(f"interface,device={switch.pk},port=bursty in_bps={960e6 if burst(k) else 20e6},out_bps=1e6 {t}")
        lines.append(
            f"volume,device={array.pk},volume=spiky read_latency_ms={65 if burst(k) else 3.5},write_latency_ms=1 {t}"
        )
        lines.append(f"volume,device={array.pk},volume=steady read_latency_ms=10,write_latency_ms=2 {t}")
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")
    return admin_client.get("/?range=1d").content.decode()


def section(page: str, name: str) -> str:
    return page.split(f'id="{name}"')[1].split("</section>")[0]


def test_ports_rank_by_their_peak_with_their_mean_beside_it(planted):
    busiest = section(planted, "busiest-ports")
    assert "by their peak in the range" in busiest
    assert busiest.index("core-sw bursty") < busiest.index("core-sw steady")
    mean_bursty = (5 * 960e6 + 115 * 20e6) / 120  # 59.17 Mbit/s: 5.9 % of the port
    row = busiest.split("core-sw bursty")[1].split("</tr>")[0]
    assert ">96.0 %</td>" in row and ">960 Mbit/s<" in row and f"({100 * mean_bursty / 1e9:.1f} %)" in row
    assert "59.2 Mbit/s (5.9 %)" in row
    steady = busiest.split("core-sw steady")[1].split("</tr>")[0]
    assert ">50.0 %</td>" in steady and "(50.0 %)" in steady


def test_volumes_rank_by_their_worst_latency_with_their_mean_beside_it(planted):
    slowest = section(planted, "slowest-volumes")
    assert "by their worst latency in the range" in slowest
    assert slowest.index("array-1 spiky") < slowest.index("array-1 steady")
    spiky = slowest.split("array-1 spiky")[1].split("</tr>")[0]
    mean = (5 * 65 + 115 * 3.5) / 120  # 6.06 ms: the figure the page used to rank by
    assert ">65.00 ms</td>" in spiky and f">{mean:.2f} ms</td>" in spiky
    steady = slowest.split("array-1 steady")[1].split("</tr>")[0]
    assert ">10.00 ms</td><td>10.00 ms</td>" in steady


def test_what_is_wrong_comes_before_the_rankings_and_the_device_list(planted):
    wrong = section(planted, "not-answering")
    assert "quiet-box" in wrong and "no SNMP response before the timeout" in wrong and "core-sw" not in wrong
    assert planted.index('id="not-answering"') < planted.index('id="busiest-ports"') < planted.index('id="devices"')
    devices = section(planted, "devices")
    assert devices.index("quiet-box") < devices.index("array-1") < devices.index("core-sw")
