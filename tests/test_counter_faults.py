"""Counters in the wild, on a real agent: a 32-bit wrap at gigabit speed, ifIndex renumbering, a speed change."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device, Interface
from monitor.polling.run import run_poll
from monitor.timeseries import series as ts_series
from monitor.timeseries.templates import TEMPLATES

pytestmark = pytest.mark.django_db
WRAP = 2**32
APART_S = 2.6  # between polls: a rate needs half the devices' 5 s poll interval between its readings


def serve(tmp_path, name: str, ports: list[fleet.SimPort], port: int | None = None):
    data = tmp_path / name
    fleet.SimDevice("dev", "Test switch", "1.3.6.1.4.1.9999.42", name, ports).write(data)
    port = port or free_udp_port()
    return services.start_snmpsim(data, port, tmp_path / "log", name=f"snmpsim-{name}"), port


def rates(device: Device, port: str) -> list[list]:
    end = datetime.now(UTC) + timedelta(seconds=1)
    data = ts_series.one(
        TEMPLATES["traffic"], str(device.pk), port, end - timedelta(minutes=10), end, 600, device.poll_interval_s
    )
    return next(s["points"] for s in data["series"] if s["field"] == "in_bps")


def test_32_bit_counter_wrapping_at_gigabit_speed_gives_true_rates(tmp_path, clean_backends):
    # 100 MB/s on a 32-bit counter wraps every 43 s; start 150 MB before the wrap so it happens at once.
    agent, port = serve(
        tmp_path,
        "wrap",
        [fleet.SimPort(1, "ge1", in_rate=100_000_000.0, out_rate=1.0, hc=False, initial=WRAP - 150_000_000)],
    )
    device = Device.objects.create(
        name="wrap", host="127.0.0.1", port=port, community="dev", poll_interval_s=5, timeout_s=2.0
    )
    try:
        for _ in range(4):
            assert run_poll(device.pk) == "ok"
            time.sleep(APART_S)
    finally:
        agent.stop()
    points = rates(device, "ge1")
    assert len(points) == 3  # every interval has a rate, including the one across the wrap
    assert all(p[3] == pytest.approx(800_000_000, rel=0.05) for p in points)
    assert max(p[3] for p in points) <= 1_000_000_000  # never above the port's speed


def test_renumbered_ifindex_and_new_speed_follow_the_port_by_name_without_a_spike(tmp_path, clean_backends):
    before = [fleet.SimPort(i, f"1/0/{i}", in_rate=2_000_000.0 * i, out_rate=1.0) for i in (1, 2)]
    agent, port = serve(tmp_path, "before", before)
    device = Device.objects.create(
        name="renumber", host="127.0.0.1", port=port, community="dev", poll_interval_s=5, timeout_s=2.0
    )
    assert run_poll(device.pk) == "ok"
    time.sleep(APART_S)
    assert run_poll(device.pk) == "ok"
    agent.stop()
    # After a "reboot" the same ports come back at other ifIndexes, and 1/0/2 now links at 100 Mbit/s.
    after = [
        fleet.SimPort(101, "1/0/1", in_rate=2_000_000.0, out_rate=1.0),
        fleet.SimPort(102, "1/0/2", in_rate=4_000_000.0, out_rate=1.0, speed_bps=100_000_000),
    ]
    agent, _ = serve(tmp_path, "after", after, port=port)
    try:
        for _ in range(3):
            time.sleep(APART_S)
            assert run_poll(device.pk) == "ok"
    finally:
        agent.stop()
    rows = {row.name: row for row in Interface.objects.filter(device=device)}
    assert set(rows) == {"1/0/1", "1/0/2"}  # no new ports: history is keyed by name
    assert rows["1/0/1"].if_index == 101 and rows["1/0/2"].speed_bps == 100_000_000
    for name, rate in (("1/0/1", 16_000_000), ("1/0/2", 32_000_000)):
        points = rates(device, name)
        assert len(points) == 3  # one before the reboot, the reboot interval is a gap, two after
        assert all(p[3] == pytest.approx(rate, rel=0.05) for p in points), points
