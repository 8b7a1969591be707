"""Counter maths through real polls of a real agent: intervals too long for 32 bits, 32-bit ports of unknown speed,
reboots hidden by a long gap, polls too close together, counters served as strings or Gauges, statistics resets."""

import dataclasses
import os
import re
import time

import pytest

from collectors.batch import BatchJob, poll_many
from collectors.counters import COUNTER32_MAX_PER_SECOND
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
    """A router with a 32-bit and a 64-bit gigabit port, both carrying 400 Mbit/s in, and a 32-bit port of unknown
    speed (no ifSpeed nor ifHighSpeed, as a VLAN interface) carrying 400 Mbit/s in and 8 Mbit/s out."""
    ports = [
        fleet.SimPort(1, "ge1", in_rate=50 * MBIT, out_rate=1 * MBIT, hc=False),
        fleet.SimPort(2, "te1", in_rate=50 * MBIT, out_rate=1 * MBIT),
        fleet.SimPort(3, "vl1", in_rate=50 * MBIT, out_rate=1 * MBIT, hc=False, speed_bps=0),
    ]
    return fleet.SimDevice(community, "Edge router", "1.3.6.1.4.1.9999.77", "edge", ports)


def strings(written: str) -> fleet.SimDevice:
    """A box that serves a KiB counter as text."""
    return fleet.SimDevice("strings", "Text box", "1.3.6.1.4.1.9999.78", "text", [], [(STRING_COUNTER, "4", written)])


RESET_BASE = "1.3.6.1.4.1.9999.79.1"
# A box's statistics counters, each served as: (SNMP type tag in snmprec, value, value after the box's statistics
# were reset, or for the last two after they moved on). The box does not reboot: its uptime runs on.
STATISTICS = {
    "as_text": ("4", 5_000, 1_000),
    "as_gauge": ("66", 5_000, 1_000),
    "as_counter32": ("65", 5_000, 1_000),
    "as_counter64": ("70", 5_000, 1_000),
    "wrapping_counter32": ("65", 2**32 - 1_000, 3_000),
    "growing_text": ("4", 5_000, 6_000),
    "racing_counter32": ("65", 5_000, 200_005_000),  # 3.3 million a second: faster than 32 bits are read at
}
RATIOS = (  # per operation, of deltas: only where both counters gave a rate
    Metric("wrapped_per_text", type="ratio", numerator="wrapping_counter32", denominator="growing_text"),
    Metric("racing_per_text", type="ratio", numerator="racing_counter32", denominator="growing_text"),
)
RESET_PROFILE = Profile(
    "statistics",
    "statistics.yaml",
    interfaces=False,
    scalars=tuple(Metric(name, (f"{RESET_BASE}.{n}.0",), "counter", "ops/s") for n, name in enumerate(STATISTICS, 1))
    + RATIOS,
)


def statistics(after: bool) -> fleet.SimDevice:
    """The box, before or after its statistics reset."""
    records = [
        (f"{RESET_BASE}.{n}.0", tag, str(reset if after else value))
        for n, (tag, value, reset) in enumerate(STATISTICS.values(), 1)
    ]
    return fleet.SimDevice("statistics", "Stats box", "1.3.6.1.4.1.9999.79", "stats", [], records)


def serve_now(sim: Agent, device: fleet.SimDevice) -> None:
    """Serve a device's new recording from the next request on: snmpsim reads a recording again when its
    modification time changes in whole seconds, so the new file is dated a few seconds ahead of the old one."""
    path = sim.control_file.parent / "data" / f"{device.community}.snmprec"
    stamp = max(path.stat().st_mtime, time.time()) + 2
    device.write(path.parent)
    os.utime(path, (stamp, stamp))


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("counter-polls")
    devices = {
        "wan": wan(),
        "eql": fleet.equallogic_array("eql", "eql"),
        "strings": strings("written: 5000 KiB"),
        "statistics": statistics(after=False),
    }
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


def test_a_32_bit_port_of_unknown_speed_polled_300_s_apart_at_400_mbit_s_is_a_gap_not_56_mbit_s(sim):
    booted = time.time() - 3600
    sim.control(epoch=booted, rates={})
    first = poll(sim, "wan", None, interval_s=300)
    sim.control(epoch=booted - 300)
    earlier = aged(first.state, 300)
    second = poll(sim, "wan", earlier, interval_s=300)
    assert not second.rebooted and port_fields(second)["vl1"]["speed_bps"] == 0
    before, after = earlier.counters["vl1\tin_bps"], second.state.counters["vl1\tin_bps"]
    elapsed = after.at - before.at
    # No speed to bound it: a 32-bit counter is read up to RFC 2863's 20 Mbit/s for 32-bit counters, which 300 s
    # hold without a wrap (750 MB). The counter shows 2.1 GB moved (56.4 Mbit/s), beyond that: it could be 15 GB.
    shown = (after.value - before.value) % 2**32 / elapsed
    assert shown * 8 == pytest.approx(56.4 * MBIT, rel=0.01)
    assert COUNTER32_MAX_PER_SECOND * elapsed < 2**32 and shown > COUNTER32_MAX_PER_SECOND * 1.1
    ports = port_fields(second)
    assert "in_bps" not in ports["vl1"]
    assert second.gaps["vl1 in_bps"] == "faster than a 32-bit counter of unknown speed can be read"
    # Its 8 Mbit/s out is within 20 Mbit/s: read, and exact.
    before, after = earlier.counters["vl1\tout_bps"], second.state.counters["vl1\tout_bps"]
    assert ports["vl1"]["out_bps"] == pytest.approx((after.value - before.value) * 8 / (after.at - before.at))
    assert ports["vl1"]["out_bps"] == pytest.approx(8 * MBIT, rel=0.01)


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
    serve_now(sim, strings("written: 5000 KiB"))
    first = poll(sim, "strings", None, profile=profile)
    serve_now(sim, strings("written: 6000 KiB"))  # 1000 KiB more written
    second = poll(sim, "strings", first.state, profile=profile)
    before, after = first.state.counters["system|written_bytes"], second.state.counters["system|written_bytes"]
    (sample,) = [s for s in second.samples if "written_bytes" in s.fields]
    assert sample.fields["written_bytes"] == pytest.approx(1000 * 1024 / (after.at - before.at))
    assert (before.value, after.value) == (5000, 6000)  # the counter as the device counts it, unscaled


def test_a_statistics_reset_of_a_counter_without_a_known_width_or_bound_is_a_gap_not_a_wrap(sim):
    booted = time.time() - 3600
    sim.control(epoch=booted, rates={})
    serve_now(sim, statistics(after=False))
    first = poll(sim, "statistics", None, profile=RESET_PROFILE)
    assert set(first.state.counters) == {f"system|{name}" for name in STATISTICS}
    serve_now(sim, statistics(after=True))  # the box's statistics are reset (and two counters move on)
    sim.control(epoch=booted - 60)  # 60 s later, as far as the box's uptime says: no reboot
    earlier = aged(first.state, 60)
    second = poll(sim, "statistics", earlier, profile=RESET_PROFILE)
    assert not second.rebooted and not second.errors
    kept = {key: reading.value for key, reading in second.state.counters.items()}
    assert kept == {f"system|{name}": reset for name, (_, _, reset) in STATISTICS.items()}  # next rates start there
    elapsed = second.state.counters["system|as_text"].at - earlier.counters["system|as_text"].at
    assert elapsed == pytest.approx(60, abs=2)
    (sample,) = [s for s in second.samples if s.measurement == "system" and "uptime_s" not in s.fields]
    rates = sample.fields
    # Read as a 32-bit wrap, 5,000 -> 1,000 is 2^32 - 4,000 in 60 s: 71 million a second, which the 5-minute and
    # hourly maxima would keep. A string or a Gauge has no known width, a Counter64 does not wrap in a lifetime,
    # and a Counter32 counts no faster than RFC 2863's 2.5 million a second (20 Mbit/s): all four were reset.
    assert (1_000 - 5_000) % 2**32 / elapsed > COUNTER32_MAX_PER_SECOND * 1.1
    for name in ("as_text", "as_gauge", "as_counter32", "as_counter64"):
        assert name not in rates
        assert second.gaps[f"system|{name}"] == "counter reset"
    # A Counter32 that wrapped within that bound is a wrap; text that grew is a rate.
    assert rates["wrapping_counter32"] == pytest.approx((3_000 + 1_000) / elapsed)
    assert rates["growing_text"] == pytest.approx((6_000 - 5_000) / elapsed)
    # A Counter32 that grew 200 million in 60 s: more than 32 bits are read at, so it may have wrapped too.
    assert 200_000_000 / elapsed > COUNTER32_MAX_PER_SECOND * 1.1
    assert second.gaps["system|racing_counter32"] == "faster than a 32-bit counter of unknown speed can be read"
    # Ratios of deltas follow their counters: across the wrap 4,000 / 1,000; none from the counter with no rate.
    assert rates["wrapped_per_text"] == pytest.approx(4.0)
    assert rates.keys() == {"wrapping_counter32", "growing_text", "wrapped_per_text"}
