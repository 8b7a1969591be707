"""The SNMP trap receiver on pysnmp's engine: v1 and v2c traps, v2c and v3 traps and informs.

With collectors/snmp.py, this module and its helpers (credentials.py, notify.py) are the ones that import pysnmp
(docs/architecture.md): a notification receiver (RFC 3413) needs the engine's message processing, USM and community
tables. Datagrams pass the cheap checks (size, a known source, the per-source rate) before pysnmp decodes them;
pysnmp checks the community or the v3 keys; notify.py hands each accepted trap or inform over, trapmatch.py names its
device (credential, SNMPv3 level), enginetime.py refuses an old v3 trap played again, and the writer stores it; an
inform is answered only once queued. What pysnmp refuses is counted from its own MIB counters, by reason."""

from __future__ import annotations

import logging
import time

from pysnmp.carrier.asyncio.dgram import udp, udp6
from pysnmp.entity import config, engine

from collectors.ber import BerError
from monitor.events import decode, sources, trapmatch, trapwire
from monitor.events.counting import unreadable
from monitor.events.credentials import EngineCredentials
from monitor.events.enginetime import EngineClocks
from monitor.events.listener import Listener
from monitor.events.notify import Notification, Notifications
from monitor.events.record import clean_text
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
        self.notifications: Notifications | None = None
        self.clocks = EngineClocks()
        self._by_credential: dict[tuple[str, ...], set[int]] = {}  # credential key -> device ids it is valid for
        self._counters: dict[str, object] = {}
        self._last: dict[str, int] = {}
        self._dropped = 0  # varbinds the wire bound cut off the datagram being handled

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
        self.notifications = Notifications(self.engine, self._take, self._broken)
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
        """One datagram: the cheap checks (size, source, rate; BER, community, varbinds cut to the bound), then pysnmp
        (whose refusals are counted from its own counters)."""
        if self.admit(address[0], len(datagram)) is None:
            return
        try:
            wire = trapwire.read(datagram, decode.VARBINDS_MAX)
        except BerError as exc:
            self.counts.add("malformed", note=f"last from {address[0]}: {exc}")
            return
        if wire.community is not None and wire.community not in self.credentials.communities:
            self.counts.add("bad_community", note=f"last from {address[0]}")
            return
        self._dropped = wire.dropped
        self.notifications.begin()
        try:
            transport._callback_function(transport, address, wire.message)
        except Exception as exc:  # pysnmp's decoder raising on garbage: counted, the receiver goes on
            self.counts.add("malformed", note=f"last from {address[0]}: {unreadable(exc)}")
            return
        finally:
            self.notifications.end()
        if not self.notifications.handled:
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

    def _broken(self, address: str, exc: Exception) -> None:
        """A message pysnmp took but that cannot be read (a v1 generic-trap number past 6...): counted, never raised."""
        self.counts.add("malformed", note=f"last from {address}: {unreadable(exc)}")

    def _take(self, message: Notification) -> bool:
        """A trap or inform pysnmp accepted: decoded, matched to its device (credential, level, v3 time window) and
        queued. True when queued (only then is an inform answered)."""
        received = time.time()
        try:
            info = decode.decode(message.varbinds, dropped=self._dropped)
        except Exception as exc:
            self._broken(message.address, exc)
            return False
        verdict = trapmatch.match(self.directory, self._by_credential, message, info.agent_address[:64])
        if verdict.entry is None:
            self.counts.add(verdict.reason, note=verdict.note)
            return False
        fresh = not message.engine_id or message.level == 1  # a trap's own engine: the window applies when signed
        if not (fresh or self.clocks.fresh(message.engine_id, message.boots, message.engine_time)):
            self.counts.add("v3_time_window", note=f"last from {message.address}: an old trap played again?")
            return False
        detail = {
            "oid": info.oid,
            "from": message.address,
            "version": {0: "1", 1: "2c", 3: "3"}.get(message.model, "?"),
            "inform": message.inform,
            "uptime_ticks": info.uptime_ticks,
            "varbinds": info.varbinds,
        }
        if info.agent_address:
            detail["agent_address"] = decode.cut(info.agent_address, 64)
        truncated = dict(info.truncated)
        text = clean_text(info.text)
        if text != info.text:
            truncated["text"] = len(info.text)
        if truncated:
            detail["truncated"] = truncated
        return self.deliver(
            Incoming(
                verdict.entry.id,
                info.kind,
                info.severity,
                text,
                "trap",
                received,
                name=info.name,
                if_index=info.if_index,
                port_hint=info.port_hint,
                detail=detail,
            )
        )

    def directory_changed(self, directory: sources.Directory) -> None:
        """Bring pysnmp's community and user tables in line with the devices (added, removed, keys changed)."""
        if self.engine is not None:
            self._by_credential = self.credentials.sync(directory)
