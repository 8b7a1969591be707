"""A fake SNMP agent on loopback for tests: a UDP socket that answers with crafted bytes.

Real agents (snmpsim) cannot be made to misbehave on purpose, so misbehaviour is made here, at the
outermost edge: `FakeAgent(handler)` calls `handler(request, raw)` for every datagram and sends back
whatever datagrams it returns. `Mib` is a handler that answers GET, GETNEXT and GETBULK from a dict,
so a test can serve a small device and spoil only the answers it wants to.
"""

from __future__ import annotations

import bisect
import socket
import threading
from collections.abc import Callable
from typing import Any

from pyasn1.codec.ber import decoder, encoder
from pysnmp.proto import api

Oid = tuple[int, ...]
Handler = Callable[[Any, bytes], list[bytes]]


class FakeAgent:
    """A UDP socket on loopback; `handler(request, raw)` returns the datagrams to send back."""

    def __init__(self, handler: Handler):
        self.handler = handler
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 * 1024 * 1024)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.received: list[Any] = []
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop:
            try:
                raw, addr = self.sock.recvfrom(65535)
            except (TimeoutError, OSError):
                continue
            version = int(api.decodeMessageVersion(raw))
            module = api.PROTOCOL_MODULES[version]
            message, _ = decoder.decode(raw, asn1Spec=module.Message())
            self.received.append(message)
            for datagram in self.handler(message, raw):
                self.sock.sendto(datagram, addr)

    def close(self) -> None:
        self._stop = True
        self._thread.join(2)
        self.sock.close()


def module_of(request: Any) -> Any:
    return api.PROTOCOL_MODULES[int(request.getComponentByPosition(0))]


def reply(request: Any, varbinds: list, status: int = 0, index: int = 0, request_id: int | None = None) -> bytes:
    """A Response-PDU built with pysnmp's own encoder (independent of collectors/ber.py)."""
    module = module_of(request)
    asked = module.apiMessage.get_pdu(request)
    pdu = module.apiPDU.get_response(asked)
    if request_id is not None:
        module.apiPDU.set_request_id(pdu, request_id)
    module.apiPDU.set_error_status(pdu, status)
    module.apiPDU.set_error_index(pdu, index)
    module.apiPDU.set_varbinds(pdu, varbinds)
    message = module.apiMessage.get_response(request)
    module.apiMessage.set_pdu(message, pdu)
    return encoder.encode(message)


def asked_oids(request: Any) -> list[Oid]:
    module = module_of(request)
    return [tuple(oid) for oid, _ in module.apiPDU.get_varbinds(module.apiMessage.get_pdu(request))]


def pdu_kind(request: Any) -> str:
    """get-request, get-next-request or get-bulk-request."""
    return request.getComponentByPosition(2).getName()


def with_raw_value(message: bytes, placeholder: bytes, tag: int, body: bytes) -> bytes:
    """Swap an OctetString placeholder (same length as body) for a raw TLV pysnmp would refuse to encode."""
    assert len(placeholder) == len(body) < 128
    at = message.index(bytes((0x04, len(placeholder))) + placeholder)
    return message[:at] + bytes((tag, len(body))) + body + message[at + 2 + len(body) :]


class Mib:
    """A handler serving GET, GETNEXT and GETBULK from {oid: pysnmp value}, as a well-behaved agent would."""

    def __init__(self, objects: dict[Oid, Any]):
        self.objects = dict(objects)
        self.order = sorted(self.objects)

    def after(self, oid: Oid) -> Oid | None:
        at = bisect.bisect_right(self.order, oid)
        return self.order[at] if at < len(self.order) else None

    def answer(self, request: Any) -> tuple[list, int, int]:
        """(varbinds, error status, error index) for a request."""
        v1 = int(request.getComponentByPosition(0)) == 0
        kind, oids = pdu_kind(request), asked_oids(request)
        if kind == "get-request":
            missing = [i for i, oid in enumerate(oids) if oid not in self.objects]
            if v1 and missing:
                return [(oid, api.v1.Null()) for oid in oids], 2, missing[0] + 1
            return [(oid, self.objects.get(oid, api.v2c.NoSuchInstance())) for oid in oids], 0, 0
        repetitions = 1
        if kind == "get-bulk-request":
            repetitions = int(api.v2c.apiBulkPDU.get_max_repetitions(module_of(request).apiMessage.get_pdu(request)))
        varbinds: list = []
        current = list(oids)
        for _ in range(max(1, repetitions)):
            for i, oid in enumerate(current):
                nxt = self.after(oid)
                if nxt is None:
                    if v1:
                        return [(o, api.v1.Null()) for o in oids], 2, i + 1
                    varbinds.append((oid, api.v2c.EndOfMibView()))
                else:
                    varbinds.append((nxt, self.objects[nxt]))
                    current[i] = nxt
        return varbinds, 0, 0

    def __call__(self, request: Any, raw: bytes) -> list[bytes]:
        varbinds, status, index = self.answer(request)
        return [reply(request, varbinds, status, index)]
