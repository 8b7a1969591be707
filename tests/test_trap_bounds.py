"""A trap costs what the bounds allow, not what it carries: the 1,000-varbind trap, long values and OIDs, a flood of
large traps while the database is locked (the queue bounded in bytes), and the receiver storing an ordinary trap
afterwards. Traps are built byte by byte (collectors/ber.py) and sent over real UDP to the real receiver."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections import deque

import pytest

from collectors.ber import encode_oid, encode_tlv
from monitor.events.models import Event
from monitor.events.traps import TrapReceiver
from monitor.models import Device
from tests import eventkit as kit
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
SYS_UPTIME, TRAP_OID = (1, 3, 6, 1, 2, 1, 1, 3, 0), (1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0)
UNKNOWN_TRAP = (1, 3, 6, 1, 4, 1, 99999, 0, 7)


def integer(n: int) -> bytes:
    return encode_tlv(0x02, n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True))


def varbind(oid: tuple[int, ...], value: bytes) -> bytes:
    return encode_tlv(0x30, encode_oid(oid) + value)


def v2c_trap(varbinds: list[bytes], community: bytes = b"traps", trap_oid: tuple[int, ...] = UNKNOWN_TRAP) -> bytes:
    """An SNMPv2-Trap-PDU with sysUpTime and snmpTrapOID first, then `varbinds`."""
    head = varbind(SYS_UPTIME, encode_tlv(0x43, b"\x01")) + varbind(TRAP_OID, encode_oid(trap_oid))
    body = integer(7) + integer(0) + integer(0) + encode_tlv(0x30, head + b"".join(varbinds))
    return encode_tlv(0x30, integer(1) + encode_tlv(0x04, community) + encode_tlv(0xA7, body))


def thousand_varbinds() -> bytes:
    """A valid trap of 1,000 varbinds (OID 1.3, a one-byte INTEGER each) under EVENTS_MAX_MESSAGE_BYTES."""
    message = v2c_trap([varbind((1, 3), integer(n % 100)) for n in range(1000)])
    assert 8000 < len(message) <= 8192
    return message


def deep_size(value, seen: set[int] | None = None) -> int:
    """The bytes Python holds for a value and everything it refers to (each object once)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(deep_size(k, seen) + deep_size(v, seen) for k, v in value.items())
    elif isinstance(value, list | tuple | set | deque):
        size += sum(deep_size(v, seen) for v in value)
    elif hasattr(value, "__dict__") or hasattr(value, "__slots__"):
        fields = getattr(value, "__slots__", ()) or vars(value)
        size += sum(deep_size(getattr(value, name, None), seen) for name in fields)
    return size


def queued(writer) -> list:
    """What the writer's queue holds now (read without taking it)."""
    return list(getattr(writer.queue, "_queue", writer.queue).queue)


@pytest.fixture
def switch(stack_env):
    return Device.objects.create(name="trap-switch", host="127.0.0.1", community="traps", snmp_version="2c")


@pytest.fixture
def trapd(switch, settings):
    settings.EVENTS_QUEUE_MAX_BYTES = 256 * 1024
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@bounds").start()
    yield receiver
    receiver.stop()


def test_a_trap_of_a_thousand_varbinds_is_stored_cut_and_says_so(switch, trapd):
    kit.send_udp(trapd.port, thousand_varbinds())
    (event,) = kit.events_of(switch, 1, kind="trap_unknown")
    truncated = event.detail["truncated"]
    assert truncated == {"varbinds": 1000, "kept": len(event.detail["varbinds"])} and truncated["kept"] <= 64
    assert event.detail["varbinds"][:2] == [["1.3", "", 0], ["1.3", "", 1]]
    assert event.text == "Unknown trap 1.3.6.1.4.1.99999.0.7: 1.3=0, 1.3=1, 1.3=2, 1.3=3 (+996 more)"
    assert len(json.dumps(event.detail)) <= 5000  # 20 kB of detail before
    assert kit.counted(trapd, "truncated") == 1
    assert trapd.writer.queue.peak <= 10_000  # what the message held while queued (about 150 kB before)


def test_long_values_and_oids_are_cut_and_counted(switch, trapd):
    long_oid = (1, 3, 6, 1, 4, 1, 99999, *range(1, 200))
    message = v2c_trap([
        varbind((1, 3, 6, 1, 4, 1, 99999, 1), encode_tlv(0x04, b"<b>" + b"x" * 3000)),
        varbind(long_oid, integer(5)),
        varbind((1, 3, 6, 1, 4, 1, 99999, 2), encode_tlv(0x04, b"short")),
    ])  # fmt: skip
    kit.send_udp(trapd.port, message)
    (event,) = kit.events_of(switch, 1, kind="trap_unknown")
    (first, oid, short) = event.detail["varbinds"]
    assert first[2] == "<b>" + "x" * 252 + "…" and len(oid[0]) == 256 and oid[0].endswith("…") and oid[2] == 5
    assert short == ["1.3.6.1.4.1.99999.2", "", "short"]
    assert event.detail["truncated"] == {"values_cut": 2}
    assert kit.counted(trapd, "truncated") == 1


def test_a_flood_of_large_traps_with_the_database_locked_is_bounded_in_bytes(switch, trapd, db_file):
    """The writer waits on a locked database while 300 traps of 1,000 varbinds arrive: the queue holds at most
    EVENTS_QUEUE_MAX_BYTES (measured object by object), the rest is counted queue_full; once the lock goes what was
    queued is stored, and an ordinary trap after it too."""
    wait_for(trapd.writer.idle.is_set, 10, "the writer idle")
    blocker = sqlite3.connect(db_file)
    blocker.execute("BEGIN IMMEDIATE")  # writers wait (the receiver's batch), readers go on
    try:
        kit.snmptrap(*kit.link_trap_args(trapd.port, 5))  # the writer takes it and waits on the lock
        wait_for(lambda: trapd.writer.queue.empty() and not trapd.writer.idle.is_set(), 10, "the writer waiting")
        big = thousand_varbinds()
        for _ in range(300):
            kit.send_udp(trapd.port, big)
        totals = trapd.counts.totals
        wait_for(lambda: totals["truncated"] + totals["queue_full"] >= 300, 60, "300 large traps handled")
        held = sum(deep_size(item) for item in queued(trapd.writer))
        assert totals["queue_full"] > 0 and held <= 256 * 1024, (held, dict(totals))
        assert trapd.writer.queue.bytes >= held  # what is counted is at least what is held
        assert trapd.writer.queue.peak <= 256 * 1024
    finally:
        blocker.rollback()
        blocker.close()
    kit.events_of(switch, 1 + totals["truncated"], timeout=60)
    kit.snmptrap(*kit.link_trap_args(trapd.port, 5, down=False))
    assert kit.events_of(switch, 1, kind="link_up")
    assert Event.objects.filter(device=switch, kind="trap_unknown").count() == totals["truncated"]
