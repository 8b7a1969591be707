"""The trap receiver's notification application on pysnmp's dispatcher (in place of pysnmp's NotificationReceiver).

pysnmp's receiver answers an inform before its callback sees it, so an inform the receiver then refuses (another
device's credential, a full queue) was acknowledged and lost. Here each trap or inform is handed over with what
pysnmp learnt of its security (model, name, level, the engine ID it was signed as, its boots and time), and an
inform is answered only when the receiver took it; a refused one is forgotten without an answer (the sender tries
again, or knows it was not delivered)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from pysnmp.entity.rfc3413 import ntfrcv
from pysnmp.proto import error, rfc3411
from pysnmp.proto.api import v2c
from pysnmp.proto.proxy import rfc2576


@dataclass
class Notification:
    """One trap or inform that passed pysnmp's checks (community or USM keys)."""

    address: str
    model: int  # message processing model: 0 SNMPv1, 1 SNMPv2c, 3 SNMPv3
    security_name: str  # the community's index in pysnmp's table, or the USM user
    level: int  # 1 noAuthNoPriv, 2 authNoPriv, 3 authPriv
    engine_id: str = ""  # v3: the authoritative engine ID (hex) it was signed as; "" when it is the receiver's own
    boots: int = 0
    engine_time: int = 0
    inform: bool = False
    varbinds: list[tuple[str, int | float | str]] = field(default_factory=list)  # SNMPv2 form, plain values


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


class Notifications:
    """Registered for traps and informs; `take` says whether the receiver took one (only then is an inform answered),
    `broken` hears of a PDU pysnmp accepted but cannot convert (never raised back into pysnmp)."""

    def __init__(self, engine, take: Callable[[Notification], bool], broken: Callable[[str, Exception], None]):
        self.engine, self.take, self.broken = engine, take, broken
        self.handled = False  # set when pysnmp handed a PDU over (else it refused the datagram: its counters say why)
        self._usm: dict = {}
        (self._own_engine_id,) = engine.get_mib_builder().import_symbols("__SNMP-FRAMEWORK-MIB", "snmpEngineID")
        engine.observer.register_observer(self._seen_usm, "rfc3414.processIncomingMsg")
        engine.message_dispatcher.register_context_engine_id(
            b"", ntfrcv.NotificationReceiver.SUPPORTED_PDU_TYPES, self.process_pdu
        )

    def begin(self) -> None:
        """Before each datagram: nothing of the last one carries over."""
        self.handled = False
        self._usm = {}

    def end(self) -> None:
        """After each datagram: what pysnmp's security models still keep for it is dropped. Some refusals leave the
        user's entry (its localized keys) behind, e.g. a noAuthNoPriv message whose PDU is encrypted: a leak per
        datagram. Nothing needs to outlive a datagram: the receiver sends no requests of its own."""
        for model in self.engine.security_models.values():
            cache = getattr(model, "_cache", None)
            if cache is not None and not cache.is_empty():
                model._cache = type(cache)()

    def _seen_usm(self, snmp_engine, execpoint, variables, ctx) -> None:
        engine_id = bytes(variables.get("securityEngineId", b""))
        own = bytes(self._own_engine_id.syntax)
        self._usm = {
            "engine_id": "" if engine_id == own else engine_id.hex(),
            "boots": int(variables.get("snmpEngineBoots", 0)),
            "engine_time": int(variables.get("snmpEngineTime", 0)),
        }

    def process_pdu(
        self, snmp_engine, model, security_model, security_name, level, context_engine_id, context_name,
        pdu_version, pdu, max_size, state_reference,
    ) -> None:  # fmt: skip
        """pysnmp's call for each accepted trap or inform (its NotificationReceiver's signature)."""
        self.handled = True
        inform = pdu.tagSet in rfc3411.CONFIRMED_CLASS_PDUS
        _, address = snmp_engine.message_dispatcher.get_transport_info(state_reference)
        try:
            varbinds = v2c.apiPDU.get_varbinds(rfc2576.v1_to_v2(pdu) if model == 0 else pdu)  # no community copied
            varbinds = [(str(oid), plain(value)) for oid, value in varbinds]
            notification = Notification(
                address[0], int(model), str(security_name), int(level), inform=inform, varbinds=varbinds,
                **(self._usm if model == 3 else {}),
            )  # fmt: skip
            taken = self.take(notification)
        except Exception as exc:  # e.g. a v1 generic-trap number RFC 3584 has no SNMPv2 name for
            self.broken(address[0], exc)
            taken = False
        if not inform:
            return
        if taken:
            self._answer(snmp_engine, model, security_model, security_name, level, context_engine_id, context_name,
                         pdu_version, pdu, max_size, state_reference)  # fmt: skip
        else:
            self._forget(snmp_engine, model, state_reference)

    @staticmethod
    def _answer(snmp_engine, model, security_model, security_name, level, context_engine_id, context_name,
                pdu_version, pdu, max_size, state_reference) -> None:  # fmt: skip
        """The inform's Response: its varbinds, noError (RFC 3416 4.2.7), as pysnmp's receiver sends it."""
        response = v2c.apiPDU.get_response(pdu)
        v2c.apiPDU.set_error_status(response, "noError")
        v2c.apiPDU.set_error_index(response, 0)
        v2c.apiPDU.set_varbinds(response, v2c.apiPDU.get_varbinds(pdu))
        try:
            snmp_engine.message_dispatcher.return_response_pdu(
                snmp_engine, model, security_model, security_name, level, context_engine_id, context_name,
                pdu_version, response, max_size, state_reference, {},
            )  # fmt: skip
        except error.StatusInformation:  # too big to answer, and the like: a silent drop, as pysnmp counts it
            (drops,) = snmp_engine.get_mib_builder().import_symbols("__SNMPv2-MIB", "snmpSilentDrops")
            drops.syntax += 1

    @staticmethod
    def _forget(snmp_engine, model, state_reference) -> None:
        """Release what pysnmp keeps for an inform's answer (the message and security state), since none is sent."""
        processing = snmp_engine.message_processing_subsystems.get(int(model))
        try:
            cached = processing._cache.pop_by_state_reference(state_reference)  # no public way to release it
        except (AttributeError, error.ProtocolError):
            return
        security = snmp_engine.security_models.get(cached.get("securityModel"))
        if security is not None and cached.get("securityStateReference") is not None:
            with contextlib.suppress(error.ProtocolError):
                security.release_state_information(cached["securityStateReference"])
