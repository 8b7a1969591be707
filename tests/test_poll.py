"""Polls against a real snmpsim agent, writing to a real InfluxDB and keeping counters in a real Redis."""

import time
from datetime import datetime, timedelta, timezone

import pytest

from monitor.core import services
from monitor.models import Device, Graph, Interface
from monitor.polling.run import run_poll
from monitor.timeseries import series as ts_series
from monitor.timeseries.templates import TEMPLATES

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("snmp_engine")]


def make_device(agent, community: str, **extra) -> Device:
    return Device.objects.create(
        name=f"dev-{community}",
        host="127.0.0.1",
        port=agent.port,
        snmp_version="2c",
        community=community,
        poll_interval_s=2,  # polled by hand 1.5-3 s apart: rates need half an interval between readings
        timeout_s=1.0,
        retries=1,
        **extra,
    )


def series(device: Device, port: str, minutes: int = 10) -> dict:
    end = datetime.now(timezone.utc) + timedelta(seconds=1)
    data = ts_series.one(
        TEMPLATES["traffic"], str(device.pk), port, end - timedelta(minutes=minutes), end, 500, device.poll_interval_s
    )
    return {s["field"]: s for s in data["series"]}


def poll_twice(device: Device, gap: float = 3.0) -> None:
    assert run_poll(device.pk) == "ok"
    time.sleep(gap)
    assert run_poll(device.pk) == "ok"


def test_first_poll_stores_counters_and_writes_no_rate(agent, clean_backends):
    device = make_device(agent, "switch")
    assert run_poll(device.pk) == "ok"
    assert services.counter_store().load(str(device.pk)).counters  # kept in Redis
    assert series(device, "1/g1")["in_bps"]["points"] == []
    device.refresh_from_db()
    assert device.last_error == "" and device.consecutive_failures == 0 and device.uptime_s is not None


def test_64_bit_rates_match_the_agent_within_one_percent(agent, clean_backends):
    device = make_device(agent, "switch")
    poll_twice(device)
    for index in (1, 4, 8):
        data = series(device, f"1/g{index}")
        (in_point,) = data["in_bps"]["points"]
        (out_point,) = data["out_bps"]["points"]
        assert in_point[2] == pytest.approx(1_250_000 * 8 * index, rel=0.01)
        assert out_point[2] == pytest.approx(625_000 * 8 * index, rel=0.01)


def test_ports_and_graphs_are_recorded_by_name(agent, clean_backends):
    device = make_device(agent, "switch")
    assert run_poll(device.pk) == "ok"
    ports = {p.name: p for p in Interface.objects.filter(device=device)}
    assert sorted(ports) == sorted(f"1/g{i}" for i in range(1, 9))
    assert ports["1/g3"].hc_counters is True
    assert ports["1/g3"].speed_bps == 1_000_000_000
    assert ports["1/g3"].alias == "<b>port 3</b>"
    assert set(Graph.objects.filter(device=device, template="traffic").values_list("instance", flat=True)) == set(ports)


def test_32_bit_only_device_uses_ifinoctets(agent, clean_backends):
    device = make_device(agent, "legacy")
    poll_twice(device)
    assert not Interface.objects.get(device=device, name="fa0/1").hc_counters
    (point,) = series(device, "fa0/2")["in_bps"]["points"]
    assert point[2] == pytest.approx(2_000_000 * 8, rel=0.01)


def test_rates_survive_a_worker_restart(agent, clean_backends):
    device = make_device(agent, "switch")
    assert run_poll(device.pk) == "ok"
    # A new worker process has no memory of its own: only Redis carries the counters.
    services.reset_clients()
    time.sleep(2)
    assert run_poll(device.pk) == "ok"
    (point,) = series(device, "1/g2")["in_bps"]["points"]
    assert point[2] == pytest.approx(2_500_000 * 8, rel=0.01)


def test_reboot_writes_a_gap_not_a_spike(agent, clean_backends):
    device = make_device(agent, "switch")
    poll_twice(device)
    agent.reboot()  # uptime and counters restart from zero
    time.sleep(1.5)
    assert run_poll(device.pk) == "ok"
    time.sleep(2)
    assert run_poll(device.pk) == "ok"
    points = series(device, "1/g5")["in_bps"]["points"]
    assert len(points) == 2  # before the reboot, and after it: the reboot interval itself is a gap
    for point in points:
        assert point[3] == pytest.approx(1_250_000 * 8 * 5, rel=0.01)
