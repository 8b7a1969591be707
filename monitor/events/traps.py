"""The SNMP trap receiver, built on pysnmp's notification receiver: v1 and v2c traps, v2c and v3 informs.

With collectors/snmp.py this is the one module that imports pysnmp (docs/architecture.md): a notification
receiver (RFC 3413 NOTIFICATION-RECEIVER) needs the engine's message processing, USM and community tables.
Datagrams pass the cheap checks (size, a known source, the per-source rate) before pysnmp decodes them; pysnmp
checks the community or the v3 keys (and answers informs); the callback matches the credential to the device and
hands the decoded trap to the writer. What pysnmp refuses is counted from its own MIB counters, by reason."""

from __future__ import annotations

import logging
import time

from pysnmp.carrier.asyncio.dgram import udp, udp6
from pysnmp.entity import config, engine
from pysnmp.entity.rfc3413 import ntfrcv

from monitor.events import decode, sources
from monitor.events.credentials import ANY_DEVICE, EngineCredentials
from monitor.events.listener import Listener
from monitor.events.writer import Incoming

log = logging.getLogger(__name__)

# pysnmp's own counters, each a reason a message was refused (docs/events.md).
ENGINE_COUNTERS = {
    ("__SNMPv2-MIB", "snmpInASNParseErrs"): "malformed",
    ("__SNMPv2-MIB", "snmpInBadVersions"): "malformed",
    ("__SNMPv2-MIB", "snmpInBadCommunityNames"): "bad_community",
    ("__SNMP-MPD-MIB", "snmpInvalidMsgs"): "malformed",
    ("__SNMP-MPD-MIB", "snmpUnknownPDUHandlers"): "unsupported_pdu",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsUnknownUserNames"): "v3_unknown_user",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsWrongDigests"): "v3_wrong_digest",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsDecryptionErrors"): "v3_decryption",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsUnknownEngineIDs"): "v3_unknown_engine",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsNotInTimeWindows"): "v3_time_window",
    ("__SNMP-USER-BASED-SM-MIB", "usmStatsUnsupportedSecLevels"): "v3_unsupported_level",
}
REASON_OF = {symbol: reason for (_, symbol), reason in ENGINE_COUNTERS.items()}


def plain(value) -> int | float | str:
    """A pysnmp value as plain Python: numbers as numbers, addresses and OIDs dotted, text as text."""
    kind = type(value).__name__
    if kind in ("IpAddress",):
        return value.prettyPrint()
    if kind in ("ObjectIdentifier", "ObjectName"):
        return str(value)
    if kind in ("OctetString", "Opaque", "Bits", "DisplayString"):
        raw = bytes(value)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return "0x" + raw.hex()
        printable = all(c.isprintable() or c in "\t\r\n" for c in text)
        return text if printable else "0x" + raw.hex()
    try:
        return int(value)
    except (TypeError, ValueError):
        return value.prettyPrint()


class GateTransport(udp.UdpAsyncioTransport):
    """pysnmp's UDP transport with the receiver's checks in front, and nothing it cannot decode escaping."""

    listener: TrapReceiver

    def datagram_received(self, datagram, address) -> None:
        self.listener.datagram(self, datagram, address)


class GateTransport6(udp6.Udp6AsyncioTransport):
    listener: TrapReceiver

    def datagram_received(self, datagram, address) -> None:
        self.listener.datagram(self, datagram, address)


class TrapReceiver(Listener):
    """Traps and informs on one UDP port (IPv4 or IPv6), decoded by pysnmp, matched to devices, then written."""

    kind = "trap"

    def __init__(self, bind: str, port: int, name: str = ""):
        super().__init__(bind, port, name)
        self.engine: engine.SnmpEngine | None = None
        self.credentials: EngineCredentials | None = None
        self._by_credential: dict[str, set[int]] = {}  # security name -> device ids it is valid for
        self._counters: dict[str, object] = {}
        self._last: dict[str, int] = {}
        self._handled = False
        self._context: dict = {}

    async def open(self) -> None:
        self.engine = engine.SnmpEngine()
        self.credentials = EngineCredentials(self.engine)
        v6 = ":" in self.bind
        transport = (GateTransport6 if v6 else GateTransport)()
        transport.listener = self
        transport.open_server_mode((self.bind, self.port))
        config.add_transport(self.engine, (udp6 if v6 else udp).DOMAIN_NAME, transport)
        await transport._lport  # bound (or the error) before the receiver says it is ready
        self.transport = transport
        sock = transport.transport.get_extra_info("socket") if transport.transport else None
        if sock is not None:
            import socket

            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.buffer_bytes())
            self.port = self.bound_port = sock.getsockname()[1]
        self.engine.observer.register_observer(self._seen, "rfc3412.receiveMessage:request")
        ntfrcv.NotificationReceiver(self.engine, self._received)
        mib = self.engine.get_mib_builder()
        for module, symbol in ENGINE_COUNTERS:
            (self._counters[symbol],) = mib.import_symbols(module, symbol)
            self._last[symbol] = int(self._counters[symbol].syntax)
        self.directory_changed(self.directory)

    @staticmethod
    def buffer_bytes() -> int:
        from django.conf import settings

        return settings.EVENTS_SOCKET_BUFFER_BYTES

    async def close(self) -> None:
        if self.engine is not None:
            self.engine.close_dispatcher()

    def datagram(self, transport, datagram: bytes, address) -> None:
        """One datagram: the cheap checks, then pysnmp (whose refusals are counted from its own counters)."""
        if self.admit(address[0], len(datagram)) is None:
            return
        self._handled = False
        try:
            transport._callback_function(transport, address, datagram)
        except Exception as exc:  # pysnmp's decoder raising on garbage: counted, the receiver goes on
            self.counts.add("malformed", note=f"last from {address[0]}: {type(exc).__name__}")
            return
        if not self._handled:
            self._refused(address[0])

    def _refused(self, address: str) -> None:
        """pysnmp dropped the message: its counters say why."""
        found = False
        for symbol, counter in self._counters.items():
            now = int(counter.syntax)
            if now != self._last[symbol]:
                self.counts.add(REASON_OF[symbol], now - self._last[symbol], note=f"last from {address}")
                self._last[symbol] = now
                found = True
        if not found:
            self.counts.add("malformed", note=f"last from {address}")

    def _seen(self, snmp_engine, execpoint, variables, ctx) -> None:
        self._context = {
            "security_name": str(variables.get("securityName", "")),
            "security_model": int(variables.get("securityModel", 0)),
            "pdu": type(variables.get("pdu")).__name__,
        }

    def _received(self, snmp_engine, state_reference, context_engine_id, context_name, varbinds, ctx) -> None:
        self._handled = True
        _, address = snmp_engine.message_dispatcher.get_transport_info(state_reference)
        received = time.time()
        try:
            info = decode.decode([(str(oid), plain(value)) for oid, value in varbinds])
        except Exception as exc:
            self.counts.add("malformed", note=f"last from {address[0]}: {type(exc).__name__}")
            return
        device = self._match(sources.normal_address(address[0]), info)
        if device is None:
            return
        detail = {
            "oid": info.oid,
            "from": address[0],
            "version": {1: "1", 2: "2c", 3: "3"}.get(self._context.get("security_model", 0), "?"),
            "inform": self._context.get("pdu") == "InformRequestPDU",
            "uptime_ticks": info.uptime_ticks,
            "varbinds": info.varbinds,
        }
        if info.agent_address:
            detail["agent_address"] = info.agent_address
        self.deliver(
            Incoming(
                device.id,
                info.kind,
                info.severity,
                info.text,
                "trap",
                received,
                name=info.name,
                if_index=info.if_index,
                port_hint=info.port_hint,
                detail=detail,
            )
        )

    def _match(self, address: str, info: decode.TrapInfo) -> sources.Entry | None:
        """The device: by source address (a relay's by the v1 agent address it forwards), then by the credential.
        Only a listed relay may speak for another address: a device's trap naming someone else's is its own."""
        found = ()
        if info.agent_address and address in self.directory.relays:
            found = self.directory.candidates(info.agent_address)
        found = found or self.directory.candidates(address)
        if not found:
            self.counts.add("unknown_source", note=f"last from {address} (agent {info.agent_address or '-'})")
            return None
        valid = self._by_credential.get(self._context.get("security_name", ""), set())
        mine = [e for e in found if e.id in valid or ANY_DEVICE in valid]
        if not mine:
            self.counts.add("credential_mismatch", note=f"last from {address}")
            return None
        if len(mine) > 1 and ANY_DEVICE not in valid:
            self.counts.add("ambiguous_source", note=f"last from {address}")
            return None
        return mine[0]

    def directory_changed(self, directory: sources.Directory) -> None:
        """Bring pysnmp's community and user tables in line with the devices (added, removed, keys changed)."""
        if self.engine is not None:
            self._by_credential = self.credentials.sync(directory)
