"""Both SNMP engines against snmpsim, and the fast engine against a fake agent (tests/snmpfake.py) with crafted bytes.

Garbage, truncated, oversized and looping replies against both engines are in tests/test_bad_snmp.py.
"""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from pysnmp.proto import api

from collectors.sessions import open_session
from collectors.snmptypes import SnmpError, SnmpTarget, SnmpTimeout, SnmpValue
from tests.snmpfake import FakeAgent, asked_oids, reply

SYS_UPTIME, SYS_NAME, ABSENT = "1.3.6.1.2.1.1.3.0", "1.3.6.1.2.1.1.5.0", "1.3.6.1.2.1.1.77.0"
IF_NAME, IF_HC_IN, IF_IN = "1.3.6.1.2.1.31.1.1.1.1", "1.3.6.1.2.1.31.1.1.1.6", "1.3.6.1.2.1.2.2.1.10"
COLUMN = (1, 3, 6, 1, 4, 1, 99, 1, 1)


def run(coro):
    return asyncio.run(coro)


@pytest.fixture(params=["pysnmp", "fast"])
def engine(request) -> str:
    return request.param


def target(port: int, community: str = "switch", **extra) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", port, community=community, **{"timeout": 1.0, "retries": 1, **extra})


def test_get_returns_typed_values_and_missing(agent, engine):
    session = open_session(target(agent.port), engine)
    values = run(session.get([SYS_UPTIME, SYS_NAME, ABSENT]))
    assert values[SYS_UPTIME].kind == "timeticks" and values[SYS_UPTIME].value > 0
    assert values[SYS_NAME].kind == "octets" and values[SYS_NAME].value == b"test-switch"
    assert values[ABSENT].missing
    assert session.requests == 1


def test_walk_reads_columns_side_by_side(agent, engine):
    session = open_session(target(agent.port, max_repetitions=3), engine)
    table = run(session.walk([IF_NAME, IF_HC_IN]))
    assert sorted(table[IF_NAME]) == [(i,) for i in range(1, 9)]
    assert table[IF_NAME][(3,)].value == b"1/g3"
    assert {v.kind for v in table[IF_HC_IN].values()} == {"counter64"}
    assert session.requests >= 3  # eight rows at three per request


def test_walk_stops_at_the_row_cap(agent, engine):
    session = open_session(target(agent.port), engine)
    with pytest.raises(SnmpError, match="more than 5 rows"):
        run(session.walk([IF_NAME], max_rows=5))


def test_v1_get_and_walk(agent, engine):
    session = open_session(target(agent.port, community="legacy", version="1"), engine)
    values = run(session.get([SYS_UPTIME, ABSENT]))
    assert values[SYS_UPTIME].kind == "timeticks" and values[ABSENT].missing
    table = run(session.walk([IF_IN]))
    assert sorted(table[IF_IN]) == [(1,), (2,), (3,)]
    assert {v.kind for v in table[IF_IN].values()} == {"counter32"}


def test_wrong_community_times_out_without_showing_it(agent, engine):
    session = open_session(target(agent.port, community="s3cret-community", timeout=0.3, retries=1), engine)
    started = time.monotonic()
    with pytest.raises(SnmpTimeout) as caught:
        run(session.get([SYS_UPTIME]))
    assert time.monotonic() - started >= 0.55
    assert "s3cret" not in str(caught.value) and "timeout" in str(caught.value)


@pytest.fixture
def fake():
    agents: list[FakeAgent] = []

    def start(handler) -> FakeAgent:
        agents.append(FakeAgent(handler))
        return agents[-1]

    yield start
    for agent in agents:
        agent.close()


def fast(port: int, **extra) -> object:
    return open_session(target(port, community="public", **{"timeout": 0.3, **extra}), "fast")


def test_requests_are_well_formed_getbulk(fake):
    agent = fake(lambda req, raw: [reply(req, [(COLUMN, api.v2c.EndOfMibView())])])
    run(fast(agent.port, max_repetitions=7).walk([".".join(map(str, COLUMN))]))
    pdu = api.v2c.apiMessage.get_pdu(agent.received[0])
    assert str(api.v2c.apiMessage.get_community(agent.received[0])) == "public"
    assert api.v2c.apiBulkPDU.get_max_repetitions(pdu) == 7 and asked_oids(agent.received[0]) == [COLUMN]


def test_wrong_request_id_is_ignored(fake):
    def handler(req, raw):
        good = reply(req, [(asked_oids(req)[0], api.v2c.TimeTicks(4242))])
        return [reply(req, [(asked_oids(req)[0], api.v2c.TimeTicks(1))], request_id=12345), good]

    agent = fake(handler)
    assert run(fast(agent.port).get([SYS_UPTIME]))[SYS_UPTIME].value == 4242


def test_silent_agent_times_out_after_every_retry(fake):
    agent = fake(lambda req, raw: [])
    started = time.monotonic()
    with pytest.raises(SnmpTimeout):
        run(fast(agent.port, timeout=0.2, retries=2).get([SYS_UPTIME]))
    assert 0.55 <= time.monotonic() - started < 1.5  # three tries of 0.2 s, not one and not forever
    assert len(agent.received) == 3


def test_value_types_and_no_such_object(fake):
    values = [
        api.v2c.Integer(-5),
        api.v2c.OctetString(b"\x00\xffname"),
        api.v2c.ObjectIdentifier((1, 3, 6, 1, 4, 1, 200000)),
        api.v2c.IpAddress("10.1.2.3"),
        api.v2c.Counter32(4294967295),
        api.v2c.Gauge32(7),
        api.v2c.TimeTicks(99),
        api.v2c.Counter64(2**64 - 1),
        api.v2c.NoSuchObject(),
        api.v2c.NoSuchInstance(),
    ]
    agent = fake(lambda req, raw: [reply(req, list(zip(asked_oids(req), values, strict=True)))])
    oids = [f"1.3.6.1.4.1.99.2.{i}.0" for i in range(len(values))]
    got = [v for v in run(fast(agent.port).get(oids)).values()]
    assert [(v.kind, v.value) for v in got] == [
        ("int", -5),
        ("octets", b"\x00\xffname"),
        ("oid", "1.3.6.1.4.1.200000"),
        ("ip", "10.1.2.3"),
        ("counter32", 4294967295),
        ("gauge", 7),
        ("timeticks", 99),
        ("counter64", 2**64 - 1),
        ("missing", None),
        ("missing", None),
    ]


def test_v1_no_such_name_drops_the_object_in_get_and_ends_a_walk(fake):
    def handler(req, raw):
        oids = asked_oids(req)
        if (1, 3, 6, 1, 2, 1, 1, 77, 0) in oids:
            position = oids.index((1, 3, 6, 1, 2, 1, 1, 77, 0)) + 1
            return [reply(req, [(o, api.v1.Null()) for o in oids], status=2, index=position)]
        if oids[0][: len(COLUMN)] == COLUMN and len(oids[0]) > len(COLUMN):
            return [reply(req, [(o, api.v1.Null()) for o in oids], status=2, index=1)]
        return [
            reply(req, [((*COLUMN, 1), api.v1.Integer(3)) if o == COLUMN else (o, api.v1.TimeTicks(5)) for o in oids])
        ]

    agent = fake(handler)
    session = fast(agent.port, version="1")
    got = run(session.get([SYS_UPTIME, ABSENT]))
    assert got[SYS_UPTIME].value == 5 and got[ABSENT].missing
    assert run(session.walk([".".join(map(str, COLUMN))])) == {".".join(map(str, COLUMN)): {(1,): SnmpValue("int", 3)}}


def test_too_big_asks_for_fewer_rows(fake):
    def handler(req, raw):
        reps = api.v2c.apiBulkPDU.get_max_repetitions(api.v2c.apiMessage.get_pdu(req))
        if reps > 4:
            return [reply(req, [], status=1)]
        return [reply(req, [((*COLUMN, 1), api.v2c.Integer(1)), (COLUMN, api.v2c.EndOfMibView())])]

    agent = fake(handler)
    table = run(fast(agent.port, max_repetitions=20).walk([".".join(map(str, COLUMN))]))
    assert next(iter(table.values()))[(1,)].value == 1
    assert len(agent.received) == 4  # 20, 10, 5, then 2


def test_agent_error_is_reported_without_the_community(fake):
    agent = fake(lambda req, raw: [reply(req, [], status=5, index=1)])
    with pytest.raises(SnmpError, match=r"agent error genErr at 1\.3\.6\.1\.2\.1\.1\.3\.0") as caught:
        run(fast(agent.port).get([SYS_UPTIME]))
    assert "public" not in str(caught.value)


def test_many_agents_in_flight_on_one_loop(agent):
    async def poll_all():
        sessions = [open_session(target(agent.port), "fast") for _ in range(50)]
        return await asyncio.gather(*(s.walk([IF_NAME]) for s in sessions))

    tables = run(poll_all())
    assert all(sorted(t[IF_NAME]) == [(i,) for i in range(1, 9)] for t in tables)


def test_answer_from_another_address_is_ignored(fake):
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.bind(("127.0.0.1", 0))

    def handler(req, raw):
        forged = reply(req, [(asked_oids(req)[0], api.v2c.TimeTicks(1))])
        stranger.sendto(forged, ("127.0.0.1", handler.client_port))
        time.sleep(0.05)  # the forged answer arrives first
        return [reply(req, [(asked_oids(req)[0], api.v2c.TimeTicks(4242))])]

    agent = fake(handler)

    async def ask():
        from collectors.fastsnmp import _dispatcher

        handler.client_port = (await _dispatcher(socket.AF_INET)).transport.get_extra_info("sockname")[1]
        return await fast(agent.port).get([SYS_UPTIME])

    try:
        assert run(ask())[SYS_UPTIME].value == 4242
    finally:
        stranger.close()
