"""A lean SNMP v1/v2c engine: hand-written BER, one UDP socket per event loop, many requests in flight."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import random
import socket
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from collectors.ber import (
    END_OF_MIB,
    ERROR_NAMES,
    GET,
    GETBULK,
    GETNEXT,
    BerError,
    decode_varbinds,
    encode_request,
    response_body,
    response_header,
)
from collectors.berwalk import absorb_varbinds
from collectors.snmptypes import (
    MALFORMED_TEXT,
    MISSING,
    ColumnWalk,
    Oid,
    SnmpError,
    SnmpTarget,
    SnmpTimeout,
    SnmpValue,
    format_oid,
    parse_oid,
)

TIMEOUT_TEXT = "no SNMP response before the timeout (wrong community, host down or filtered)"
RECEIVE_BUFFER = 4 * 1024 * 1024
_ids = itertools.count(random.randrange(1, 2**30))


class _Answer(NamedTuple):
    """An agent's answer: error status and index, the message, where its varbinds start and end, when it came."""

    status: int
    index: int
    data: bytes
    start: int
    stop: int
    arrived: float


class _Pending:
    """One request in flight: its future, where it went, and its retry timer."""

    __slots__ = ("addr", "dispatcher", "expect", "future", "message", "timeout", "timer", "tries_left")

    def __init__(self, dispatcher: _Dispatcher, addr: tuple, message: bytes, tries: int, timeout: float, expect: tuple):
        self.dispatcher = dispatcher
        self.future: asyncio.Future[tuple[bytes, int, int, float]] = dispatcher.loop.create_future()
        self.addr, self.message, self.tries_left, self.timeout = addr, message, tries, timeout
        self.expect = expect  # (version, community) the answer must carry
        self.timer: asyncio.TimerHandle | None = None

    def send(self) -> None:
        """Send (again), or fail with a timeout when every try is spent."""
        if self.future.done():
            return
        if self.tries_left <= 0:
            self.future.set_exception(SnmpTimeout(TIMEOUT_TEXT))
            return
        self.tries_left -= 1
        self.dispatcher.transport.sendto(self.message, self.addr)
        self.timer = self.dispatcher.loop.call_later(self.timeout, self.send)


class _Dispatcher(asyncio.DatagramProtocol):
    """The one socket of an address family on one event loop; answers are matched by request id and sender."""

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.transport: Any = None
        self.pending: dict[int, _Pending] = {}

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)

    def datagram_received(self, data: bytes, addr: tuple) -> None:
        arrived = time.time()  # when the agent's answer came, before any waiting in this process's event loop
        try:
            version, community, request_id, pos, end = response_header(data)
        except (BerError, IndexError):
            for entry in list(self.pending.values()):  # cannot tell which request: fail those sent to this agent
                if entry.addr[:2] == addr[:2] and not entry.future.done():
                    entry.future.set_exception(SnmpError(MALFORMED_TEXT))
            return
        entry = self.pending.get(request_id)
        if entry is None or entry.addr[:2] != addr[:2] or entry.future.done():
            return  # a wrong request id or a stranger's packet is ignored
        if entry.expect == (version, community):  # another version or community is ignored too (as pysnmp does)
            entry.future.set_result((data, pos, end, arrived))

    def error_received(self, exc: Exception) -> None:
        """ICMP errors on an unconnected socket cannot be attributed: the retry timer handles them."""


_dispatchers: dict[tuple[int, int], asyncio.Future[_Dispatcher]] = {}


async def _dispatcher(family: int) -> _Dispatcher:
    loop = asyncio.get_running_loop()
    key = (id(loop), family)
    future = _dispatchers.get(key)
    if future is not None and future.get_loop() is loop:
        return await future
    future = _dispatchers[key] = loop.create_future()
    try:
        local = ("::", 0) if family == socket.AF_INET6 else ("0.0.0.0", 0)
        _, protocol = await loop.create_datagram_endpoint(lambda: _Dispatcher(loop), local_addr=local, family=family)
    except OSError as exc:
        del _dispatchers[key]
        future.set_exception(SnmpError(f"cannot open a UDP socket: {exc.strerror or exc}"))
        raise SnmpError(f"cannot open a UDP socket: {exc.strerror or exc}") from None
    future.set_result(protocol)
    return protocol


class FastSession:
    """A v1/v2c session to one agent on the loop's shared socket (same interface as collectors.snmp.SnmpSession)."""

    def __init__(self, target: SnmpTarget, clock: Callable[[], float] | None = None):
        if target.version not in ("1", "2c"):
            raise SnmpError(f"the fast engine speaks SNMP v1 and v2c, not {target.version!r}")
        self.target = target
        self.requests = 0
        self._version = 0 if target.version == "1" else 1
        self._community = target.community.encode()
        self._addr: tuple | None = None
        self._family = socket.AF_INET
        self._repetitions = max(1, target.max_repetitions)
        self._clock = clock  # what times the answers (None: when each datagram arrived)

    async def _address(self) -> tuple:
        if self._addr is None:
            host, port = self.target.host, self.target.port
            try:
                ip = ipaddress.ip_address(host.strip("[]"))
                infos = [(socket.AF_INET6 if ip.version == 6 else socket.AF_INET, (str(ip), port))]
            except ValueError:
                try:
                    found = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_DGRAM)
                except OSError as exc:
                    raise SnmpError(f"cannot resolve host {host!r}: {exc.strerror or exc}") from None
                infos = [(family, addr[:2]) for family, _, _, _, addr in found]
            if not infos:
                raise SnmpError(f"cannot resolve host {host!r}")
            self._family, self._addr = infos[0]
        return self._addr

    async def _request(self, pdu: int, a: int, b: int, oids: list[Oid]) -> _Answer:
        """Send one request and wait for its answer."""
        addr = await self._address()
        dispatcher = await _dispatcher(self._family)
        request_id = next(_ids) & 0x7FFFFFFF
        message = encode_request(self._version, self._community, pdu, request_id, a, b, oids)
        entry = _Pending(
            dispatcher, addr, message, self.target.retries + 1, self.target.timeout, (self._version, self._community)
        )
        dispatcher.pending[request_id] = entry
        self.requests += 1
        try:
            entry.send()
            data, pos, end, arrived = await entry.future
        finally:
            del dispatcher.pending[request_id]
            if entry.timer is not None:
                entry.timer.cancel()
        try:
            status, index, start, stop = response_body(data, pos, end)
        except (BerError, IndexError):
            raise SnmpError(MALFORMED_TEXT) from None
        return _Answer(status, index, data, start, stop, arrived if self._clock is None else self._clock())

    def _status_error(self, status: int, index: int, oids: list[Oid]) -> SnmpError:
        name = ERROR_NAMES[status] if 0 <= status < len(ERROR_NAMES) else f"error {status}"
        where = format_oid(oids[index - 1]) if 0 < index <= len(oids) else "request"
        return SnmpError(f"agent error {name} at {where}")

    async def get(self, oids: list[str]) -> dict[str, SnmpValue]:
        """GET scalars; absent objects come back as MISSING instead of failing the whole request."""
        result = {oid: MISSING for oid in oids}
        pending = [(text, parse_oid(text)) for text in oids]
        while pending:
            asked = [oid for _, oid in pending]
            status, index, data, start, stop, _ = await self._request(GET, 0, 0, asked)
            if status == 2 and 0 < index <= len(pending):  # SNMPv1 noSuchName: drop it and ask again
                pending.pop(index - 1)
                continue
            if status:
                raise self._status_error(status, index, asked)
            try:
                varbinds = decode_varbinds(data, start, stop)
            except (BerError, IndexError):
                raise SnmpError(MALFORMED_TEXT) from None
            for (text, _), (_, value) in zip(pending, varbinds, strict=False):
                result[text] = MISSING if value is END_OF_MIB else value
            break
        return result

    async def walk(
        self,
        columns: list[str],
        max_rows: int = 10000,
        expected_rows: int | dict[str, int] | None = None,
        times: dict[str, dict[Oid, float]] | None = None,
    ) -> dict[str, dict[Oid, SnmpValue]]:
        """Walk table columns side by side with GETBULK (GETNEXT on v1); rows keyed by index suffix.

        `expected_rows` (the tables' sizes at the last poll) trims the last request to the tables' end; the
        columns named in `times` get, per row, when the agent answered with it (filled in place)."""
        walk = ColumnWalk(columns, max_rows, expected_rows, timed=times or ())
        while walk.active:
            asked = walk.asked()
            if self._version == 0:
                status, index, data, start, stop, arrived = await self._request(GETNEXT, 0, 0, asked)
            else:
                repetitions = walk.repetitions(self._repetitions)
                status, index, data, start, stop, arrived = await self._request(GETBULK, 0, repetitions, asked)
            if status == 1 and self._version and self._repetitions > 1:  # tooBig: ask for fewer rows
                self._repetitions //= 2
                continue
            if status == 2 and self._version == 0 and 0 < index <= len(walk.active):  # v1: that column ended
                walk.active.pop(index - 1)
                continue
            if status:
                raise self._status_error(status, index, asked)
            try:
                if not absorb_varbinds(walk, data, start, stop, arrived):
                    break
            except (BerError, IndexError):
                raise SnmpError(MALFORMED_TEXT) from None
        if times is not None:
            times.update(walk.read_times())
        return walk.result()
