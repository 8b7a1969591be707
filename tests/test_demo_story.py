"""The demo tells one story live and in its written past: the array's IOPS follow the day, volume 1 reads at 65 ms
from 20 past every hour for five minutes whatever the hour, and then switch port 1/g7 on its path runs near line
rate, discarding and receiving pause frames. Live: the simulated agent's own counter maths; past: the 30 days the
demo writes at first start, read back by the heatmap and the path page at one day and one week."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from collectors.samples import Sample
from monitor.devstack import fleet, history, services
from monitor.devstack.processes import free_udp_port
from monitor.devstack.story import Story, in_pulse, sine
from tests.conftest import Agent

SIMDEV = Path(fleet.__file__).parent / "variation" / "simdev.py"
EQL_STATS = "1.3.6.1.4.1.12740.5.1.7.34.1"
DAY = 86400
NOON = 1_767_225_600 + 14 * 3600  # 2026-01-01 14:00 UTC: the day's peak
NIGHT = NOON + 12 * 3600  # 02:00 UTC: its trough


def simdev():
    spec = importlib.util.spec_from_file_location("simdev_for_tests", SIMDEV)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(device: fleet.SimDevice, oid: str) -> dict[str, str]:
    value = next(v for o, _, v in device.extra if o == oid)
    return dict(part.split("=", 1) for part in value.split(","))


@pytest.mark.parametrize("hour_start", [NOON, NIGHT])
def test_the_live_spike_reads_65_ms_at_noon_and_at_night(hour_start):
    """Δ(latency sum) / Δ(reads) of volume 1 as the agent serves it, inside and outside the spike: the spike rides
    on the day's shape as the reads do, so it is 65 ms at the day's peak and at its trough alike."""
    sim, array = simdev(), fleet.equallogic_array(breathing=True)
    index = "1841966935.1"
    latency, reads = record(array, f"{EQL_STATS}.6.{index}"), record(array, f"{EQL_STATS}.8.{index}")
    control = {"epoch": hour_start - 3 * DAY}

    def per_read_ms(t0: float, t1: float) -> float:
        done = sim.counter_value(reads, control, t1) - sim.counter_value(reads, control, t0)
        return (sim.counter_value(latency, control, t1) - sim.counter_value(latency, control, t0)) / done / 1000

    spike = hour_start + 1200  # 14:20 (02:20)
    assert per_read_ms(spike + 30, spike + 90) == pytest.approx(65.0, rel=0.01)
    assert per_read_ms(spike - 600, spike - 60) == pytest.approx(1.5, rel=0.01)
    assert per_read_ms(spike + 400, spike + 900) == pytest.approx(1.5, rel=0.01)
    ops = (sim.counter_value(reads, control, spike + 60) - sim.counter_value(reads, control, spike)) / 60
    assert ops == pytest.approx(100 * sine(spike + 30, 0.5, DAY, fleet.DAILY_PHASE), rel=0.01)
    assert ops == pytest.approx(150 if hour_start == NOON else 50, rel=0.05)  # the day's shape: 1.5x and 0.5x


def test_the_story_rewrites_a_poll_for_any_moment():
    """A poll taken at noon, told at 02:22 (in the spike), 02:40 (out of it) and at noon the next day."""
    array = fleet.equallogic_array(breathing=True)
    switch = fleet.powerconnect_6248(attached=fleet.array_attachments(array), spike=fleet.SPIKE)
    volume = Sample("volume", {"volume": "vmfs-datastore-1", "pool": "default"}, {}, NOON + 300)
    volume.fields.update(read_iops=150.0, write_iops=75.0, read_latency_ms=1.5, read_pct=66.7, queue_depth=2.0)
    told = Story(array).past(volume, NIGHT + 22 * 60)
    assert told.fields["read_latency_ms"] == 65.0 and told.time == NIGHT + 22 * 60
    assert told.fields["read_iops"] == pytest.approx(50.0, rel=0.02)  # night: a third of the noon peak
    assert told.fields["read_pct"] == 66.7 and told.fields["queue_depth"] == 2.0  # levels do not follow the day
    assert Story(array).past(volume, NIGHT + 40 * 60).fields["read_latency_ms"] == 1.5
    assert Story(array).past(volume, NOON + DAY).fields["read_iops"] == pytest.approx(150.0, rel=0.01)
    member = Sample("member", {"member": "eql-member-1"}, {"read_latency_ms": 3.5}, NOON)
    assert Story(array).past(member, NIGHT + 20 * 60).fields["read_latency_ms"] == pytest.approx(
        (100 * 65 + 200 * 35 + 300 * 4.5) / 600
    )
    port = Sample("interface", {"port": "1/g7"}, {"out_bps": 1e6, "out_discards": 0.0, "in_pause_pps": 0.0}, NOON)
    busy = Story(switch).past(port, NIGHT + 21 * 60).fields
    assert busy == {"out_bps": 960e6, "out_discards": 40.0, "in_pause_pps": 150.0}  # 96 % of 1 Gbit/s
    quiet = Story(switch).past(port, NIGHT + 30 * 60).fields
    assert quiet["out_discards"] == 0.0 and quiet["out_bps"] < 100e6
    other = Sample("interface", {"port": "1/g20"}, {"in_bps": 1000.0}, NOON)
    spec = switch.ports[19]
    expected = 1000.0 * sine(NIGHT, spec.amplitude, spec.period_s) / sine(NOON, spec.amplitude, spec.period_s)
    assert Story(switch).past(other, NIGHT).fields["in_bps"] == pytest.approx(expected)
    assert Story(switch).past(Sample("system", {}, {"cpu_util": 9.0}, NOON), NIGHT) is None  # not modelled
    assert in_pulse(fleet.SPIKE, NIGHT + 20 * 60) and not in_pulse(fleet.SPIKE, NIGHT + 25 * 60)


@pytest.fixture(scope="module")
def demo_agent(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo-story")
    devices = {d.community: d for d in fleet.demo_fleet()}
    for device in devices.values():
        device.write(root / "data")
    control = root / "control.json"
    control.write_text("{}")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", control_file=control, name="snmpsim-story")
    yield Agent(port, control, devices)
    process.stop()


@pytest.mark.django_db(transaction=True)
def test_the_written_past_shows_the_spike_and_the_busy_port_at_a_day_and_a_week(demo_agent, clean_backends, tmp_path):
    """A week written as at the demo's first start (a poll every 5 minutes, to be quick); the heatmap and the path page
    read it back: volume 1 red each hour, 1/g7 marked near line rate and discarding, the other path ports not."""
    from datetime import datetime, timedelta, timezone

    from django.conf import settings

    from collectors.influx import InfluxWriter
    from monitor.devices.profiles import registry
    from monitor.models import Device
    from monitor.polling.run import run_polls
    from monitor.storage.pathdata import path_data
    from monitor.storage.paths import refresh_paths
    from monitor.timeseries import tiers, top

    switch = Device.objects.create(
        name="pc6248-demo", host="127.0.0.1", port=demo_agent.port, community="pc6248", timeout_s=3
    )
    array = Device.objects.create(name="eql-demo", host="127.0.0.1", port=demo_agent.port, community="eql", timeout_s=3)
    assert all(o.startswith("ok") for o in run_polls([switch.pk, array.pk]).values())  # discovered: profile, ports
    assert refresh_paths().links == 4
    switch.refresh_from_db()
    array.refresh_from_db()
    sims = {sim.sys_name: sim for sim in fleet.demo_fleet()}
    devices = [(str(d.pk), d.snmp_target(), registry()[d.profile]) for d in (switch, array)]
    stories = {str(d.pk): Story(sims[d.name]) for d in (switch, array)}
    writer = InfluxWriter(
        settings.INFLUXDB_URL,
        settings.INFLUXDB_TOKEN,
        settings.INFLUXDB_ORG,
        settings.INFLUXDB_BUCKET,
        tmp_path / "spool",
        timeout_ms=60_000,
        spool_max_bytes=0,
        rollup_buckets=tiers.rollup_buckets(),
    )
    until = time.time() - 600
    try:
        history.write(writer, devices, until, days=7, step_s=300, progress=lambda _: None, stories=stories)
    finally:
        writer.close()
    end = datetime.fromtimestamp(until, timezone.utc)
    for days, least in ((1, 20), (7, 150)):
        start = end - timedelta(days=days)
        heat = top.latency_heatmap(str(array.pk), "read_latency_ms", start, end, 400, 60)
        rows = dict(zip(heat["volumes"], heat["values"], strict=True))
        red = [v for v in rows["vmfs-datastore-1"] if v is not None and v >= 50]
        assert len(red) >= least, (days, len(red))  # about one an hour, none averaged away
        assert max(v for v in rows["vmfs-datastore-3"] if v is not None) < 20  # no spike: green all along
        data = path_data(array, "vmfs-datastore-1", start, end, 400)
        marks = {p["port"]: p["marks"] for p in data["ports"]}
        assert set(marks["1/g7"]) == {"near line rate", "discarding"}, days
        assert marks["1/g8"] == marks["1/g9"] == marks["1/g10"] == []
        latency = next(c for c in data["charts"] if c["key"] == "latency")
        assert max(v for _, v in latency["series"][0]["points"]) == pytest.approx(65.0, rel=0.02)
    iops = top_hours(str(array.pk), end - timedelta(days=7), end)
    assert iops[14] / iops[2] == pytest.approx(3.0, rel=0.15)  # the day's shape: 1.5x at 14:00, 0.5x at 02:00 UTC


def top_hours(device: str, start, end) -> dict[int, float]:
    """Mean read IOPS of volume 1 by hour of the day (UTC), from the 5-minute tier."""
    from monitor.timeseries import storage as ts

    found, _ = ts.windows("volume", device, "volume", ["vmfs-datastore-1"], ["read_iops"], start, end, 3600)
    by_hour: dict[int, list[float]] = {}
    for t, value in found[("vmfs-datastore-1", "read_iops")]:
        by_hour.setdefault(time.gmtime(t / 1000).tm_hour, []).append(value)
    return {hour: sum(values) / len(values) for hour, values in by_hour.items()}


def test_the_demo_arrays_disk_fails_each_afternoon_and_its_raid_set_rebuilds():
    """Disk 5 reads failed(3) from 13:00 to 16:00 UTC and on-line(1) otherwise; the member's RAID set reads
    reconstructing(4) from 13:00 to 15:00 and ok(1) otherwise (EQLDISK-MIB, EQLMEMBER-MIB codes)."""
    sim, array = simdev(), fleet.equallogic_array(breathing=True)
    member = "1.1841966935"
    disk = record(array, f"1.3.6.1.4.1.12740.3.1.1.1.8.{member}.{fleet.FAILING_DISK + 1}")
    raid = record(array, f"1.3.6.1.4.1.12740.2.1.13.1.1.{member}")
    day = NOON - 14 * 3600  # 00:00 UTC

    progress = record(array, f"1.3.6.1.4.1.12740.2.1.13.1.5.{member}")  # eqlMemberRaidProgress, 0.001 %

    def reads(params: dict, t: float) -> int:
        return sim.gauge_value({k: float(v) for k, v in params.items()}, {}, t)

    hours = (12.9, 13.1, 14.9, 15.1, 15.9, 16.1)
    assert [reads(disk, day + h * 3600) for h in hours] == [1, 3, 3, 3, 3, 1]
    assert [reads(raid, day + h * 3600) for h in hours] == [1, 4, 4, 1, 1, 1]
    # the rebuild's progress rises evenly through its two hours: a quarter done at 13:30, half at 14:00
    minutes = (12 * 60 + 59, 13 * 60, 13 * 60 + 30, 14 * 60, 14 * 60 + 54, 15 * 60 + 1)
    assert [reads(progress, day + m * 60) for m in minutes] == [0, 0, 25_000, 50_000, 95_000, 0]
