"""Hypothesis strategies for the receivers' fuzz tests: SNMP messages built from their grammar (odd OIDs, value
types and lengths, huge varbind lists, odd length encodings), byte mutations of real datagrams, syslog lines."""

from __future__ import annotations

from hypothesis import strategies as st

SYS_UPTIME = (1, 3, 6, 1, 2, 1, 1, 3, 0)
TRAP_OID = (1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0)


def length(n: int, odd: int = 0) -> bytes:
    """A BER length: the short or long form, or (odd) a long form with leading zeros or the indefinite form."""
    if odd == 1:
        return bytes((0x84,)) + n.to_bytes(4, "big")
    if odd == 2:
        return b"\x80"  # indefinite: SNMP forbids it
    if n < 0x80:
        return bytes((n,))
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(body),)) + body


def tlv(tag: int, body: bytes, odd: int = 0) -> bytes:
    return bytes((tag,)) + length(len(body), odd) + body + (b"\x00\x00" if odd == 2 else b"")


def oid_body(parts: tuple[int, ...]) -> bytes:
    first = parts[0] * 40 + parts[1] if len(parts) > 1 else parts[0]
    out = bytearray()
    for n in (first, *parts[2:]):
        chunk = [n & 0x7F]
        n >>= 7
        while n:
            chunk.append(0x80 | (n & 0x7F))
            n >>= 7
        out += bytes(reversed(chunk))
    return bytes(out)


def integer(n: int, tag: int = 0x02) -> bytes:
    return tlv(tag, n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True))


subids = st.one_of(st.integers(0, 127), st.integers(0, 2**32), st.integers(0, 2**70))
oids = st.one_of(
    st.sampled_from([(1, 3, 6, 1, 2, 1, 2, 2, 1, 8, 5), (1, 3, 6, 1, 4, 1, 674, 10895, 5000, 1, 1, 1, 0), (1, 3)]),
    st.tuples(st.integers(0, 2), st.integers(0, 39)).flatmap(
        lambda head: st.lists(subids, max_size=40).map(lambda tail: (*head, *tail))
    ),
    st.lists(st.integers(0, 127), min_size=130, max_size=300).map(lambda tail: (1, 3, *tail)),  # past SMI's 128
)
values = st.one_of(
    st.integers(-(2**70), 2**70).map(integer),
    st.binary(max_size=300).map(lambda b: tlv(0x04, b)),
    st.text(max_size=100).map(lambda t: tlv(0x04, t.encode())),
    st.just(b"\x05\x00"),
    oids.map(lambda o: tlv(0x06, oid_body(o))),
    st.binary(min_size=0, max_size=8).map(lambda b: tlv(0x40, b)),  # IpAddress, of any length
    st.tuples(st.sampled_from([0x41, 0x42, 0x43, 0x46]), st.integers(-(2**65), 2**65)).map(
        lambda t: integer(t[1], t[0])
    ),
    st.binary(max_size=50).map(lambda b: tlv(0x44, b)),  # Opaque
    st.sampled_from([b"\x80\x00", b"\x81\x00", b"\x82\x00"]),  # noSuchObject, noSuchInstance, endOfMibView
    st.tuples(st.integers(0, 255), st.binary(max_size=20)).map(lambda t: tlv(t[0], t[1])),  # any tag
)
valid_values = st.one_of(
    st.integers(-(2**31), 2**31 - 1).map(integer),
    st.binary(max_size=400).map(lambda b: tlv(0x04, b)),
    st.text(max_size=300).map(lambda t: tlv(0x04, t.encode())),
    st.just(b"\x05\x00"),
    oids.map(lambda o: tlv(0x06, oid_body(o))),
    st.binary(min_size=4, max_size=4).map(lambda b: tlv(0x40, b)),
    st.tuples(st.sampled_from([0x41, 0x42, 0x43]), st.integers(0, 2**32 - 1)).map(lambda t: integer(t[1], t[0])),
    st.integers(0, 2**64 - 1).map(lambda n: integer(n, 0x46)),
    st.binary(max_size=50).map(lambda b: tlv(0x44, b)),
)
varbinds = st.tuples(oids, values, st.integers(0, 20)).map(
    lambda t: tlv(0x30, tlv(0x06, oid_body(t[0])) + t[1], odd=t[2] if t[2] < 3 else 0)
)


@st.composite
def valid_traps(draw) -> bytes:
    """A well-formed v2c trap or inform with the device's community: odd OIDs and values of every SNMPv2 type."""
    listed = [tlv(0x30, tlv(0x06, oid_body(draw(oids))) + draw(valid_values)) for _ in range(draw(st.integers(0, 12)))]
    if draw(st.integers(0, 5)) == 0:  # a huge list
        listed += [tlv(0x30, tlv(0x06, b"\x2b") + integer(1))] * draw(st.integers(60, 900))
    head = [tlv(0x30, tlv(0x06, oid_body(SYS_UPTIME)) + integer(draw(st.integers(0, 2**32 - 1)), 0x43)),
            tlv(0x30, tlv(0x06, oid_body(TRAP_OID)) + tlv(0x06, oid_body(draw(oids))))]  # fmt: skip
    tag = draw(st.sampled_from([0xA7, 0xA7, 0xA6]))
    pdu = tlv(
        tag, integer(draw(st.integers(0, 2**31 - 1))) + integer(0) + integer(0) + tlv(0x30, b"".join(head + listed))
    )
    return tlv(0x30, integer(1) + tlv(0x04, b"traps") + pdu)


@st.composite
def community_messages(draw) -> bytes:
    """A v1 or v2c message from the grammar: mostly well-formed traps and informs with the device's community."""
    version = draw(st.sampled_from([0, 1, 1, 1, 2, -1]))
    community = draw(st.sampled_from([b"traps", b"traps", b"traps", b"wrong", b""]) | st.binary(max_size=40))
    listed = draw(st.lists(varbinds, max_size=12))
    if draw(st.integers(0, 9)) == 0:  # a huge list: the same small varbind, hundreds of times
        listed += [tlv(0x30, tlv(0x06, b"\x2b") + integer(1))] * draw(st.integers(60, 900))
    tag = draw(st.sampled_from([0xA7, 0xA7, 0xA6, 0xA4, 0xA0, 0xA2, 0xA8]) | st.integers(0, 255))
    if tag == 0xA4:  # v1 Trap-PDU: enterprise, agent-addr, generic (RFC 3584 knows 0-6), specific, time-stamp
        head = tlv(0x06, oid_body(draw(oids))) + tlv(0x40, draw(st.binary(min_size=4, max_size=4) | st.binary()))
        head += integer(draw(st.integers(-2, 9))) + integer(draw(st.integers(-1, 2**33))) + integer(7, 0x43)
    else:
        head = integer(draw(st.integers(-(2**31), 2**31))) + integer(0) + integer(0)
        if draw(st.booleans()):
            trap = tlv(0x06, oid_body(draw(oids)))
            listed = [tlv(0x30, tlv(0x06, oid_body(SYS_UPTIME)) + integer(5, 0x43)),
                      tlv(0x30, tlv(0x06, oid_body(TRAP_OID)) + trap), *listed]  # fmt: skip
    odd = draw(st.sampled_from([0, 0, 0, 0, 1, 2]))
    pdu = tlv(tag, head + tlv(0x30, b"".join(listed), odd=odd))
    return tlv(0x30, integer(version) + tlv(0x04, community) + pdu)


@st.composite
def mutations(draw, seeds: list[bytes]) -> bytes:
    """A real datagram with bytes changed, cut, inserted or repeated."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["set", "set", "cut", "insert", "repeat"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "set" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=64))
        else:
            data[at:at] = data[at : at + draw(st.integers(1, 200))] * draw(st.integers(1, 40))
    return bytes(data[:9000])


PRIS = st.one_of(
    st.integers(0, 191).map(lambda n: f"<{n}>".encode()),
    st.sampled_from([b"<192>", b"<999>", b"<-1>", b"<0001>", b"<>", b"", b"<1", b"<18446744073709551616>"]),
)
words = st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=40).map(str.encode)
tokens = st.text(st.characters(codec="utf-8", exclude_characters=" \n"), min_size=1, max_size=20).map(str.encode)


@st.composite
def syslog_lines(draw) -> bytes:
    """A syslog message as devices write it (RFC 5424, RFC 3164 and PowerConnect's), or not at all."""
    pri = draw(PRIS)
    shape = draw(st.sampled_from(["5424", "3164", "pc", "garbage", "huge"]))
    if shape == "5424":
        parts = [draw(st.sampled_from([b"1", b"2", b"999"])), draw(st.sampled_from([b"-", b"2026-01-02T03:04:05Z"]))]
        parts += [draw(tokens | st.just(b"-")) for _ in range(4)]
        sd = draw(st.sampled_from([b"-", b'[x@1 a="b"]', b'[x@1 a="\\"]"][y]', b"[", b'[a b="']))
        body = b" ".join(parts) + b" " + sd + b" " + draw(st.sampled_from([b"", b"\xef\xbb\xbf"])) + draw(words)
    elif shape == "3164":
        stamp = draw(st.sampled_from([b"Oct  1 12:00:01 ", b"JAN 26 16:14:45 ", b"2026-01-02T03:04:05Z ", b""]))
        body = stamp + draw(words) + b" " + draw(words) + b"[" + draw(words) + b"]: " + draw(words)
    elif shape == "pc":
        body = b" JAN 26 16:14:45 10.1.1.1-1 TRAPMGR[230001]: traputil.c(611) 3 %% " + draw(words)
    elif shape == "garbage":
        body = draw(st.binary(max_size=300))
    else:
        body = draw(st.sampled_from([b"x", b"\xff", b"\x00", "é".encode()])) * draw(st.integers(2000, 9000))
    return pri + body


@st.composite
def usm_messages(draw, user: bytes, engine_id: bytes) -> bytes:
    """An SNMPv3 message from the grammar: flags, security model, engine ID, boots and time, user and parameters
    (often the device's user and engine ID with no key: the weak traps the receiver must refuse)."""
    flags = draw(st.sampled_from([0, 1, 3, 4, 2, 7]) | st.integers(0, 255))
    header = tlv(0x30, integer(draw(st.integers(0, 2**31))) + integer(draw(st.sampled_from([484, 65507, 0, -5])))
                 + tlv(0x04, bytes((flags,))) + integer(draw(st.sampled_from([3, 3, 3, 1, 99]))))  # fmt: skip
    usm = tlv(0x30, tlv(0x04, draw(st.sampled_from([engine_id, engine_id, b"", b"\x80\x00"]) | st.binary(max_size=40)))
              + integer(draw(st.integers(-1, 2**31))) + integer(draw(st.integers(-1, 2**31)))
              + tlv(0x04, draw(st.sampled_from([user, user, b"nobody", b""]) | st.binary(max_size=40)))
              + tlv(0x04, draw(st.sampled_from([b"", b"\x00" * 12]) | st.binary(max_size=48)))
              + tlv(0x04, draw(st.sampled_from([b"", b"\x00" * 8]) | st.binary(max_size=16))))  # fmt: skip
    trap = tlv(0xA7, integer(1) + integer(0) + integer(0) + tlv(0x30, b"".join(draw(st.lists(varbinds, max_size=6)))))
    scoped = tlv(0x30, tlv(0x04, engine_id) + tlv(0x04, b"") + trap)
    data = draw(st.sampled_from([scoped, scoped, tlv(0x04, draw(st.binary(max_size=200)))]))
    return tlv(0x30, integer(3) + header + tlv(0x04, usm) + data)
