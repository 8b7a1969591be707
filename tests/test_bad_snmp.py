"""Agents that misbehave on purpose, against both SNMP engines: every reply gives a clear SnmpError or a value.

The agent is tests/snmpfake.py's UDP socket on loopback (the outermost edge, faked because a real agent
cannot be made to send these bytes). Each case asserts the message (never the community), that the loop
saw no unhandled exception, and that nothing waits beyond the target's timeout x (retries + 1).
"""

from __future__ import annotations

import asyncio
import math
import random
import time

import pytest
from pysnmp.proto import api

from collectors.sessions import open_session
from collectors.snmp import SnmpSession
from collectors.snmptypes import SnmpError, SnmpTarget, SnmpTimeout, SnmpValue
from tests import influxq
from tests.snmpfake import FakeAgent, Mib, asked_oids, reply, with_raw_value

SECRET = "s3cret-community"
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
COLUMN = (1, 3, 6, 1, 4, 1, 99, 1, 1)
COLUMN_TEXT = ".".join(map(str, COLUMN))
TIMEOUT, RETRIES = 0.3, 1
SLACK = 1.5  # pysnmp's timers tick every 0.5 s; a loaded machine adds a little


@pytest.fixture(params=["pysnmp", "fast"])
def engine(request) -> str:
    return request.param


@pytest.fixture
def fake():
    agents: list[FakeAgent] = []

    def start(handler) -> FakeAgent:
        agents.append(FakeAgent(handler))
        return agents[-1]

    yield start
    for agent in agents:
        agent.close()


def session(agent: FakeAgent, engine: str, **extra):
    options = {"timeout": TIMEOUT, "retries": RETRIES, **extra}
    return open_session(SnmpTarget("127.0.0.1", agent.port, community=SECRET, **options), engine)


def run(coro, limit: float | None = None):
    """Run on a fresh loop; fail on any exception the loop had to handle itself, or on a run beyond `limit`."""
    unhandled: list[str] = []

    took = 0.0

    async def main():
        nonlocal took
        asyncio.get_running_loop().set_exception_handler(
            lambda loop, context: unhandled.append(f"{context.get('message')}: {context.get('exception')!r}")
        )
        SnmpSession._engine()  # pysnmp's engine (its MIB tables) is built once per loop: not the agent's time
        started = time.monotonic()
        try:
            return await coro
        finally:
            took = time.monotonic() - started

    try:
        return asyncio.run(main())
    finally:
        assert not unhandled, unhandled
        assert limit is None or took < limit, f"took {took:.1f} s, more than {limit:.1f} s"


def bound(retries: int = RETRIES, timeout: float = TIMEOUT) -> float:
    return timeout * (retries + 1) + SLACK


def error_of(coro, limit: float | None = None) -> SnmpError:
    with pytest.raises(SnmpError) as caught:
        run(coro, limit if limit is not None else bound())
    assert SECRET not in str(caught.value)
    return caught.value


def answer(value) -> callable:
    """A handler answering every asked OID with `value`."""
    return lambda req, raw: [reply(req, [(oid, value) for oid in asked_oids(req)])]


def spoiled(transform) -> callable:
    """A handler answering a good value, then passing the encoded datagram through `transform`."""
    return lambda req, raw: [transform(reply(req, [(oid, api.v2c.TimeTicks(4242)) for oid in asked_oids(req)]))]


GARBAGE = {
    "empty datagram": b"",
    "one byte": b"\x30",
    "length beyond the datagram": b"\x30\x82\xff\xff\x02\x01",
    "text": b"garbage!",
    "a SEQUENCE of one INTEGER": b"\x30\x03\x02\x01\x01",
    "random bytes": random.Random(7).randbytes(300),
    "0xff bytes": b"\xff" * 100,
    "a five-byte length": b"\x30\x85\x01\x00\x00\x00\x00",
    "HTML": b"<html><body>404</body></html>",
    "NUL bytes": b"\x00" * 64,
}


@pytest.mark.parametrize("datagram", list(GARBAGE.values()), ids=list(GARBAGE))
def test_garbage_datagrams_are_a_malformed_reply(fake, engine, datagram):
    agent = fake(lambda req, raw: [datagram])
    assert "malformed SNMP response" in str(error_of(session(agent, engine).get([SYS_UPTIME])))


TRUNCATIONS = {
    "last three bytes cut": lambda m: m[:-3],
    "cut in half": lambda m: m[: len(m) // 2],
    "header only": lambda m: m[:12],
    "outer length too short": lambda m: m[:1] + bytes((m[1] - 5,)) + m[2:],
}


@pytest.mark.parametrize("cut", list(TRUNCATIONS.values()), ids=list(TRUNCATIONS))
def test_truncated_or_overlong_packets_are_a_malformed_reply(fake, engine, cut):
    agent = fake(spoiled(cut))
    assert "malformed SNMP response" in str(error_of(session(agent, engine).get([SYS_UPTIME])))


def test_wrong_pdu_type_is_a_malformed_reply(fake, engine):
    agent = fake(lambda req, raw: [raw])  # the agent echoes our GetRequest back
    assert "malformed SNMP response" in str(error_of(session(agent, engine).get([SYS_UPTIME])))


def report_pdu(message: bytes) -> bytes:
    """The same message with its Response-PDU tag (0xA2) turned into a Report-PDU (0xA8)."""
    at = message.index(b"\xa2")
    return message[:at] + b"\xa8" + message[at + 1 :]


def test_a_report_pdu_instead_of_a_response_is_a_malformed_reply(fake, engine):
    agent = fake(spoiled(report_pdu))
    assert "malformed SNMP response" in str(error_of(session(agent, engine).get([SYS_UPTIME])))


@pytest.mark.parametrize("change", ["community", "version"])
def test_an_answer_with_another_community_or_version_is_ignored(fake, engine, change):
    def swap(message: bytes) -> bytes:
        if change == "community":
            return message.replace(SECRET.encode(), b"s3cret-c0mmunity")
        return message.replace(b"\x02\x01\x01\x04", b"\x02\x01\x00\x04", 1)  # v2c -> v1

    agent = fake(spoiled(swap))
    error = error_of(session(agent, engine).get([SYS_UPTIME]))
    assert isinstance(error, SnmpTimeout) and "no SNMP response before the timeout" in str(error)
    assert len(agent.received) == RETRIES + 1  # every try was made; no answer was taken


def test_a_reply_near_the_udp_maximum_with_one_huge_string_is_read_whole(fake, engine):
    sent: list[tuple[int, bytes]] = []

    def handler(req, raw):
        text = (bytes(range(32, 127)) * 700)[:65500]
        message = reply(req, [(asked_oids(req)[0], api.v2c.OctetString(text))])
        text = text[: len(text) - (len(message) - 65507)]  # 65,507 bytes: the most one UDP/IPv4 datagram carries
        message = reply(req, [(asked_oids(req)[0], api.v2c.OctetString(text))])
        sent.append((len(message), text))
        return [message]

    agent = fake(handler)
    got = run(session(agent, engine, timeout=2.0).get([SYS_UPTIME]), bound(timeout=2.0))[SYS_UPTIME]
    size, text = sent[0]
    assert 65400 < size <= 65507
    assert got.kind == "octets" and got.value == text


def test_a_reply_near_the_udp_maximum_with_thousands_of_varbinds_is_read_whole(fake, engine):
    sent: list[tuple[int, int]] = []

    def handler(req, raw):
        start = asked_oids(req)[0]
        if len(start) > len(COLUMN):
            return [reply(req, [(start, api.v2c.EndOfMibView())])]
        rows = [((*COLUMN, i), api.v2c.Counter64(2**63 + i)) for i in range(1, 2700)]
        message = reply(req, rows)
        while len(message) > 65507:  # about 25 bytes a row
            rows = rows[: len(rows) - (len(message) - 65507) // 24 - 1]
            message = reply(req, rows)
        sent.append((len(message), len(rows)))
        return [message]

    agent = fake(handler)
    table = run(session(agent, engine, timeout=2.0).walk([COLUMN_TEXT]), bound(timeout=2.0))[COLUMN_TEXT]
    size, rows = sent[0]
    assert 65000 < size <= 65507 and rows > 2000
    assert len(table) == rows and table[(rows,)] == SnmpValue("counter64", 2**63 + rows)


def looping_same_oid(req, raw):
    return [reply(req, [((*COLUMN, 1), api.v2c.Integer(1))] * 3)]


def looping_restart(req, raw):
    """Rows 1..5, then rows 1..5 again: the table goes backwards."""
    return [reply(req, [((*COLUMN, i), api.v2c.Integer(i)) for i in range(1, 6)])]


def looping_echo(req, raw):
    """The asked OID itself comes back with a value: no progress."""
    oid = asked_oids(req)[0]
    return [reply(req, [(oid if len(oid) > len(COLUMN) else (*COLUMN, 1), api.v2c.Integer(1))])]


@pytest.mark.parametrize(
    "handler", [looping_same_oid, looping_restart, looping_echo], ids=["repeat", "restart", "echo"]
)
@pytest.mark.parametrize("version", ["2c", "1"])
def test_a_looping_table_is_an_error(fake, engine, handler, version):
    agent = fake(handler)
    error = error_of(session(agent, engine, version=version).walk([COLUMN_TEXT]))
    assert "out of order" in str(error) and "looping table" in str(error) and COLUMN_TEXT in str(error)


def test_an_endless_table_stops_at_the_row_cap(fake, engine):
    def handler(req, raw):
        last = asked_oids(req)[0]
        start = last[len(COLUMN)] if len(last) > len(COLUMN) else 0
        return [reply(req, [((*COLUMN, start + i), api.v2c.Counter32(i)) for i in range(1, 11)])]

    agent = fake(handler)
    error = error_of(session(agent, engine).walk([COLUMN_TEXT], max_rows=200))
    assert "more than 200 rows" in str(error)


VALUES = [
    (api.v2c.Integer(-(2**31)), ("int", -(2**31))),
    (api.v2c.Integer(2**31 - 1), ("int", 2**31 - 1)),
    (api.v2c.Counter32(0), ("counter32", 0)),
    (api.v2c.Counter32(2**32 - 1), ("counter32", 2**32 - 1)),
    (api.v2c.Counter64(2**64 - 1), ("counter64", 2**64 - 1)),
    (api.v2c.Gauge32(2**32 - 1), ("gauge", 2**32 - 1)),
    (api.v2c.TimeTicks(0), ("timeticks", 0)),
    (api.v2c.OctetString(b""), ("octets", b"")),
    (api.v2c.OctetString(b"\x00\xff\xfe<b>"), ("octets", b"\x00\xff\xfe<b>")),
    (api.v2c.NoSuchObject(), ("missing", None)),
    (api.v2c.NoSuchInstance(), ("missing", None)),
    (api.v2c.EndOfMibView(), ("missing", None)),
    (api.v2c.Null(), ("missing", None)),
]


@pytest.mark.parametrize(
    ("value", "expected"), VALUES, ids=[type(v).__name__ + str(i) for i, (v, _) in enumerate(VALUES)]
)
def test_extreme_and_exceptional_values_are_decoded_not_raised(fake, engine, value, expected):
    agent = fake(answer(value))
    got = run(session(agent, engine).get([SYS_UPTIME, "1.3.6.1.2.1.1.5.0"]), bound())
    assert [(v.kind, v.value) for v in got.values()] == [expected, expected]


OUT_OF_RANGE = {
    "Counter32 of 2**32": (0x41, b"\x01\x00\x00\x00\x00"),
    "Gauge32 of 2**40": (0x42, b"\x01\x00\x00\x00\x00\x00"),
    "TimeTicks of 2**32": (0x43, b"\x01\x00\x00\x00\x00"),
    "Counter64 of 2**64": (0x46, b"\x01" + b"\x00" * 8),
    "Counter64 of 2**72": (0x46, b"\x01" + b"\x00" * 9),
    "INTEGER of 2**31": (0x02, b"\x00\x80\x00\x00\x00"),
    "INTEGER of -2**63": (0x02, b"\x80" + b"\x00" * 7),
}


@pytest.mark.parametrize(("tag", "body"), list(OUT_OF_RANGE.values()), ids=list(OUT_OF_RANGE))
def test_values_beyond_their_type_are_a_malformed_reply_not_an_absurd_number(fake, engine, tag, body):
    placeholder = b"\xaa" * len(body)

    def handler(req, raw):
        return [
            with_raw_value(reply(req, [(asked_oids(req)[0], api.v2c.OctetString(placeholder))]), placeholder, tag, body)
        ]

    agent = fake(handler)
    assert "malformed SNMP response" in str(error_of(session(agent, engine).get([SYS_UPTIME])))


def test_a_counter_encoded_without_its_leading_zero_is_never_negative(fake, engine):
    """0xFF as a Counter32 is -1 in strict BER: the fast engine reads it as 255 (as net-snmp does); pysnmp drops it."""
    placeholder = b"\xaa"

    def handler(req, raw):
        return [
            with_raw_value(
                reply(req, [(asked_oids(req)[0], api.v2c.OctetString(placeholder))]), placeholder, 0x41, b"\xff"
            )
        ]

    agent = fake(handler)
    if engine == "fast":
        assert run(session(agent, engine).get([SYS_UPTIME]), bound())[SYS_UPTIME] == SnmpValue("counter32", 255)
    else:
        assert isinstance(error_of(session(agent, engine).get([SYS_UPTIME])), SnmpTimeout)


@pytest.mark.parametrize(
    "value", [api.v2c.NoSuchObject(), api.v2c.NoSuchInstance()], ids=["noSuchObject", "noSuchInstance"]
)
def test_a_walk_answered_with_no_such_object_is_an_empty_table(fake, engine, value):
    agent = fake(lambda req, raw: [reply(req, [(oid, value) for oid in asked_oids(req)])])
    assert run(session(agent, engine).walk([COLUMN_TEXT]), bound()) == {COLUMN_TEXT: {}}


def test_end_of_mib_view_in_the_middle_of_a_bulk_reply_ends_only_its_column(fake, engine):
    other = (1, 3, 6, 1, 4, 1, 99, 1, 2)

    def handler(req, raw):
        asked = asked_oids(req)
        if len(asked[0]) > len(COLUMN):
            return [reply(req, [(oid, api.v2c.EndOfMibView()) for oid in asked])]
        return [
            reply(
                req,
                [
                    ((*COLUMN, 1), api.v2c.Integer(1)),
                    ((*other, 1), api.v2c.Integer(2)),
                    ((*COLUMN, 1), api.v2c.EndOfMibView()),
                    ((*other, 2), api.v2c.Integer(3)),
                ],
            )
        ]

    agent = fake(handler)
    table = run(session(agent, engine).walk([COLUMN_TEXT, ".".join(map(str, other))]), bound())
    assert table[COLUMN_TEXT] == {(1,): SnmpValue("int", 1)}
    assert table[".".join(map(str, other))] == {(1,): SnmpValue("int", 2), (2,): SnmpValue("int", 3)}


def test_an_agent_that_goes_silent_mid_walk_times_out_within_its_budget(fake, engine):
    mib = Mib({(*COLUMN, i): api.v2c.Counter32(i) for i in range(1, 101)})
    answered = []

    def handler(req, raw):
        if len(answered) >= 2:
            return []  # two pages, then nothing
        answered.append(1)
        return mib(req, raw)

    agent = fake(handler)
    error = error_of(session(agent, engine, max_repetitions=10, retries=2).walk([COLUMN_TEXT]), bound(retries=2))
    assert isinstance(error, SnmpTimeout) and "no SNMP response before the timeout" in str(error)
    assert len(agent.received) == 2 + 3  # two answered pages, then three tries of the third


def test_garbage_after_good_pages_fails_the_walk_with_a_clear_error(fake, engine):
    mib = Mib({(*COLUMN, i): api.v2c.Counter32(i) for i in range(1, 101)})

    def handler(req, raw):
        if len(agent.received) >= 3:
            return [random.Random(len(agent.received)).randbytes(200)]
        return mib(req, raw)

    agent = fake(handler)
    error = error_of(session(agent, engine, max_repetitions=10).walk([COLUMN_TEXT]))
    assert "malformed SNMP response" in str(error)


def test_a_good_agent_after_a_bad_one_on_the_same_loop_is_read(fake, engine):
    """A malformed reply from one agent never spoils another agent's requests on the shared socket or engine."""
    bad = fake(lambda req, raw: [b"garbage!"])
    good = fake(answer(api.v2c.TimeTicks(77)))

    async def both():
        results = await asyncio.gather(
            session(bad, engine).get([SYS_UPTIME]), session(good, engine).get([SYS_UPTIME]), return_exceptions=True
        )
        return results

    failed, read = run(both(), bound())
    assert isinstance(failed, SnmpError) and "malformed" in str(failed)
    assert read == {SYS_UPTIME: SnmpValue("timeticks", 77)}


# --- A whole poll against a fake device that misbehaves part-way -------------------------------------------


def o(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


IF_HC_IN, IF_HC_OUT = "1.3.6.1.2.1.31.1.1.1.6", "1.3.6.1.2.1.31.1.1.1.10"


def device_mib(ports: dict[int, dict] | None = None) -> Mib:
    """A small switch: the system group and, per port, name, speed (Mbit/s), status and 64-bit octets."""
    objects = {
        o("1.3.6.1.2.1.1.1.0"): api.v2c.OctetString(b"Fake switch"),
        o("1.3.6.1.2.1.1.2.0"): api.v2c.ObjectIdentifier(o("1.3.6.1.4.1.99999.42")),
        o("1.3.6.1.2.1.1.3.0"): api.v2c.TimeTicks(100_000),
        o("1.3.6.1.2.1.1.5.0"): api.v2c.OctetString(b"fake"),
    }
    for index, port in (ports or {1: {}, 2: {}}).items():
        objects[o(f"1.3.6.1.2.1.2.2.1.8.{index}")] = port.get("status", api.v2c.Integer(1))
        objects[o(f"1.3.6.1.2.1.31.1.1.1.1.{index}")] = api.v2c.OctetString(f"1/{index}".encode())
        objects[o(f"1.3.6.1.2.1.31.1.1.1.15.{index}")] = port.get("speed", api.v2c.Gauge32(1000))
        objects[o(f"1.3.6.1.2.1.31.1.1.1.18.{index}")] = api.v2c.OctetString(b"")
        objects[o(f"{IF_HC_IN}.{index}")] = port.get("in", api.v2c.Counter64(1_000_000))
        objects[o(f"{IF_HC_OUT}.{index}")] = port.get("out", api.v2c.Counter64(1_000_000))
    return Mib(objects)


def add_octets(mib: Mib, port: int, delta: int) -> None:
    for column in (IF_HC_IN, IF_HC_OUT):
        oid = o(f"{column}.{port}")
        mib.objects[oid] = api.v2c.Counter64(int(mib.objects[oid]) + delta)


def target_of(agent: FakeAgent, **extra) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", agent.port, community=SECRET, **{"timeout": 0.5, "retries": 0, **extra})


def sane(sample) -> bool:
    """Numeric, finite fields; rates no faster than the port (or, speed unknown, than 1 Tbit/s)."""
    limit = (sample.fields.get("speed_bps") or 1e12) * 1.1
    return all(
        isinstance(v, (int, float)) and v == v and abs(v) != float("inf") and (not k.endswith("_bps") or v <= limit)
        for k, v in sample.fields.items()
        if k != "speed_bps"
    )


def poll(agent: FakeAgent, engine: str, previous=None):
    """A whole poll, waiting for the agent as long as a busy machine needs (these tests are about what it answers,
    not when: with the 0.5 s of target_of, a loaded CI machine once lost the first poll's ports)."""
    from collectors.poll import poll_device

    return run(poll_device(target_of(agent, timeout=5.0, retries=1), "dev", previous, engine=engine), 30)


def test_wrong_types_where_counters_belong_give_no_rate_and_break_nothing(fake, engine):
    mib = device_mib(
        {
            1: {},
            2: {
                "in": api.v2c.OctetString(b"12345"),
                "out": api.v2c.Gauge32(5),
                "speed": api.v2c.OctetString(b"1000"),
                "status": api.v2c.OctetString(b"up"),
            },
        }
    )
    agent = fake(mib)
    first = poll(agent, engine)
    add_octets(mib, 1, 125_000)
    time.sleep(0.5)
    second = poll(agent, engine, first.state)
    ports = {p.name: p for p in second.ports}
    assert ports["1/1"].hc_counters and not ports["1/2"].hc_counters
    assert ports["1/2"].speed_bps == 0 and ports["1/2"].oper_up is None
    samples = {s.tags["port"]: s for s in second.samples if s.measurement == "interface"}
    (_, _, before), (_, _, after) = first.state.counters["1/1\tin_bps"], second.state.counters["1/1\tin_bps"]
    assert samples["1/1"].fields["in_bps"] == pytest.approx(125_000 * 8 / (after - before))
    assert "in_bps" not in samples["1/2"].fields and "out_bps" not in samples["1/2"].fields
    assert not any(key.startswith("1/2") for key in second.state.counters)  # nothing kept from the wrong types
    assert all(sane(s) for s in second.samples)


def test_a_64_bit_counter_jumping_to_its_maximum_is_a_gap_not_a_rate(fake, engine):
    mib = device_mib()
    agent = fake(mib)
    first = poll(agent, engine)
    mib.objects[o(f"{IF_HC_IN}.1")] = api.v2c.Counter64(2**64 - 1)
    time.sleep(0.5)
    second = poll(agent, engine, first.state)
    port = next(s for s in second.samples if s.tags.get("port") == "1/1")
    assert "in_bps" not in port.fields and second.gaps["1/1 in_bps"] == "above line rate"
    assert all(sane(s) for s in second.samples)


def test_a_counter_jump_on_a_port_of_unknown_speed_writes_no_absurd_rate(fake, engine):
    mib = device_mib({1: {"speed": api.v2c.Gauge32(0)}})
    agent = fake(mib)
    first = poll(agent, engine)
    mib.objects[o(f"{IF_HC_IN}.1")] = api.v2c.Counter64(2**64 - 1)
    time.sleep(0.5)
    second = poll(agent, engine, first.state)
    assert all(sane(s) for s in second.samples), [s.fields for s in second.samples]


def garbage_on(mib: Mib, column: str):
    """The device answers everything, except a walk of `column`, which gets garbage."""

    def handler(req, raw):
        if any(oid[: len(o(column))] == o(column) for oid in asked_oids(req)):
            return [b"\x30\x0b\x02\x01\x01\x04\x06garbag"]
        return mib(req, raw)

    return handler


def test_garbage_mid_poll_is_reported_and_writes_nothing_from_the_spoiled_walk(fake, engine):
    mib = device_mib()
    agent = fake(mib)
    first = poll(agent, engine)
    agent.handler = garbage_on(mib, IF_HC_IN)
    second = poll(agent, engine, first.state)
    assert second.errors == ["interfaces: malformed SNMP response from the agent"]
    assert [s.measurement for s in second.samples] == ["system"]  # uptime only: no port sample from the garbage
    assert SECRET not in "\n".join(second.errors)


# --- The same through monitor.polling.run.run_poll: the device row, Redis and the real InfluxDB -------------------


def silent_on(mib: Mib, column: str):
    """The device answers everything, except a walk of `column`, which it never answers."""

    def handler(req, raw):
        if any(oid[: len(o(column))] == o(column) for oid in asked_oids(req)):
            return []
        return mib(req, raw)

    return handler


def influx_points(device_id: int) -> list[tuple[str, str, str, object]]:
    """Every (measurement, port, field, value) InfluxDB holds for the device."""
    from django.conf import settings

    script = influxq.bind(
        "from(bucket: params.bucket) |> range(start: -1h) |> filter(fn: (r) => r.device == params.device)",
        {"bucket": settings.INFLUXDB_BUCKET, "device": str(device_id)},
    )
    tables = influxq.query(script)
    return [
        (r.get_measurement(), r.values.get("port", ""), r.get_field(), r.get_value()) for t in tables for r in t.records
    ]


def spoiled_poll(fake, spoil) -> dict:
    """Two good polls of a fake switch through run_poll, then one whose octets walk is spoiled by `spoil`."""
    from monitor.core import services
    from monitor.models import Device
    from monitor.polling.run import run_poll

    mib = device_mib()
    agent = fake(mib)
    device = Device.objects.create(
        name="fake", host="127.0.0.1", port=agent.port, community=SECRET, timeout_s=0.5, retries=0, poll_interval_s=2
    )
    store = services.counter_store()
    assert run_poll(device.pk) == "ok"
    first = store.load(str(device.pk))
    add_octets(mib, 1, 1_250_000)
    time.sleep(1.2)  # longer than the shortest interval a rate may span (half the poll interval)
    assert run_poll(device.pk) == "ok"
    good = store.load(str(device.pk))
    agent.handler = spoil(mib, IF_HC_IN)
    add_octets(mib, 1, 1_250_000)
    started = time.monotonic()
    outcome = run_poll(device.pk)
    took = time.monotonic() - started
    device.refresh_from_db()
    after = store.load(str(device.pk))
    return {"device": device, "first": first, "good": good, "after": after, "outcome": outcome, "took": took}


SPOILS = pytest.mark.parametrize(("spoil", "reason"), [(garbage_on, "malformed SNMP response"), (silent_on, "timeout")])


@SPOILS
@pytest.mark.django_db
def test_a_spoiled_poll_stores_no_garbage_anywhere(fake, snmp_engine, clean_backends, spoil, reason):
    found = spoiled_poll(fake, spoil)
    device = found["device"]
    shown = f"{device.last_error}\n{device.poll_warnings}"
    assert reason in shown and SECRET not in shown  # the reason is on the device row, the community is not
    assert found["took"] < 0.5 * 8 + 5  # bounded by requests x timeout, never hung
    points = influx_points(device.pk)
    rates = [(port, value) for m, port, field, value in points if m == "interface" and field == "in_bps"]
    assert sorted(port for port, _ in rates) == ["1/1", "1/2"]  # one rate per port: the good second poll only
    elapsed = found["good"].counters["1/1\tin_bps"][2] - found["first"].counters["1/1\tin_bps"][2]
    assert dict(rates)["1/1"] == pytest.approx(1_250_000 * 8 / elapsed) and dict(rates)["1/2"] == 0
    for _measurement, _port, field, value in points:
        assert isinstance(value, (int, float)) and math.isfinite(value), (field, value)
        assert not field.endswith("_bps") or 0 <= value <= 1.1e9, (field, value)
    after = found["after"].counters if found["after"] else {}
    assert all(0 <= value < 2**64 and bits in (32, 64) for value, bits, _at in after.values())


@SPOILS
@pytest.mark.django_db
def test_a_spoiled_poll_is_recorded_as_a_failure(fake, snmp_engine, clean_backends, spoil, reason):
    device = spoiled_poll(fake, spoil)["device"]
    assert reason in device.last_error and device.consecutive_failures == 1


@SPOILS
@pytest.mark.django_db
def test_a_spoiled_poll_keeps_the_last_good_counters(fake, snmp_engine, clean_backends, spoil, reason):
    found = spoiled_poll(fake, spoil)
    kept = found["after"].counters if found["after"] else {}
    assert {k: v for k, v in kept.items() if k.startswith("1/")} == {
        k: v for k, v in found["good"].counters.items() if k.startswith("1/")
    }


def silent_after_uptime(mib: Mib, column: str):
    """The device answers the poll's first request (sysUpTime), then nothing at all."""

    def handler(req, raw):
        return mib(req, raw) if asked_oids(req) == [o(SYS_UPTIME)] else []

    return handler


@pytest.mark.django_db
def test_an_agent_gone_silent_mid_poll_fails_the_poll_and_keeps_the_last_good_counters(
    fake, snmp_engine, clean_backends
):
    found = spoiled_poll(fake, silent_after_uptime)
    device = found["device"]
    assert found["outcome"].startswith("failed: no SNMP response before the timeout")
    assert device.last_error.startswith("no SNMP response before the timeout") and device.consecutive_failures == 1
    assert found["took"] < 4 * 0.5 + 2  # a few requests' timeouts (interfaces, then the profile's scalars), no more
    assert found["after"].counters == found["good"].counters  # a failed poll never replaces the counters
