"""The trap receiver with real senders on loopback: Net-SNMP's snmptrap/snmpinform and pysnmp's originator."""

from __future__ import annotations

import pytest
from pysnmp.hlapi.v3arch import asyncio as hlapi
from pysnmp.proto import rfc1902

from monitor.events.models import Event, Receiver, ReceiverCount, TrapCredential
from monitor.events.traps import TrapReceiver
from monitor.models import Device, Interface
from tests import eventkit as kit

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE_ID = "8000000001020304"


@pytest.fixture
def switch(stack_env):
    device = Device.objects.create(name="trap-switch", host="127.0.0.1", community="traps", snmp_version="2c")
    Interface.objects.create(device=device, name="1/g5", if_index=5, alias="server-05")
    TrapCredential.objects.create(
        device=device,
        v3_user="trapper",
        v3_engine_id=ENGINE_ID,
        v3_auth_protocol="SHA",
        v3_auth_key="auth-key-123",
        v3_priv_protocol="AES128",
        v3_priv_key="priv-key-123",
    )
    return device


@pytest.fixture
def trapd(switch):
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@test").start()
    yield receiver
    receiver.stop()


def test_v1_v2c_traps_and_v2c_v3_informs_from_real_senders(switch, trapd):
    port = trapd.port
    kit.snmptrap(*kit.link_trap_args(port, 5, down=True))  # v2c trap, Net-SNMP
    v1 = hlapi.CommunityData("traps", mpModel=0)  # noqa: S508 - a v1 trap, pysnmp: Dell's fan trap with its own severity
    kit.originate(
        port,
        v1,
        "trap",
        "1.3.6.1.4.1.674.10895.0.890",
        [("1.3.6.1.4.1.674.10895.5000.1.1.1.0", rfc1902.OctetString("Fan 2 <failed>")),
         ("1.3.6.1.4.1.674.10895.5000.1.1.2.0", rfc1902.Integer(4))],
    )  # fmt: skip
    kit.snmptrap("-v", "2c", "-c", "traps", "-t", "3", "-r", "1", f"127.0.0.1:{port}", "", "1.3.6.1.6.3.1.1.5.1",
                 inform=True)  # fmt: skip
    kit.snmptrap(
        "-v", "3", "-u", "trapper", "-l", "authPriv", "-a", "SHA", "-A", "auth-key-123", "-x", "AES",
        "-X", "priv-key-123", "-e", f"0x{ENGINE_ID}", f"127.0.0.1:{port}", "", kit.LINK_UP,
        f"{kit.IF_INDEX}.5", "i", "5",
    )  # fmt: skip
    v3 = hlapi.UsmUserData(
        "trapper", "auth-key-123", "priv-key-123", authProtocol=hlapi.usmHMACSHAAuthProtocol,
        privProtocol=hlapi.usmAesCfb128Protocol,
    )  # fmt: skip
    assert kit.originate(port, v3, "inform", "1.3.6.1.6.3.1.1.5.2") is None  # acknowledged: no error indication

    events = kit.events_of(switch, 5, source="trap")
    by_name = {e.name: e for e in events}
    assert set(by_name) == {"linkDown", "envMonFanStateChange", "coldStart", "linkUp", "warmStart"}
    down = by_name["linkDown"]
    assert (down.kind, down.port, down.severity, down.source) == ("link_down", "1/g5", 4, "trap")
    assert down.text == "Link down on 1/g5 (admin up, oper down)"
    assert down.detail["version"] == "2c" and down.detail["inform"] is False
    fan = by_name["envMonFanStateChange"]
    assert fan.text == "Fan state changed: Fan 2 <failed>" and fan.severity == 2  # dellTrapSeverity critical(4)
    assert fan.detail["version"] == "1" and fan.detail["oid"] == "1.3.6.1.4.1.674.10895.0.890"
    assert "traps" not in str(fan.detail)  # the v1 community RFC 3584 adds as a varbind is never kept
    assert by_name["coldStart"].detail["inform"] is True and by_name["coldStart"].kind == "cold_start"
    up = by_name["linkUp"]
    assert (up.port, up.kind, up.detail["version"]) == ("1/g5", "link_up", "3")
    assert by_name["warmStart"].detail == {**by_name["warmStart"].detail, "version": "3", "inform": True}
    assert all(abs((e.time - down.time).total_seconds()) < 30 for e in events)


def test_bad_input_is_counted_by_reason_and_the_receiver_goes_on(switch, trapd):
    port = trapd.port
    Device.objects.create(name="other", host="127.0.0.9", community="other-comm")
    trapd.refresh()
    kit.snmptrap("-v", "2c", "-c", "wrong", f"127.0.0.1:{port}", "", kit.LINK_DOWN)
    kit.snmptrap("-v", "2c", "-c", "other-comm", f"127.0.0.1:{port}", "", kit.LINK_DOWN)  # another device's
    kit.snmptrap(
        "-v", "3", "-u", "trapper", "-l", "authPriv", "-a", "SHA", "-A", "wrong-key-12", "-x", "AES",
        "-X", "priv-key-123", "-e", f"0x{ENGINE_ID}", f"127.0.0.1:{port}", "", kit.LINK_DOWN,
    )  # fmt: skip
    kit.snmptrap("-v", "3", "-u", "nobody", "-l", "noAuthNoPriv", "-e", f"0x{ENGINE_ID}", f"127.0.0.1:{port}", "",
                 kit.LINK_DOWN)  # fmt: skip
    kit.send_udp(port, b"\x30\x03garbage that is not BER at all")
    kit.send_udp(port, b"\x30" + b"\x00" * 9000)  # over EVENTS_MAX_MESSAGE_BYTES (8192)
    kit.send_udp(port, b"\x30\x03\x02\x01\x01", source="127.0.0.7")  # no device there
    for reason in ("bad_community", "credential_mismatch", "v3_wrong_digest", "v3_unknown_user", "malformed",
                   "oversized", "unknown_source"):  # fmt: skip
        kit.counted(trapd, reason)
    kit.snmptrap(*kit.link_trap_args(port, 5, down=False))  # still answering
    assert [e.kind for e in kit.events_of(switch, 1, source="trap")] == ["link_up"]
    assert Event.objects.count() == 1 + Event.objects.filter(kind="device_added").count()
    kit.counted(trapd, "stored")  # counted just after the row is written
    trapd.flush_counts()
    counts = dict(ReceiverCount.objects.filter(receiver__name="trap@test").values_list("reason", "count"))
    assert counts["stored"] == 1 and counts["bad_community"] == 1 and counts["credential_mismatch"] == 1
    assert counts["unknown_source"] == 1 and counts["oversized"] == 1 and counts["malformed"] >= 1
    note = ReceiverCount.objects.get(reason="unknown_source").note
    assert note == "last from 127.0.0.7"
    assert Receiver.objects.get(name="trap@test").kind == "trap"
    assert "auth-key" not in str(list(ReceiverCount.objects.values_list("note", flat=True)))


def test_a_v1_agent_address_counts_only_from_a_listed_relay(switch, trapd, settings):
    """snmptrap -v 1 from 127.0.0.1 naming agent 127.0.0.5: a device there is matched only when 127.0.0.1 is in
    EVENTS_TRAP_RELAYS; otherwise the trap is the source's own, and its community is not the source's."""
    far = Device.objects.create(name="far-switch", host="127.0.0.5", community="relayed")
    Interface.objects.create(device=far, name="1/g5", if_index=5)
    v1 = ["-v", "1", "-c", "relayed", f"127.0.0.1:{trapd.port}", "1.3.6.1.4.1.674.10895", "127.0.0.5", "2", "0", "",
          f"{kit.IF_INDEX}.5", "i", "5"]  # fmt: skip
    trapd.refresh()
    kit.snmptrap(*v1)
    kit.counted(trapd, "credential_mismatch")
    settings.EVENTS_TRAP_RELAYS = ["127.0.0.1"]
    trapd.refresh()
    kit.snmptrap(*v1)
    (event,) = kit.events_of(far, 1, source="trap")
    assert (event.kind, event.port, event.detail["agent_address"], event.detail["from"]) == (
        "link_down",
        "1/g5",
        "127.0.0.5",
        "127.0.0.1",
    )
    assert not Event.objects.filter(device=switch, source="trap").exists()


def test_unknown_trap_kept_with_its_varbinds(switch, trapd):
    kit.snmptrap(
        "-v", "2c", "-c", "traps", f"127.0.0.1:{trapd.port}", "", "1.3.6.1.4.1.99999.0.7",
        "1.3.6.1.4.1.99999.1.1.0", "s", "disk <b>sda</b> failing", "1.3.6.1.4.1.99999.1.2.0", "i", "42",
    )  # fmt: skip
    (event,) = kit.events_of(switch, 1, kind="trap_unknown")
    assert event.text == "Unknown trap 1.3.6.1.4.1.99999.0.7: 1.3.6.1.4.1.99999.1.1.0=disk <b>sda</b> failing, " \
        "1.3.6.1.4.1.99999.1.2.0=42"  # fmt: skip
    assert event.detail["varbinds"] == [
        ["1.3.6.1.4.1.99999.1.1.0", "", "disk <b>sda</b> failing"],
        ["1.3.6.1.4.1.99999.1.2.0", "", 42],
    ]
    assert event.severity == 6 and event.port == ""


def test_a_flooding_source_is_bounded_and_stored_events_stay(switch, trapd, settings):
    """Past its burst a source is rate-limited (counted); the events stored before are never pushed out."""
    trapd.rate.rate, trapd.rate.burst = 1.0, 5.0
    trapd.rate._buckets.clear()
    for _ in range(30):
        kit.send_udp(trapd.port, _raw_link_down(trapd.port))
    kit.counted(trapd, "rate_limited", 20)
    events = kit.events_of(switch, 5, kind="link_down")
    assert 5 <= len(events) <= 7 and trapd.counts.totals["rate_limited"] + len(events) == 30
    first = [e.pk for e in events]
    settings.EVENTS_MAX_STORED = 1000
    Event.objects.bulk_create([Event(device=switch, time=events[0].time, source="trap", kind="trap", severity=6,
                                     text="old") for _ in range(1000)])  # fmt: skip
    trapd.writer._next_capacity = 0.0
    trapd.rate.rate, trapd.rate.burst = 500.0, 5000.0
    kit.snmptrap(*kit.link_trap_args(trapd.port, 5))
    kit.counted(trapd, "store_full")
    assert list(Event.objects.filter(pk__in=first).values_list("pk", flat=True).order_by("pk")) == sorted(first)
    assert Event.objects.filter(text="old").count() == 1000


def _raw_link_down(port: int) -> bytes:
    """A v2c linkDown trap's bytes as snmptrap sends them (captured once on a socket of our own)."""
    import socket
    import subprocess

    global _RAW
    if _RAW is None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind(("127.0.0.1", 0))
            sock.settimeout(10)
            subprocess.run(["snmptrap", *kit.link_trap_args(sock.getsockname()[1], 5)], check=True, timeout=20)
            _RAW = sock.recvfrom(65535)[0]
    return _RAW


_RAW = None


def test_a_trap_that_cannot_be_decoded_is_said_in_words_on_the_events_page(switch, trapd, client, admin_user):
    """A v1 trap with generic-trap 9 (RFC 1157 knows 0-6): the panel says why in words, not a Python class name."""
    kit.snmptrap("-v", "1", "-c", "traps", f"127.0.0.1:{trapd.port}", "1.3.6.1.4.1.674.10895", "127.0.0.1", "9", "0",
                 "")  # fmt: skip
    kit.counted(trapd, "malformed")
    trapd.flush_counts()
    note = ReceiverCount.objects.get(receiver__name="trap@test", reason="malformed").note
    assert note == "last from 127.0.0.1: could not be decoded (a value outside what the standard defines)"
    client.force_login(admin_user)
    page = client.get("/events/").content.decode()
    assert f'<td class="muted">{note}</td>' in page and "Error<" not in page and "Error:" not in page
