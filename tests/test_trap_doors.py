"""The trap receiver's door played as an attacker: SNMPv3 below the user's level, another device's keys, a replayed
v3 trap, informs answered only once taken, devices sharing an address, relays written as names."""

from __future__ import annotations

import socket
import subprocess

import pytest
from django.core import checks
from pysnmp.hlapi.v3arch import asyncio as hlapi

from monitor.events.models import Event, ReceiverCount, TrapCredential
from monitor.events.traps import TrapReceiver
from monitor.models import Device, Interface
from tests import eventkit as kit
from tests.berfuzz import integer, tlv

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE_ID = "8000000001020304"
OTHER_ENGINE_ID = "8000000001090909"
SHA, AES = hlapi.usmHMACSHAAuthProtocol, hlapi.usmAesCfb128Protocol


@pytest.fixture
def switch(stack_env):
    device = Device.objects.create(name="trap-switch", host="127.0.0.1", community="traps", snmp_version="2c")
    Interface.objects.create(device=device, name="1/g5", if_index=5)
    TrapCredential.objects.create(
        device=device, v3_user="trapper", v3_engine_id=ENGINE_ID, v3_auth_protocol="SHA",
        v3_auth_key="auth-key-123", v3_priv_protocol="AES128", v3_priv_key="priv-key-123",
    )  # fmt: skip
    return device


@pytest.fixture
def trapd(switch):
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@doors").start()
    yield receiver
    receiver.stop()


def v3_args(
    port: int | str, level: str, auth: str = "auth-key-123", priv: str = "priv-key-123", *extra: str
) -> list[str]:
    keys = {"noAuthNoPriv": [], "authNoPriv": ["-a", "SHA", "-A", auth], "authPriv": ["-a", "SHA", "-A", auth, "-x",
            "AES", "-X", priv]}[level]  # fmt: skip
    return ["-v", "3", "-u", "trapper", "-l", level, *keys, "-e", f"0x{ENGINE_ID}", *extra, f"127.0.0.1:{port}", "",
            kit.LINK_DOWN, f"{kit.IF_INDEX}.5", "i", "5"]  # fmt: skip


def test_v3_traps_below_the_users_security_level_are_refused(switch, trapd):
    """The user is authPriv: a trap at noAuthNoPriv (only the user name and the device's engine ID, no key) or at
    authNoPriv (the auth key alone) is counted v3_level_too_low and never stored; at authPriv it is stored."""
    port = trapd.port
    weak = hlapi.UsmUserData("trapper")  # noqa: S509 - the attack: a trap with no key
    kit.originate(port, weak, "trap", kit.LINK_DOWN, engine_id=ENGINE_ID)
    auth_only = hlapi.UsmUserData("trapper", "auth-key-123", authProtocol=SHA)  # the attack: no privacy
    kit.originate(port, auth_only, "trap", kit.LINK_DOWN, engine_id=ENGINE_ID)
    kit.snmptrap(*v3_args(port, "noAuthNoPriv"))
    kit.snmptrap(*v3_args(port, "authNoPriv"))
    assert kit.counted(trapd, "v3_level_too_low", 4) == 4
    kit.originate(port, hlapi.UsmUserData("trapper", "auth-key-123", "priv-key-123", authProtocol=SHA,
                  privProtocol=AES), "trap", kit.LINK_UP, engine_id=ENGINE_ID)  # fmt: skip
    (event,) = kit.events_of(switch, 1, source="trap")
    assert (event.kind, event.detail["version"]) == ("link_up", "3")
    assert kit.counted(trapd, "stored") == 1 and trapd.counts.totals["v3_level_too_low"] == 4


def test_an_auth_no_priv_user_takes_auth_no_priv_but_not_less(switch, trapd):
    TrapCredential.objects.filter(device=switch).update(v3_priv_protocol="", v3_priv_key="")
    trapd.refresh()
    kit.snmptrap(*v3_args(trapd.port, "noAuthNoPriv"))
    kit.counted(trapd, "v3_level_too_low")
    kit.snmptrap(*v3_args(trapd.port, "authNoPriv"))
    (event,) = kit.events_of(switch, 1, source="trap")
    assert event.kind == "link_down" and trapd.counts.totals["v3_level_too_low"] == 1


def test_a_v3_trap_with_another_devices_user_and_engine_is_refused(switch, trapd):
    """Two devices share a user name with keys of their own: a trap from the first's address signed with the second's
    engine ID and keys (its admin's, or a stolen one) is not the first's (credential_mismatch)."""
    other = Device.objects.create(name="other", host="127.0.0.9", community="other")
    TrapCredential.objects.create(
        device=other, v3_user="trapper", v3_engine_id=OTHER_ENGINE_ID, v3_auth_protocol="SHA",
        v3_auth_key="other-auth-key", v3_priv_protocol="AES128", v3_priv_key="other-priv-key",
    )  # fmt: skip
    trapd.refresh()
    kit.originate(trapd.port, hlapi.UsmUserData("trapper", "other-auth-key", "other-priv-key", authProtocol=SHA,
                  privProtocol=AES), "trap", kit.LINK_DOWN, engine_id=OTHER_ENGINE_ID)  # fmt: skip
    kit.counted(trapd, "credential_mismatch")
    kit.originate(trapd.port, hlapi.UsmUserData("trapper", "auth-key-123", "priv-key-123", authProtocol=SHA,
                  privProtocol=AES), "trap", kit.LINK_UP, engine_id=ENGINE_ID)  # fmt: skip
    assert [e.kind for e in kit.events_of(switch, 1, source="trap")] == ["link_up"]
    assert not Event.objects.filter(device=other, source="trap").exists()


def test_a_v3_user_named_like_a_community_slot_does_not_take_the_community_over(switch, trapd):
    """pysnmp names community entries c0, c1...; a v3 user called c0 on another device must not make the first
    community (this switch's 'traps') valid for that device only."""
    other = Device.objects.create(name="other", host="127.0.0.9", community="other")
    TrapCredential.objects.create(device=other, v3_user="c0", v3_engine_id=OTHER_ENGINE_ID, v3_auth_protocol="SHA",
                                  v3_auth_key="other-auth-key", v3_priv_protocol="", v3_priv_key="")  # fmt: skip
    trapd.refresh()
    kit.snmptrap(*kit.link_trap_args(trapd.port, 5))
    assert [e.kind for e in kit.events_of(switch, 1, source="trap")] == ["link_down"]


def test_a_community_pysnmp_cannot_take_leaves_the_receiver_and_the_other_devices_working(switch):
    """pysnmp's community table takes Latin-1 only: one device's community with a euro sign is refused (logged,
    without the community) and every other device's traps go on."""
    Device.objects.create(name="euro", host="127.0.0.9", community="caf€")
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@euro").start()
    try:
        kit.snmptrap(*kit.link_trap_args(receiver.port, 5))
        assert [e.kind for e in kit.events_of(switch, 1, source="trap")] == ["link_down"]
    finally:
        receiver.stop()


def _captured(*args: str) -> bytes:
    """The datagram Net-SNMP's snmptrap sends (sent to a socket of our own, to be played again)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        port = sock.getsockname()[1]
        subprocess.run(["snmptrap", *[a.replace("{port}", str(port)) for a in args]], check=True, timeout=20)
        return sock.recvfrom(65535)[0]


def test_a_replayed_v3_trap_is_refused_outside_the_time_window(switch, trapd):
    """A captured authPriv trap played again after the device's clock moved on more than 150 s (RFC 3414 3.2.7b), or
    from an older boot, is counted v3_time_window; the device's newer traps are stored."""
    early, newer, older_boot = (
        _captured(*v3_args("{port}", "authPriv", "auth-key-123", "priv-key-123", "-Z", clock))
        for clock in ("7,1000", "7,5000", "6,9000")
    )
    kit.send_udp(trapd.port, early)
    kit.events_of(switch, 1, source="trap")
    kit.send_udp(trapd.port, newer)
    kit.events_of(switch, 2, source="trap")
    kit.send_udp(trapd.port, early)  # 4,000 s older than the device's clock: a replay
    kit.send_udp(trapd.port, older_boot)
    assert kit.counted(trapd, "v3_time_window", 2) == 2
    kit.send_udp(trapd.port, newer)  # the same moment again: inside the window, as RFC 3414 allows
    assert len(kit.events_of(switch, 3, source="trap")) == 3


def test_an_inform_is_answered_only_once_it_is_taken(switch, trapd):
    """An inform whose credential is another device's is refused without an answer (the sender is not told it was
    delivered); the switch's own inform is answered and stored."""
    Device.objects.create(name="other", host="127.0.0.9", community="other-comm")
    trapd.refresh()
    refused = kit.originate(trapd.port, hlapi.CommunityData("other-comm"), "inform", kit.LINK_DOWN)
    assert "timed out" in str(refused).lower() or "timeout" in str(refused).lower(), refused
    assert trapd.counts.totals["credential_mismatch"] >= 1
    assert kit.originate(trapd.port, hlapi.CommunityData("traps"), "inform", kit.LINK_UP) is None
    assert [e.kind for e in kit.events_of(switch, 1, source="trap")] == ["link_up"]
    # nothing pysnmp kept for an answer is left behind by the refused ones (a leak per refused inform otherwise)
    assert all(model._cache.is_empty() for model in trapd.engine.security_models.values())


def test_a_global_community_from_an_address_of_several_devices_is_ambiguous(switch, trapd, settings):
    """EVENTS_TRAP_COMMUNITIES is accepted from every device: from an address two devices share it names neither
    (ambiguous_source, nothing stored); a device's own community there still names it."""
    settings.EVENTS_TRAP_COMMUNITIES = ["everyone"]
    array = Device.objects.create(name="array", host="127.0.0.1", community="array-comm")
    trapd.refresh()
    kit.snmptrap("-v", "2c", "-c", "everyone", f"127.0.0.1:{trapd.port}", "", kit.LINK_DOWN)
    kit.counted(trapd, "ambiguous_source")
    trapd.flush_counts()  # the Events page's receivers panel names the devices the address could be
    note = ReceiverCount.objects.get(receiver__name=trapd.name, reason="ambiguous_source").note
    assert note == f"last from 127.0.0.1: devices {', '.join(sorted(['array', switch.name]))}"
    kit.snmptrap("-v", "2c", "-c", "array-comm", f"127.0.0.1:{trapd.port}", "", "1.3.6.1.6.3.1.1.5.1")
    assert [e.kind for e in kit.events_of(array, 1, source="trap")] == ["cold_start"]
    assert not Event.objects.filter(device=switch, source="trap").exists()
    assert trapd.counts.totals["ambiguous_source"] == 1


@pytest.mark.parametrize("relay", ["localhost", "::FFFF:127.0.0.1", "0:0:0:0:0:FFFF:7F00:1"])
def test_relays_are_matched_however_they_are_written(switch, trapd, settings, relay):
    """EVENTS_TRAP_RELAYS as a DNS name or another spelling of the address: normalised like device hosts."""
    far = Device.objects.create(name="far-switch", host="127.0.0.5", community="relayed")
    settings.EVENTS_TRAP_RELAYS = [relay]
    trapd.refresh()
    kit.snmptrap("-v", "1", "-c", "relayed", f"127.0.0.1:{trapd.port}", "1.3.6.1.4.1.674.10895", "127.0.0.5", "3",
                 "0", "")  # fmt: skip
    (event,) = kit.events_of(far, 1, source="trap")
    assert (event.kind, event.detail["agent_address"]) == ("link_up", "127.0.0.5")


def test_a_relay_that_is_neither_an_address_nor_a_name_is_a_check_error(settings):
    settings.EVENTS_TRAP_RELAYS = ["127.0.0.1", "10.0.0.300", "no such host.invalid"]
    errors = [e for e in checks.run_checks() if e.id == "events.E002"]
    assert sorted(e.msg for e in errors) == [
        "EVENTS_TRAP_RELAYS entry '10.0.0.300' is neither an IP address nor a name that resolves",
        "EVENTS_TRAP_RELAYS entry 'no such host.invalid' is neither an IP address nor a name that resolves",
    ]


def test_refused_v3_messages_leave_nothing_behind_in_pysnmp(switch, trapd):
    """A noAuthNoPriv message naming the switch's user and engine ID with an encrypted PDU: pysnmp refuses it but kept
    the user's entry (its localized keys) for each one, a leak per datagram from anyone at a device's address."""
    engine = bytes.fromhex(ENGINE_ID)
    header = tlv(0x30, integer(1) + integer(65507) + tlv(0x04, b"\x00") + integer(3))
    usm = tlv(0x30, tlv(0x04, engine) + integer(1) + integer(100) + tlv(0x04, b"trapper") + tlv(0x04, b"") * 2)
    message = tlv(0x30, integer(3) + header + tlv(0x04, usm) + tlv(0x04, b"x" * 32))
    for _ in range(50):
        kit.send_udp(trapd.port, message)
    assert kit.counted(trapd, "malformed", 50) == 50
    assert all(model._cache.is_empty() for model in trapd.engine.security_models.values())
