"""The syslog receiver: UDP and TCP (RFC 6587: octet counting or one message per line), RFC 5424 and RFC 3164.

Each message is matched to a device by its source address (and by its HOSTNAME when devices share an address),
parsed, and handed to the writer; what cannot be matched or parsed is counted by reason, never raised."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from collections import Counter

from django.conf import settings

from monitor.events import sources
from monitor.events.listener import Listener
from monitor.events.models import TEXT_MAX
from monitor.events.record import clean_text
from monitor.events.syslogparse import BadSyslog, parse
from monitor.events.writer import Incoming

log = logging.getLogger(__name__)
IDLE_TIMEOUT_S = 600.0
FIELD_CHARS = 500  # a syslog field (host, app, structured data...) kept in the detail up to this long


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self, receiver: SyslogReceiver):
        self.receiver = receiver

    def datagram_received(self, data: bytes, address) -> None:
        self.receiver.message(data, address[0])

    def error_received(self, exc: Exception) -> None:  # an ICMP error on the socket: nothing to do
        log.debug("syslog UDP socket: %s", exc)


ANY_PORT_ATTEMPTS = 20  # port 0: numbers tried until one is free in both UDP and TCP


class SyslogReceiver(Listener):
    """Syslog on one port, UDP and TCP: each message checked, parsed, matched to its device and written."""

    kind = "syslog"

    def __init__(self, bind: str, port: int, name: str = ""):
        super().__init__(bind, port, name)
        self.udp: asyncio.DatagramTransport | None = None
        self.tcp: asyncio.base_events.Server | None = None
        self.connections = 0
        self.by_source: Counter[str] = Counter()  # open TCP connections by source address

    async def open(self) -> None:
        """UDP and TCP on the same port; with port 0 (tests), the first number free for both (an ephemeral UDP
        port's number may be taken in TCP by an outgoing connection: another number is tried)."""
        loop = asyncio.get_running_loop()
        family = socket.AF_INET6 if ":" in self.bind else socket.AF_INET
        wanted = self.port
        for attempt in range(1, ANY_PORT_ATTEMPTS + 1):
            sock = socket.socket(family, socket.SOCK_DGRAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, settings.EVENTS_SOCKET_BUFFER_BYTES)
            sock.bind((self.bind, wanted))
            port = sock.getsockname()[1]
            try:
                self.tcp = await asyncio.start_server(self._stream, self.bind, port, reuse_address=True)
            except OSError:
                sock.close()
                if wanted or attempt == ANY_PORT_ATTEMPTS:
                    raise
                continue
            break
        self.port = self.bound_port = port
        self.udp, _ = await loop.create_datagram_endpoint(lambda: _Datagrams(self), sock=sock)

    async def close(self) -> None:
        if self.udp is not None:
            self.udp.close()
        if self.tcp is not None:
            self.tcp.close()

    def message(self, raw: bytes, address: str) -> None:
        """One message, from a datagram or a TCP frame."""
        found = self.admit(address, len(raw))
        if found is None:
            return
        received = time.time()
        try:
            parsed = parse(raw)
        except BadSyslog:
            self.counts.add("malformed", note=f"last from {address}")
            return
        if len(found) > 1:
            named = sources.by_hostname(found, parsed.hostname)
            if len(named) != 1:
                host = parsed.hostname[:60] or "no host"
                self.counts.add(
                    "ambiguous_source", note=f"last from {address} ({host}): {sources.named(named or found)}"
                )
                return
            found = named
        if not found:  # a relay's message naming no device we know
            self.counts.add("unknown_source", note=f"last from {address}")
            return
        detail, truncated = {"from": address, "format": parsed.format}, {}
        for key in ("hostname", "app", "procid", "msgid", "timestamp", "structured"):
            value = getattr(parsed, key)
            if value:
                detail[key] = clean_text(value, FIELD_CHARS)
                if len(value) > FIELD_CHARS:
                    truncated[key] = len(value)
        text = parsed.text or "(empty message)"
        if parsed.app:
            text = f"{parsed.app}: {text}"
        if len(text) > TEXT_MAX:  # cut here, so the queue holds no more than the row will
            truncated["text"] = len(text)
        text = clean_text(text)
        if truncated:
            detail["truncated"] = truncated
        self.deliver(
            Incoming(
                found[0].id,
                "syslog",
                parsed.severity,
                text,
                "syslog",
                received,
                name=parsed.app[:100],
                facility=parsed.facility,
                detail=detail,
            )
        )

    async def _stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        address = sources.normal_address((writer.get_extra_info("peername") or ("?",))[0])
        if not self.directory.candidates(address) and address not in self.directory.relays:
            self.counts.add("unknown_source", note=f"last from {address} (TCP connection refused)")
            writer.close()  # a stranger holds no connection slot
            return
        if self.connections >= settings.EVENTS_SYSLOG_MAX_CONNECTIONS:
            self.counts.add("too_many_connections", note=f"last from {address}")
            writer.close()
            return
        if self.by_source[address] >= settings.EVENTS_SYSLOG_MAX_CONNECTIONS_PER_SOURCE:  # one address cannot
            self.counts.add("too_many_connections", note=f"last from {address} (its own bound)")  # take every slot
            writer.close()
            return
        self.connections += 1
        self.by_source[address] += 1
        limit = settings.EVENTS_MAX_MESSAGE_BYTES
        try:
            while True:
                frame = await asyncio.wait_for(self._frame(reader, limit, address), IDLE_TIMEOUT_S)
                if frame is None:
                    break
                if frame:
                    self.message(frame, address)
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass
        except asyncio.LimitOverrunError:  # digits without the space of an octet count: the framing is lost
            self.counts.add("malformed", note=f"last from {address}: bad frame length")
        finally:
            self.connections -= 1
            self.by_source[address] -= 1
            if not self.by_source[address]:
                del self.by_source[address]
            writer.close()

    async def _frame(self, reader: asyncio.StreamReader, limit: int, address: str) -> bytes | None:
        """The next message: 'LEN SP MSG' (octet counting) or a line; an oversized one is skipped and counted."""
        first = await reader.read(1)
        if not first:
            return None
        if first.isdigit():
            digits = first + await reader.readuntil(b" ")
            if not digits[:-1].isdigit() or len(digits) > 8:
                self.counts.add("malformed", note=f"last from {address}: bad frame length")
                return None  # framing lost: close the connection
            size = int(digits[:-1])
            if size > limit:
                self.counts.add("oversized", note=f"{size} bytes from {address}")
                while size > 0:  # skipped in pieces: a claimed length never sizes a buffer
                    size -= len(await reader.readexactly(min(size, 65536)))
                return b""
            return await reader.readexactly(size)
        line = bytearray(first)
        complete = await self._read_line(reader, line, limit)
        if len(line) > limit:
            self.counts.add("oversized", note=f"over {limit} bytes from {address}")
            while not complete:  # skip the rest of the line, however long
                skipped = bytearray()
                complete = await self._read_line(reader, skipped, limit)
                if not skipped:
                    break
            return b""
        return bytes(line).rstrip(b"\r\n").lstrip(b"\x00")

    @staticmethod
    async def _read_line(reader: asyncio.StreamReader, line: bytearray, limit: int) -> bool:
        """Append up to a newline (True) or until the line passes `limit` or the stream ends (False)."""
        while len(line) <= limit:
            try:
                line += await reader.readuntil(b"\n")
                return True
            except asyncio.LimitOverrunError as exc:  # longer than the stream's buffer: take what is there
                line += await reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError as exc:  # the stream ended (a last line without its newline)
                line += exc.partial
                return True
        return False
