"""Counter maths through real polls of a real agent: intervals too long for 32 bits, reboots hidden by a long
gap, polls too close together, and counters served as strings."""

import dataclasses
import re
import time

import pytest

from collectors.batch import BatchJob, poll_many
from collectors.poll import poll_device
from collectors.profiles import Metric, Profile
from collectors.samples import CounterState
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from tests.conftest import Agent

MBIT = 1_000_000
NO_RATES = {"speed_bps", "oper_up"}  # what a port sample holds when none of its counters gave a rate
STRING_COUNTER = "1.3.6.1.4.1.9999.77.1.0"
KIB_WRITTEN = Metric(
    "written_bytes", (STRING_COUNTER,), "counter", "bytes/s", scale=1024.0, parse=re.compile(r"(\d+) KiB")
)


def wan(community: str = "wan") -> fleet.SimDevice:
    """A router with a 32-bit and a 64-bit gigabit port, both carrying 400 Mbit/s in."""
    ports = [
        fleet.SimPort(1, "ge1", in_rate=50 * MBIT, out_rate=1 * MBIT, hc=False),
        fleet.SimPort(2, "te1", in_rate=50 * MBIT, out_rate=1 * MBIT),
    ]
    return fleet.SimDevice(community, "Edge router", "1.3.6.1.4.1.9999.77", "edge", ports)


def strings(written: str) -> fleet.SimDevice:
    """A box that serves a KiB counter as text."""
    return fleet.SimDevice("strings", "Text box", "1.3.6.1.4.1.9999.78", "text", [], [(STRING_COUNTER, "4", written)])


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("counter-polls")
    devices = {"wan": wan(), "eql": fleet.equallogic_array("eql", "eql"), "strings": strings("written: 5000 KiB")}
    for device in devices.values():
        device.write(root / "data")
    control = root / "control.json"
    control.write_text("{}")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", control_file=control, name="snmpsim-counters")
    yield Agent(port, control, devices)
    process.stop()


def poll(sim: Agent, community: str, previous: CounterState | None, **options):
    target = SnmpTarget("127.0.0.1", sim.port, community=community, timeout=3.0, retries=1)
    return aio.run(poll_device(target, community, previous, engine="fast", **options))


def aged(state: CounterState, seconds: float) -> CounterState:
    """The state that poll would have left had it run `seconds` earlier."""
    counters = {key: reading._replace(at=reading.at - seconds) for key, reading in state.counters.items()}
    ports = dataclasses.replace(state.ports, read_at=state.ports.read_at - seconds) if state.ports else None
    return dataclasses.replace(state, taken_at=state.taken_at - seconds, counters=counters, ports=ports)


def port_fields(result) -> dict[str, dict]:
    return {s.tags["port"]: s.fields for s in result.samples if s.measurement == "interface"}


def test_a_32_bit_counter_polled_300_s_apart_at_400_mbit_s_is_a_gap_not_56_mbit_s(sim):
    booted = time.time() - 3600
    sim.control(epoch=booted, rates={})
    first = poll(sim, "wan", None, interval_s=300)
    sim.control(epoch=booted - 300)  # the agent lives 300 s more: its uptime and counters move on by that much
    earlier = aged(first.state, 300)
    second = poll(sim, "wan", earlier, interval_s=300)
    assert not second.rebooted
    before, after = earlier.counters["ge1\tin_bps"], second.state.counters["ge1\tin_bps"]
    elapsed = after.at - before.at
    assert elapsed == pytest.approx(300, abs=2)
    # The trap: 15 GB moved (3.49 wraps of 2^32), and what is left of it modulo 2^32 reads as 56.4 Mbit/s.
    assert (after.value - before.value) % 2**32 * 8 / elapsed == pytest.approx(56.4 * MBIT, rel=0.01)
    ports = port_fields(second)
    assert "in_bps" not in ports["ge1"] and "out_bps" not in ports["ge1"]
    assert second.gaps["ge1 in_bps"] == "interval too long for a 32-bit counter"
    assert second.gaps["ge1 out_bps"] == "interval too long for a 32-bit counter"  # 1 MB/s: it could have wrapped
    assert ports["te1"]["in_bps"] == pytest.approx(400 * MBIT, rel=0.01)  # 64 bits hold 300 s at any speed
    # 32-bit error counters at most count the frames that line rate carries: 446 million in 300 s, no wrap.
    assert ports["ge1"]["in_errors"] == pytest.approx(0.01, abs=0.004)


def test_uptime_of_1_h_after_3_h_without_a_poll_is_a_reboot(sim):
    sim.control(epoch=time.time() - 1800, rates={})  # up for 30 minutes
    first = poll(sim, "wan", None, interval_s=300)
    sim.control(epoch=time.time() - 3600)  # polled 3 h ago (below), rebooted 1 h ago: up for an hour now
    second = poll(sim, "wan", aged(first.state, 3 * 3600), interval_s=300)
    assert second.uptime_s == pytest.approx(3600, abs=5) and first.uptime_s == pytest.approx(1800, abs=5)
    assert second.rebooted  # uptime went up, by 30 minutes in 3 hours
    assert all(set(fields) == NO_RATES for fields in port_fields(second).values())
    assert second.gaps["te1 in_bps"] == "device rebooted" and second.gaps["ge1 in_errors"] == "device rebooted"


def test_a_poll_too_soon_gives_no_rate_and_keeps_the_reading_the_next_rate_spans(sim):
    sim.control(epoch=time.time() - 3600, rates={})
    target = SnmpTarget("127.0.0.1", sim.port, community="eql", timeout=3.0, retries=1)
    profile = registry()["dell-equallogic"]

    def batch(previous):
        job = BatchJob(target, "eql", previous, profile=profile, interval_s=8)  # rates need 4 s between readings
        (outcome,) = aio.run(poll_many([job]))
        return outcome.result

    first = batch(None)
    soon = batch(first.state)
    assert soon.state.counters == first.state.counters  # every kept reading stays: ports, volumes, latency sums
    assert len(first.state.counters) > 30
    assert all(set(fields) == NO_RATES for fields in port_fields(soon).values())
    assert soon.gaps["eth0 in_bps"] == "too soon after the kept reading"
    assert not [s for s in soon.samples if s.measurement == "volume" and "read_iops" in s.fields]
    assert not [s for s in soon.samples if s.measurement == "volume" and "read_latency_ms" in s.fields]
    time.sleep(max(0.0, max(r.at for r in first.state.counters.values()) + 4.2 - time.time()))
    later = batch(soon.state)
    kept, now = first.state.counters["eth0\tin_bps"], later.state.counters["eth0\tin_bps"]
    assert now.at - kept.at >= 4.0
    assert port_fields(later)["eth0"]["in_bps"] == pytest.approx((now.value - kept.value) * 8 / (now.at - kept.at))
    volumes = {s.tags["volume"]: s.fields for s in later.samples if s.measurement == "volume"}
    for v in (1, 2, 3):
        assert volumes[f"vmfs-datastore-{v}"]["read_iops"] == pytest.approx(100 * v, rel=0.01)
        assert volumes[f"vmfs-datastore-{v}"]["read_latency_ms"] == pytest.approx(1.5 * v, rel=0.01)


def test_a_counter_served_as_a_string_is_scaled_once(sim):
    profile = Profile("text", "text.yaml", interfaces=False, scalars=(KIB_WRITTEN,))
    first = poll(sim, "strings", None, profile=profile)
    time.sleep(1.1)  # a later modification time, so that snmpsim reads the recording again
    strings("written: 6000 KiB").write(sim.control_file.parent / "data")  # 1000 KiB more written
    second = poll(sim, "strings", first.state, profile=profile)
    before, after = first.state.counters["system|written_bytes"], second.state.counters["system|written_bytes"]
    (sample,) = [s for s in second.samples if "written_bytes" in s.fields]
    assert sample.fields["written_bytes"] == pytest.approx(1000 * 1024 / (after.at - before.at))
    assert (before.value, after.value) == (5000, 6000)  # the counter as the device counts it, unscaled
