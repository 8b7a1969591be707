"""A rate counts for the time its counter delta covers (its span), in every total: through real polls of a real agent.

A 64-bit port moves a known constant rate. The agent's clock is moved on by each poll's interval (its epoch set back)
and the poller's kept readings with it, so every poll sees the counters a poll that much later would; each poll's
samples are written at their planned time with the rollup windows they close, as the pollers write them
(HistoryWriter). A range's total must be the bytes the port moved in what its samples cover (docs/graphs.md, "Legend
statistics"): polled every 300 s at 600 Mbit/s, the answer after three unanswered polls is 90 GB (1,200 s), not
22.5 GB (one interval); a statistics reset or a reboot loses exactly the interval before the poll that saw it, and
bridges nothing.
"""

from __future__ import annotations

import dataclasses
import os
import time
from datetime import datetime, timezone

import pytest

from collectors.poll import poll_device
from collectors.samples import CounterState, Sample
from collectors.snmptypes import SnmpError, SnmpTarget
from monitor.core import aio
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.timeseries import aggregates, series
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.gather import gather_raw
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window, layout
from monitor.timeseries.templates import TEMPLATES
from tests.conftest import Agent
from tests.tsbuckets import own_buckets

TRAFFIC = TEMPLATES["traffic"]
RATE = 600e6 / 8  # bytes/s in and out of te1: 600 Mbit/s
RATE2 = 200e6 / 8  # of te2
HOUR = 3600
H = (int(time.time()) // HOUR - 8) * HOUR  # the ranges read start here: whole hours, long written
PHASE = 100  # polls at H + 100 + k x 300 (and H + 30 + k x 60)
EXACT = 1e-4  # a reading is timed by its answer: a span is its interval within milliseconds


def box(community: str) -> fleet.SimDevice:
    ports = [
        fleet.SimPort(1, "te1", speed_bps=10_000_000_000, in_rate=RATE, out_rate=RATE),
        fleet.SimPort(2, "te2", speed_bps=10_000_000_000, in_rate=RATE2, out_rate=RATE2),
    ]
    return fleet.SimDevice(community, "Switch", "1.3.6.1.4.1.9999.80", community, ports)


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("total-spans")
    devices = {name: box(name) for name in ("outage", "reset", "reboot", "minute")}
    for device in devices.values():
        device.write(root / "data")
    control = root / "control.json"
    control.write_text("{}")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", control_file=control, name="snmpsim-spans")
    yield Agent(port, control, devices)
    process.stop()


def aged(state: CounterState, seconds: float) -> CounterState:
    """The state that poll would have left had it run `seconds` earlier."""
    counters = {key: reading._replace(at=reading.at - seconds) for key, reading in state.counters.items()}
    ports = dataclasses.replace(state.ports, read_at=state.ports.read_at - seconds) if state.ports else None
    return dataclasses.replace(state, taken_at=state.taken_at - seconds, counters=counters, ports=ports)


class Timeline:
    """One device polled at planned moments: the agent's clock set to each (its epoch moved so that its uptime and
    counters are those of that moment), the kept readings moved with it; the samples written at the planned time."""

    def __init__(self, sim: Agent, community: str, booted: float, interval_s: int):
        self.sim, self.community, self.booted, self.interval_s = sim, community, booted, interval_s
        self.state: CounterState | None = None
        self.offset = 0.0

    def poll(self, at: float) -> list[Sample]:
        offset = at - time.time()  # the agent's time is real time + offset
        self.sim.control(epoch=self.booted - offset)
        previous = aged(self.state, offset - self.offset) if self.state is not None else None
        target = SnmpTarget("127.0.0.1", self.sim.port, community=self.community, timeout=3.0, retries=1)
        result = aio.run(poll_device(target, self.community, previous, engine="fast", interval_s=self.interval_s))
        self.state, self.offset = result.state, offset
        return [sample._replace(time=at) for sample in result.samples]

    def unanswered(self) -> None:
        """A poll nobody answers (the device unreachable): it raises, and the counters kept stay as they were."""
        target = SnmpTarget("127.0.0.1", free_udp_port(), community=self.community, timeout=0.3, retries=0)
        with pytest.raises(SnmpError):
            aio.run(poll_device(target, self.community, self.state, engine="fast", interval_s=self.interval_s))


def serve_now(sim: Agent, device: fleet.SimDevice) -> None:
    """Serve a device's new recording from the next request on (snmpsim re-reads it when its mtime changes)."""
    path = sim.control_file.parent / "data" / f"{device.community}.snmprec"
    stamp = max(path.stat().st_mtime, time.time()) + 2
    device.write(path.parent)
    os.utime(path, (stamp, stamp))


OUTAGE = (H + HOUR + PHASE, H + HOUR + PHASE + 300, H + HOUR + PHASE + 600)  # three polls nobody answers
FAULT = H + HOUR + PHASE + 1500  # the poll that sees the reset or the reboot, 150 s after it happened


def play(sim: Agent, history: HistoryWriter, device: str, community: str, interval_s: int, until: float) -> list:
    """Poll `community` every `interval_s` from an hour before H until `until`, with its scenario's fault; write
    each poll (samples and record) as device `device`. Returns the samples written."""
    booted = H - 2 * HOUR
    timeline = Timeline(sim, community, booted, interval_s)
    phase = PHASE if interval_s == 300 else 30
    written = []
    for at in range(H - HOUR + phase, until, interval_s):
        if community in ("outage", "minute") and at in _outage(interval_s):
            timeline.unanswered()
            history.poll(device, at, [], interval_s)  # a failed poll writes its record and closes windows
            continue
        if at == FAULT and community == "reset":  # the statistics were reset 150 s before this poll
            reset(sim, timeline, at - 150)
        if at == FAULT and community == "reboot":  # the box rebooted 150 s before this poll
            timeline.booted = at - 150
        samples = [sample._replace(tags=sample.tags | {"device": device}) for sample in timeline.poll(at)]
        history.poll(device, at, samples, interval_s)
        written += samples
    sim.control(rates={})
    return written


def reset(sim: Agent, timeline: Timeline, moment: float) -> None:
    """te1's counters drop from now on (agent time) by what they held at `moment`: 0 then (its rate runs on)."""
    initial = (1 * 7_919_000_003) % 2**40  # fleet's initial value of port 1's 64-bit counters
    held = initial + RATE * (moment - timeline.booted)
    now, blink = time.time(), 0.001
    drop = [[now, -(held / blink - RATE)], [now + blink, RATE]]  # a moment at a rate that takes it all back
    sim.control(rates={"te1-in": drop, "te1-out": drop})


def _outage(interval_s: int) -> tuple[float, ...]:
    if interval_s == 300:
        return OUTAGE
    return tuple(H + 1200 + 30 + k * 60 for k in range(3))


@pytest.fixture(scope="module")
def planted(sim, stack_env, tmp_path_factory):
    from monitor.core import services as core

    core.redis_client().flushdb()
    with own_buckets("total_spans", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        found = {}
        for device, community in (("971", "outage"), ("972", "reset"), ("973", "reboot")):
            found[community] = play(sim, history, device, community, 300, H + 4 * HOUR)
        found["minute"] = play(sim, history, "974", "minute", 60, H + 2 * HOUR)
        for sample in found["outage"]:  # the same polls as written before samples carried their span and bytes
            if sample.measurement == "interface":
                history.poll("975", sample.time, [bare(sample, "975")], 300)
        for sample in found["minute"]:  # polled every 60 s; its first half hour as written before, then as now
            if sample.measurement == "interface":
                history.poll(
                    "976", sample.time, [bare(sample, "976") if sample.time < MIXED else as_(sample, "976")], 60
                )
        history.close(H + 6 * HOUR)
        assert history.failed == 0
        yield found


MIXED = H + 1800  # device 976's samples carry their span and bytes from here on


def as_(sample: Sample, device: str) -> Sample:
    return sample._replace(tags=sample.tags | {"device": device})


def bare(sample: Sample, device: str) -> Sample:
    """The sample as written before the pollers wrote spans and bytes."""
    fields = {k: v for k, v in sample.fields.items() if k not in ("span_s", "in_bytes", "out_bytes")}
    return sample._replace(tags=sample.tags | {"device": device}, fields=fields)


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def total(device: str, start: float, end: float, points: int, interval_s: int = 300) -> tuple[str, bool, float]:
    plot = Plot("one", TRAFFIC, (Member(device, "te1", interval_s),))
    data = series.read([plot], Window(at(start), at(end), points, at(H + 6 * HOUR)))["one"]
    inbound = next(s for s in data["series"] if s["field"] == "in_bps")
    return data["tier"], data["aggregated"], inbound["stats"]["total"]


THREE_HOURS = (H, H + 3 * HOUR)
READS = [(400, "raw", False), (36, "5m", True), (3, "1h", True)]
IDS = ["raw-every-sample", "5-minute-windows", "hourly-windows"]


def test_the_poller_writes_each_rate_s_span(planted):
    rows = [s for s in planted["outage"] if s.measurement == "interface" and s.tags["port"] == "te1"]
    after = next(s for s in rows if s.time == OUTAGE[-1] + 300)
    assert after.fields["span_s"] == pytest.approx(1200, abs=1)  # the first answer after three unanswered polls
    assert after.fields["in_bps"] == pytest.approx(600e6, rel=EXACT)  # the exact average over the outage
    assert all(s.fields["span_s"] == pytest.approx(300, abs=1) for s in rows if "in_bps" in s.fields and s is not after)


def test_the_poller_writes_the_bytes_each_rate_moved(planted):
    # 75 MB/s for the 1,200 s after the outage: 90 GB, the octets the counter grew; 22.5 GB for each 300 s before.
    rows = [s for s in planted["outage"] if s.measurement == "interface" and s.tags["port"] == "te1"]
    after = next(s for s in rows if s.time == OUTAGE[-1] + 300)
    assert after.fields["in_bytes"] == pytest.approx(90e9, rel=EXACT)
    assert after.fields["out_bytes"] == pytest.approx(90e9, rel=EXACT)
    for sample in rows:  # exactly rate x span / 8, written only beside a rate
        assert ("in_bytes" in sample.fields) == ("in_bps" in sample.fields)
        if "in_bps" in sample.fields:
            assert sample.fields["in_bytes"] == pytest.approx(sample.fields["in_bps"] * sample.fields["span_s"] / 8)


@pytest.mark.parametrize(("points", "tier", "aggregated"), READS, ids=IDS)
def test_three_unanswered_polls_total_what_the_port_moved(planted, points, tier, aggregated):
    # 36 samples lie in [H, H + 3 h) (H + 100 s, then every 300 s), the three unanswered ones missing; each counts
    # for its span: the first from H - 200 s, the one after the outage for the 1,200 s since the last answer.
    # They cover H - 200 s to H + 3 h - 200 s, 10,800 s at 75 MB/s: 810 GB (the old rule: 742.5 GB).
    got = total("971", *THREE_HOURS, points)
    assert got[:2] == (tier, aggregated)
    assert got[2] == pytest.approx(RATE * 3 * HOUR, rel=EXACT)


def test_the_five_intervals_of_the_outage_are_112_5_gb(planted):
    # From the answer before the outage to the first after it: two samples, 300 s and 1,200 s at 75 MB/s, 22.5 GB
    # and 90 GB; the rule before counted the second for one interval (22.5 GB): 45 GB for 1,500 s.
    got = total("971", OUTAGE[0] - 300, OUTAGE[-1] + 301, 400)[2]
    assert got == pytest.approx(112.5e9, rel=EXACT)


def test_the_sum_inside_influxdb_counts_each_span(planted):
    # Polled every 60 s, three unanswered: 60 samples in [H, H + 1 h) cover H - 30 s to H + 1 h - 30 s.
    got = total("974", H, H + HOUR, 40, interval_s=60)
    assert got[:2] == ("raw", True)  # windows of raw samples: the total summed in InfluxDB
    assert got[2] == pytest.approx(RATE * HOUR, rel=EXACT)
    assert total("974", H, H + HOUR, 400, interval_s=60)[2] == pytest.approx(RATE * HOUR, rel=EXACT)


@pytest.mark.parametrize("community", ["reset", "reboot"])
@pytest.mark.parametrize(("points", "tier", "aggregated"), READS, ids=IDS)
def test_a_one_poll_gap_loses_its_interval_and_bridges_nothing(planted, community, points, tier, aggregated):
    # The poll that sees the reset (or reboot) gives no rate; the next spans only the 300 s since it. The range
    # covers 10,800 s but the 300 s before that poll: 10,500 s (the rule before bridged it: 10,800 s).
    rows = [s for s in planted[community] if s.measurement == "interface" and s.tags["port"] == "te1"]
    (seen,) = [s for s in rows if s.time == FAULT]
    assert "in_bps" not in seen.fields and "span_s" not in seen.fields
    (after,) = [s for s in rows if s.time == FAULT + 300]
    assert after.fields["span_s"] == pytest.approx(300, abs=1)
    device = "972" if community == "reset" else "973"
    got = total(device, *THREE_HOURS, points)
    assert got[:2] == (tier, aggregated)
    assert got[2] == pytest.approx(RATE * (3 * HOUR - 300), rel=EXACT)


@pytest.mark.parametrize(("points", "tier", "aggregated"), READS, ids=IDS)
def test_samples_written_without_a_span_total_as_before(planted, points, tier, aggregated):
    # Without span_s a sample counts the time since the one before, one interval after a gap longer than two: the
    # 33 samples of the range count 300 s each, the one after the outage too: 9,900 s.
    got = total("975", *THREE_HOURS, points)
    assert got[:2] == (tier, aggregated)
    assert got[2] == pytest.approx(RATE * 9900, rel=EXACT)


def read_raw(device: str, start: float, end: float, points: int) -> dict:
    """gather_raw's results for te1's in_bps: what the read summed or read."""
    plot = Plot("one", TRAFFIC, (Member(device, "te1", 60),))
    window = Window(at(start), at(end), points, at(H + 6 * HOUR))
    found, _ = gather_raw([plot], window, layout(plot, window, raw_first=False), 60, False)
    return found[("one", "in_bps")]


def test_a_windowed_total_is_the_sum_of_the_bytes_in_influxdb(planted):
    # Every rate of the range carries its bytes: the total is their sum, read as one number, no sample read.
    got = read_raw("974", H, H + HOUR, 40)
    assert "traw" not in got
    assert total("974", H, H + HOUR, 40, interval_s=60)[2] == pytest.approx(RATE * HOUR, rel=EXACT)


@pytest.mark.parametrize("points", [40, 400], ids=["windowed-in-influxdb", "raw-every-sample"])
def test_a_range_holding_samples_without_bytes_totals_each_by_its_rule(planted, points):
    # Device 976: the minute device's polls, its first half hour written without spans or bytes. [H, H + 30 min):
    # 30 polls at H + 30 s + k x 60 s, three unanswered; the 27 samples count 60 s each under the old rule (the first
    # of the range one interval, the first after the outage one interval, as its spacing of 240 s is a gap):
    # 1,620 s. [H + 30 min, H + 1 h): 30 samples with their bytes, 60 s each: 1,800 s. 3,420 s at 75 MB/s.
    tier, aggregated, got = total("976", H, H + HOUR, points, interval_s=60)
    assert (tier, aggregated) == ("raw", points == 40)
    assert got == pytest.approx(RATE * 3420, rel=EXACT)
    if points == 40:
        assert "traw" in read_raw("976", H, H + HOUR, 40)  # the samples were read: their counts differ
    # From the half hour on every sample has its bytes: exact again, summed in InfluxDB.
    assert total("976", MIXED, H + 2 * HOUR, 40, interval_s=60)[2] == pytest.approx(RATE * 1.5 * HOUR, rel=EXACT)
    assert "traw" not in read_raw("976", MIXED, H + 2 * HOUR, 40)


def test_an_aggregate_of_samples_with_and_without_bytes_totals_as_its_members(planted):
    plot = Plot("lag", TRAFFIC, (Member("976", "te1", 60), Member("976", "te2", 60)))
    data = aggregates.read(plot, Window(at(H), at(H + HOUR), 400, at(H + 6 * HOUR)))
    inbound = next(s for s in data["series"] if s["field"] == "in_bps")
    assert inbound["stats"]["total"] == pytest.approx((RATE + RATE2) * 3420, rel=EXACT)


def test_an_aggregate_counts_each_member_for_its_span(planted):
    plot = Plot("lag", TRAFFIC, (Member("971", "te1", 300), Member("971", "te2", 300)))
    for start, end, points in ((*THREE_HOURS, 400), (H, H + 4 * HOUR, 4)):
        data = aggregates.read(plot, Window(at(start), at(end), points, at(H + 6 * HOUR)))
        inbound = next(s for s in data["series"] if s["field"] == "in_bps")
        assert inbound["stats"]["total"] == pytest.approx((RATE + RATE2) * (end - start), rel=EXACT), data["tier"]
        if not data["aggregated"]:  # every step of the outage holds both members' rate (the answer's span covers it)
            steps = {p[0] // 1000: p[2] for p in inbound["points"]}
            for moment in OUTAGE:
                step = moment - moment % 300
                assert steps[step] == pytest.approx((RATE + RATE2) * 8, rel=EXACT), moment
