"""Helpers for the events tests: real senders (pysnmp's notification originator, Net-SNMP's snmptrap, sockets)."""

from __future__ import annotations

import asyncio
import socket
import subprocess

from pysnmp.hlapi.v3arch import asyncio as hlapi
from pysnmp.proto import rfc1902

from monitor.events.models import Event
from tests.conftest import wait_for

LINK_DOWN = "1.3.6.1.6.3.1.1.5.3"
LINK_UP = "1.3.6.1.6.3.1.1.5.4"
IF_INDEX, IF_ADMIN, IF_OPER = "1.3.6.1.2.1.2.2.1.1", "1.3.6.1.2.1.2.2.1.7", "1.3.6.1.2.1.2.2.1.8"


def snmptrap(*args: str, inform: bool = False) -> subprocess.CompletedProcess:
    """Debian's snmptrap (or snmpinform): fails the test if Net-SNMP is missing."""
    tool = "snmpinform" if inform else "snmptrap"
    result = subprocess.run([tool, *args], capture_output=True, text=True, timeout=20)
    assert result.returncode == 0, (tool, result.stderr)
    return result


def link_trap_args(port: int, if_index: int, down: bool = True, version: tuple = ("-v", "2c", "-c", "traps")):
    return [
        *version,
        f"127.0.0.1:{port}",
        "",
        LINK_DOWN if down else LINK_UP,
        f"{IF_INDEX}.{if_index}", "i", str(if_index),
        f"{IF_ADMIN}.{if_index}", "i", "1",
        f"{IF_OPER}.{if_index}", "i", "2" if down else "1",
    ]  # fmt: skip


def originate(
    port: int, auth, kind: str, trap_oid: str, varbinds: list[tuple[str, object]] = (), engine_id: str = ""
) -> object:
    """pysnmp's notification originator: a trap (no answer) or an inform (returns the error indication). A v3 trap
    is sent by an engine of `engine_id` (hex), the ID the receiver knows the device by."""

    async def send():
        own = {"snmpEngineID": rfc1902.OctetString(hexValue=engine_id)} if engine_id else {}
        engine = hlapi.SnmpEngine(**own)
        target = await hlapi.UdpTransportTarget.create(("127.0.0.1", port), timeout=3, retries=1)
        notification = hlapi.NotificationType(hlapi.ObjectIdentity(trap_oid)).add_varbinds(
            *(hlapi.ObjectType(hlapi.ObjectIdentity(oid), value) for oid, value in varbinds)
        )
        result = await hlapi.send_notification(engine, auth, target, hlapi.ContextData(), kind, notification)
        engine.close_dispatcher()
        return result[0]

    return asyncio.run(send())


def send_udp(port: int, payload: bytes, source: str = "127.0.0.1") -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((source, 0))
        sock.sendto(payload, ("127.0.0.1", port))


def events_of(device, count: int, timeout: float = 15.0, **filters) -> list[Event]:
    """Wait until the device has `count` events matching `filters`; oldest first."""

    def found():
        rows = list(Event.objects.filter(device=device, **filters).order_by("time", "id"))
        return rows if len(rows) >= count else None

    return wait_for(found, timeout, f"{count} events of {device} {filters}")


def counted(receiver, reason: str, at_least: int = 1, timeout: float = 10.0) -> int:
    return wait_for(
        lambda: receiver.counts.totals[reason] >= at_least and receiver.counts.totals[reason],
        timeout,
        f"{at_least} '{reason}' counted",
    )
