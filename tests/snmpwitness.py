"""The attacker's host for tests: a UDP endpoint on loopback that records every datagram sent to it and relays
it to a real agent (snmpsim), so the sender sees a working device and goes on talking, as it would to a
man in the middle. What the datagrams carried is read with pysnmp's own message types: the community of a
v1/v2c message; the user, engine id and authentication digest of a v3 one (checked against a key with
pysnmp's HMAC, so a test can tell which key signed a request)."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from dataclasses import dataclass

from pyasn1.codec.ber import decoder
from pyasn1.type import univ
from pysnmp.proto import api
from pysnmp.proto.error import ProtocolError
from pysnmp.proto.mpmod.rfc3412 import SNMPv3Message
from pysnmp.proto.secmod.rfc3414 import localkey
from pysnmp.proto.secmod.rfc3414.auth import hmacmd5, hmacsha
from pysnmp.proto.secmod.rfc3414.service import UsmSecurityParameters

MARK = b"witness-mark"
AUTH = {
    "MD5": (hmacmd5.HmacMd5(), localkey.password_to_key_md5),
    "SHA": (hmacsha.HmacSha(), localkey.password_to_key_sha),
}


@dataclass(frozen=True)
class V3Seen:
    """What a v3 message showed of its sender: user, engine id and the 12-byte digest (empty: unauthenticated)."""

    user: bytes
    engine_id: bytes
    digest: bytes
    whole: bytes

    def signed_with(self, password: str, protocol: str = "MD5") -> bool:
        """True when the digest is HMAC(key localized from `password` for the engine id) over the message."""
        if not self.digest:
            return False
        auth, to_key = AUTH[protocol]
        key = to_key(univ.OctetString(password), univ.OctetString(self.engine_id))
        try:
            auth.authenticate_incoming_message(key, univ.OctetString(self.digest), self.whole)
        except ProtocolError:
            return False
        return True


class Witness:
    """A UDP socket on `host` (a free port) that records and relays datagrams to `upstream` (host, port)."""

    def __init__(self, upstream: tuple[str, int], host: str = "127.0.0.2"):
        self.upstream = upstream
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, 0))
        self.host, self.port = self.sock.getsockname()[:2]
        self.datagrams: list[bytes] = []
        self._marks = 0
        self._seen_marks = threading.Event()
        self._relays: dict[tuple, socket.socket] = {}
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.sock, selectors.EVENT_READ, None)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="snmp-witness", daemon=True)

    def __enter__(self) -> Witness:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for relay in self._relays.values():
            relay.close()
        self._selector.close()
        self.sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(timeout=0.1):
                if key.data is None:
                    self._from_sender()
                else:
                    self._from_agent(key.fileobj, key.data)

    def _from_sender(self) -> None:
        data, sender = self.sock.recvfrom(65535)
        if data == MARK:
            self._seen_marks.set()
            return
        self.datagrams.append(data)
        relay = self._relays.get(sender)
        if relay is None:
            relay = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            relay.connect(self.upstream)
            self._relays[sender] = relay
            self._selector.register(relay, selectors.EVENT_READ, sender)
        relay.send(data)

    def _from_agent(self, relay: socket.socket, sender: tuple) -> None:
        with contextlib.suppress(OSError):  # the agent's port refused (ICMP): the sender times out, as with a dead host
            self.sock.sendto(relay.recv(65535), sender)

    def settled(self) -> list[bytes]:
        """Every datagram received so far: a mark is sent after them and waited for (loopback keeps the order)."""
        self._seen_marks.clear()
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.sendto(MARK, (self.host, self.port))
            if not self._seen_marks.wait(timeout=30):
                raise AssertionError("the witness did not see its own mark")
        return list(self.datagrams)

    def communities(self) -> list[bytes]:
        """The community of every v1/v2c datagram received."""
        found = []
        for data in self.settled():
            version = int(api.decodeMessageVersion(data))
            if version in (api.SNMP_VERSION_1, api.SNMP_VERSION_2C):
                message, _ = decoder.decode(data, asn1Spec=api.PROTOCOL_MODULES[version].Message())
                found.append(bytes(message["community"]))
        return found

    def v3_messages(self) -> list[V3Seen]:
        """User, engine id and digest of every v3 datagram received."""
        found = []
        for data in self.settled():
            if int(api.decodeMessageVersion(data)) != 3:
                continue
            message, _ = decoder.decode(data, asn1Spec=SNMPv3Message())
            params, _ = decoder.decode(bytes(message["msgSecurityParameters"]), asn1Spec=UsmSecurityParameters())
            found.append(
                V3Seen(
                    bytes(params["msgUserName"]),
                    bytes(params["msgAuthoritativeEngineId"]),
                    bytes(params["msgAuthenticationParameters"]),
                    data,
                )
            )
        return found

    def carried(self, *secrets: str) -> list[str]:
        """Which of the secrets appear as bytes anywhere in a datagram received."""
        everything = b"\n".join(self.settled())
        return [secret for secret in secrets if secret.encode() in everything]
