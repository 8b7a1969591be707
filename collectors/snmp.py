"""The one module that speaks SNMP (pysnmp 7, asyncio): GET and multi-column GETBULK walks."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Callable
from typing import Any

from pyasn1.type import univ
from pysnmp.hlapi.v3arch.asyncio import (
    CommunityData,
    ContextData,
    ObjectIdentity,
    ObjectType,
    SnmpEngine,
    Udp6TransportTarget,
    UdpTransportTarget,
    UsmUserData,
    bulk_cmd,
    get_cmd,
    next_cmd,
)
from pysnmp.hlapi.v3arch.asyncio import auth as _auth
from pysnmp.proto import rfc1902, rfc1905

from collectors.ber import BerError, decode_varbinds, message_version, remember, response_body, response_header
from collectors.snmptypes import (
    END_OF_MIB,
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

log = logging.getLogger(__name__)

AUTH_PROTOCOLS = {
    "MD5": _auth.usmHMACMD5AuthProtocol,
    "SHA": _auth.usmHMACSHAAuthProtocol,
    "SHA224": _auth.usmHMAC128SHA224AuthProtocol,
    "SHA256": _auth.usmHMAC192SHA256AuthProtocol,
    "SHA384": _auth.usmHMAC256SHA384AuthProtocol,
    "SHA512": _auth.usmHMAC384SHA512AuthProtocol,
}
PRIV_PROTOCOLS = {
    "DES": _auth.usmDESPrivProtocol,
    "AES128": _auth.usmAesCfb128Protocol,
    "AES192": _auth.usmAesCfb192Protocol,
    "AES256": _auth.usmAesCfb256Protocol,
}

# Readable explanations for the error indications pysnmp reports (never include credentials).
_INDICATIONS = {
    "RequestTimedOut": "no SNMP response before the timeout (wrong community, host down or filtered)",
    "UnknownUserName": "SNMPv3 user unknown to the agent",
    "WrongDigest": "SNMPv3 authentication failed (wrong auth key or protocol)",
    "DecryptionError": "SNMPv3 decryption failed (wrong privacy key or protocol)",
    "UnsupportedSecLevel": "SNMPv3 security level not supported by the agent",
    "UnknownEngineID": "SNMPv3 engine discovery failed",
    "NotInTimeWindow": "SNMPv3 message outside the agent's time window",
}


def decode(value: Any) -> SnmpValue:
    """Turn a pysnmp value into an SnmpValue; unknown or exceptional values become missing."""
    if isinstance(value, (rfc1905.NoSuchObject, rfc1905.NoSuchInstance, rfc1905.EndOfMibView, univ.Null)):
        return MISSING  # (Null before OctetString: pyasn1's Null is a kind of OctetString)
    if isinstance(value, rfc1902.Counter64):
        return SnmpValue("counter64", int(value))
    if isinstance(value, rfc1902.Counter32):
        return SnmpValue("counter32", int(value))
    if isinstance(value, rfc1902.TimeTicks):
        return SnmpValue("timeticks", int(value))
    if isinstance(value, (rfc1902.Gauge32, rfc1902.Unsigned32)):
        return SnmpValue("gauge", int(value))
    if isinstance(value, rfc1902.IpAddress):
        return SnmpValue("ip", ".".join(str(b) for b in value.asNumbers()))
    if isinstance(value, (rfc1902.Integer32, rfc1902.Integer, univ.Integer)):
        return SnmpValue("int", int(value))
    if isinstance(value, (rfc1902.ObjectIdentifier, univ.ObjectIdentifier)):
        return SnmpValue("oid", format_oid(value.asTuple()))
    if isinstance(value, (rfc1902.OctetString, rfc1902.Opaque, rfc1902.Bits, univ.OctetString)):
        return SnmpValue("octets", bytes(value.asOctets()))
    return MISSING


class SnmpSession:
    """A session to one agent on the calling event loop's shared SNMP engine."""

    def __init__(self, target: SnmpTarget, clock: Callable[[], float] | None = None):
        self.target = target
        self._clock = clock  # what times the answers (None: when each datagram arrived)
        self._auth = _auth_data(target)
        self._transport: Any = None
        self.requests = 0

    @staticmethod
    def _engine() -> SnmpEngine:
        """One engine per event loop, kept on the loop so it goes away with it."""
        loop = asyncio.get_running_loop()
        engine = getattr(loop, "_monitor_snmp_engine", None)
        if engine is None:
            engine = SnmpEngine()
            _guard_receive(engine)
            loop._monitor_snmp_engine = engine  # type: ignore[attr-defined]
        return engine

    async def _transport_target(self) -> Any:
        if self._transport is None:
            cls = Udp6TransportTarget if ":" in self.target.host else UdpTransportTarget
            try:
                self._transport = await cls.create(
                    (self.target.host, self.target.port),
                    timeout=self.target.timeout,
                    retries=self.target.retries,
                )
            except Exception as exc:  # pysnmp wraps resolver failures in its own error type
                raise SnmpError(f"cannot resolve host {self.target.host[:100]!r}: {_resolver_reason(exc)}") from None
        return self._transport

    async def _request(self, command: Any, *args: Any, oids: list[Oid]) -> list[tuple[Oid, Any]]:
        transport = await self._transport_target()
        self.requests += 1
        objects = [ObjectType(ObjectIdentity(oid)) for oid in oids]
        engine = self._engine()
        sent_at = time.monotonic()
        indication, status, index, varbinds = await command(
            engine, self._auth, transport, ContextData(), *args, *objects, lookupMib=False
        )
        if indication:
            name = type(indication).__name__ if not isinstance(indication, str) else indication
            text = _INDICATIONS.get(name) or _INDICATIONS.get(str(indication)) or str(indication)
            if "timeout" in text.lower() or "RequestTimedOut" in name:
                address = tuple(getattr(transport, "transport_address", ()))[:2]
                if engine._monitor_malformed.get(address, -1.0) >= sent_at:  # type: ignore[attr-defined]
                    raise SnmpError(MALFORMED_TEXT)  # it answered, but nothing it sent could be read
                if self.target.version == "3":  # agents drop messages with a wrong key without a word
                    text = "no SNMP response before the timeout (wrong SNMPv3 keys or protocols, host down or filtered)"
                raise SnmpTimeout(text)
            raise SnmpError(text)
        if status:
            position = int(index) - 1 if index else -1
            where = format_oid(oids[position]) if 0 <= position < len(oids) else "request"
            raise _StatusError(str(status.prettyPrint()), position, f"agent error {status.prettyPrint()} at {where}")
        return [(tuple(name), value) for name, value in varbinds]

    async def get(self, oids: list[str]) -> dict[str, SnmpValue]:
        """GET scalars; absent objects come back as MISSING instead of failing the whole request."""
        wanted = [parse_oid(oid) for oid in oids]
        result = {oid: MISSING for oid in oids}
        pending = list(zip(oids, wanted, strict=True))
        while pending:
            try:
                answers = await self._request(get_cmd, oids=[oid for _, oid in pending])
            except _StatusError as exc:
                if exc.status == "noSuchName" and 0 <= exc.position < len(pending):
                    pending.pop(exc.position)  # SNMPv1: drop the missing object and ask again
                    continue
                raise SnmpError(str(exc)) from None
            for (text, _), (_, value) in zip(pending, answers, strict=False):
                result[text] = decode(value)
            break
        return result

    async def walk(
        self,
        columns: list[str],
        max_rows: int = 10000,
        expected_rows: int | dict[str, int] | None = None,
        times: dict[str, dict[Oid, float]] | None = None,
    ) -> dict[str, dict[Oid, SnmpValue]]:
        """Walk table columns side by side with GETBULK (GETNEXT on v1); rows keyed by index suffix."""
        walk = ColumnWalk(columns, max_rows, expected_rows, timed=times or ())
        community = self.target.community.encode()
        while walk.active:
            sent = time.time()
            try:
                if self.target.version == "1":
                    answers = await self._request(next_cmd, oids=walk.asked())
                else:
                    repetitions = walk.repetitions(self.target.max_repetitions)
                    answers = await self._request(bulk_cmd, 0, repetitions, oids=walk.asked())
            except _StatusError as exc:
                if exc.status == "noSuchName":  # SNMPv1 end of MIB
                    break
                raise SnmpError(str(exc)) from None
            if not answers:
                break
            end = rfc1905.EndOfMibView
            walk.absorb(
                [(oid, END_OF_MIB if isinstance(value, end) else decode(value)) for oid, value in answers],
                self._answered_at(sent, community),
            )
        if times is not None:
            times.update(walk.read_times())
        return walk.result()

    def _answered_at(self, sent: float, community: bytes) -> float:
        """When the agent's answer came (taken as the datagram arrived, before pysnmp decoded it), so a busy
        process times a counter as exactly as an idle one; v3 answers: the request's midpoint."""
        if self._clock is not None:
            return self._clock()
        address = tuple(getattr(self._transport, "transport_address", ()))[:2]
        arrived = self._engine()._monitor_arrivals.get((address, community))  # type: ignore[attr-defined]
        now = time.time()
        return arrived if arrived is not None and sent <= arrived <= now else (sent + now) / 2


def _guard_receive(engine: SnmpEngine) -> None:
    """Drop malformed v1/v2c datagrams before pysnmp sees them, and never let a reply raise into the loop.

    pysnmp raises from its datagram callback on some garbage (pyasn1 TypeErrors), which asyncio logs as an
    unhandled exception, and it drops other malformed replies silently, so the request ends in a timeout
    that blames the community. The time of the last malformed datagram per agent address is kept, so
    such a timeout is reported as the malformed reply it was.
    """
    dispatcher = engine.message_dispatcher
    receive = dispatcher.receive_message
    malformed: dict[tuple, float] = {}
    arrivals: dict[tuple, float] = {}  # (agent address, community) -> when its last answer came, for counter times
    engine._monitor_malformed = malformed  # type: ignore[attr-defined]
    engine._monitor_arrivals = arrivals  # type: ignore[attr-defined]

    def receive_message(snmp_engine: Any, domain: Any, address: Any, message: bytes) -> Any:
        arrived = time.time()
        sender = tuple(address)[:2]
        try:
            raw = bytes(message)
            if message_version(raw) != 3:  # SNMPv3 has its own layout, left to pysnmp
                _, community, _, pos, end = response_header(raw)
                _, _, start, stop = response_body(raw, pos, end)
                decode_varbinds(raw, start, stop)
                remember(arrivals, (sender, community), arrived, limit=10_000)
            return receive(snmp_engine, domain, address, message)
        except Exception as exc:  # BerError, or whatever pysnmp raises on a reply it cannot parse
            remember(malformed, sender, time.monotonic(), limit=10_000)
            reason = str(exc) if isinstance(exc, BerError) else type(exc).__name__
            log.debug("dropped a malformed SNMP datagram from %s (%s)", sender[0], reason)
            return b""

    dispatcher.receive_message = receive_message


class _StatusError(Exception):
    def __init__(self, status: str, position: int, message: str):
        super().__init__(message)
        self.status = status
        self.position = position


def _auth_data(target: SnmpTarget) -> Any:
    if target.version in ("1", "2c"):
        return CommunityData(target.community, mpModel=0 if target.version == "1" else 1)
    if target.version != "3":
        raise SnmpError(f"unknown SNMP version {target.version!r}")
    kwargs: dict[str, Any] = {}
    if target.v3_auth_protocol:
        kwargs["authKey"] = target.v3_auth_key
        kwargs["authProtocol"] = AUTH_PROTOCOLS[target.v3_auth_protocol]
    if target.v3_priv_protocol:
        kwargs["privKey"] = target.v3_priv_key
        kwargs["privProtocol"] = PRIV_PROTOCOLS[target.v3_priv_protocol]
    return UsmUserData(target.v3_user, **kwargs)  # noqa: S509 (the security level is the user's choice)


def _resolver_reason(exc: BaseException) -> str:
    """The resolver's own words ("Name or service not known"), not pysnmp's wrapping of them."""
    text = str(exc).strip()
    found = re.search(r"\[Errno [-\d]+\] (.+?)(?: caused by|$)", text, re.M)
    if found:
        return found.group(1).strip()
    lines = text.splitlines()
    return lines[0][:200] if lines else type(exc).__name__
