"""Hand-written BER for SNMP v1/v2c: encode GET/GETNEXT/GETBULK requests, decode responses to SnmpValue."""

from __future__ import annotations

from functools import partial
from typing import TypeVar

from collectors.snmptypes import END_OF_MIB, MISSING, Oid, SnmpValue

K, V = TypeVar("K"), TypeVar("V")
GET, GETNEXT, RESPONSE, GETBULK = 0xA0, 0xA1, 0xA2, 0xA5
ERROR_NAMES = (
    "noError",
    "tooBig",
    "noSuchName",
    "badValue",
    "readOnly",
    "genErr",
    "noAccess",
    "wrongType",
    "wrongLength",
    "wrongEncoding",
    "wrongValue",
    "noCreation",
    "inconsistentValue",
    "resourceUnavailable",
    "commitFailed",
    "undoFailed",
    "authorizationError",
    "notWritable",
    "inconsistentName",
)
_UNSIGNED = {0x41: "counter32", 0x42: "gauge", 0x43: "timeticks", 0x46: "counter64"}
_UNSIGNED_MAX = {0x41: 2**32 - 1, 0x42: 2**32 - 1, 0x43: 2**32 - 1, 0x46: 2**64 - 1}
_oid_cache: dict[Oid, bytes] = {}


class BerError(ValueError):
    """A packet that is not a well-formed SNMP message."""


def _length(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes((0x80 | len(body),)) + body


def encode_tlv(tag: int, body: bytes) -> bytes:
    return bytes((tag,)) + _length(len(body)) + body


def _integer(n: int) -> bytes:
    return encode_tlv(0x02, n.to_bytes(max(1, (n.bit_length() + 8) // 8), "big", signed=True))


def encode_oid(oid: Oid) -> bytes:
    """An OID as a TLV (cached: pollers ask for the same columns over and over)."""
    cached = _oid_cache.get(oid)
    if cached is not None:
        return cached
    if len(oid) < 2 or oid[0] > 2 or (oid[0] < 2 and oid[1] >= 40) or min(oid) < 0:
        raise BerError(f"cannot encode OID {oid!r}")
    body = bytearray()
    for n in (oid[0] * 40 + oid[1], *oid[2:]):
        chunk = [n & 0x7F]
        n >>= 7
        while n:
            chunk.append(0x80 | (n & 0x7F))
            n >>= 7
        body += bytes(reversed(chunk))
    encoded = encode_tlv(0x06, bytes(body))
    if len(_oid_cache) < 100_000:
        _oid_cache[oid] = encoded
    return encoded


def encode_request(version: int, community: bytes, pdu: int, request_id: int, a: int, b: int, oids: list[Oid]) -> bytes:
    """A whole message; a, b are error-status/index (0, 0) or non-repeaters/max-repetitions for GETBULK."""
    varbinds = b"".join(encode_tlv(0x30, encode_oid(oid) + b"\x05\x00") for oid in oids)
    body = _integer(request_id) + _integer(a) + _integer(b) + encode_tlv(0x30, varbinds)
    return encode_tlv(0x30, _integer(version) + encode_tlv(0x04, community) + encode_tlv(pdu, body))


def tlv_bounds(data: bytes, pos: int, end: int) -> tuple[int, int, int]:
    """(tag, start of contents, end of contents) of the TLV at pos, checked against end."""
    if pos + 2 > end:
        raise BerError("truncated")
    tag = data[pos]
    n = data[pos + 1]
    pos += 2
    if n & 0x80:
        size = n & 0x7F
        if size == 0 or size > 4 or pos + size > end:
            raise BerError("bad length")
        n = int.from_bytes(data[pos : pos + size], "big")
        pos += size
    if pos + n > end:
        raise BerError("truncated")
    return tag, pos, pos + n


def decode_oid(raw: bytes) -> Oid:
    """OID contents to a tuple of ints."""
    if not raw:
        raise BerError("empty OID")
    if raw[-1] & 0x80:
        raise BerError("truncated OID")
    parts = subidentifiers(raw)
    first = parts[0]
    head = (first // 40, first % 40) if first < 80 else (2, first - 80)
    return head + parts[1:]


def subidentifiers(raw: bytes) -> Oid:
    """Base-128 sub-identifiers as encoded (the first two arcs of a whole OID still combined in the first)."""
    if not raw or max(raw) < 0x80:  # every sub-identifier below 128: the common case
        return tuple(raw)
    parts: list[int] = []
    n = 0
    for byte in raw:
        n = (n << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(n)
            n = 0
    return tuple(parts)


def _value(tag: int, raw: bytes) -> SnmpValue:
    kind = _UNSIGNED.get(tag)
    if kind is not None:
        return SnmpValue(kind, _unsigned(tag, raw))
    if tag == 0x04 or tag == 0x44:
        return SnmpValue("octets", raw)
    if tag == 0x02:
        number = int.from_bytes(raw, "big", signed=True)
        if not -(2**31) <= number < 2**31:
            raise BerError("INTEGER out of the Integer32 range")
        return SnmpValue("int", number)
    if tag == 0x82:
        return END_OF_MIB
    if tag == 0x06:
        return SnmpValue("oid", ".".join(map(str, decode_oid(raw))))
    if tag == 0x40 and len(raw) == 4:
        return SnmpValue("ip", ".".join(map(str, raw)))
    return MISSING  # NULL, noSuchObject, noSuchInstance and anything unknown


def _unsigned(tag: int, raw: bytes) -> int:
    """An unsigned value (read as unsigned even without its leading zero byte, as net-snmp does), range-checked."""
    number = int.from_bytes(raw, "big")
    if number > _UNSIGNED_MAX[tag]:
        raise BerError(f"{_UNSIGNED[tag]} value out of range")
    return number


def message_version(data: bytes) -> int:
    """The version field of any SNMP message (0: v1, 1: v2c, 3: v3); raises BerError when malformed."""
    tag, pos, end = tlv_bounds(data, 0, len(data))
    if tag != 0x30:
        raise BerError("not a SEQUENCE")
    tag, start, stop = tlv_bounds(data, pos, end)
    if tag != 0x02 or not 0 < stop - start <= 4:
        raise BerError("bad version")
    return int.from_bytes(data[start:stop], "big", signed=True)


def response_header(data: bytes) -> tuple[int, bytes, int, int, int]:
    """(version, community, request id, where the error status starts, where the PDU ends) of a response, read
    without decoding the varbinds (raises BerError)."""
    tag, pos, end = tlv_bounds(data, 0, len(data))
    if tag != 0x30:
        raise BerError("not a SEQUENCE")
    tag, start, pos = tlv_bounds(data, pos, end)
    if tag != 0x02:
        raise BerError("bad version")
    version = int.from_bytes(data[start:pos], "big", signed=True)
    tag, start, pos = tlv_bounds(data, pos, end)
    if tag != 0x04:
        raise BerError("bad community")
    community = data[start:pos]
    tag, pos, end = tlv_bounds(data, pos, end)
    if tag != RESPONSE:
        raise BerError("not a Response-PDU")
    tag, start, stop = tlv_bounds(data, pos, end)
    if tag != 0x02:
        raise BerError("bad request id")
    return version, community, int.from_bytes(data[start:stop], "big", signed=True), stop, end


def response_body(data: bytes, pos: int, end: int) -> tuple[int, int, int, int]:
    """(error status, error index, start and end of the varbind list) of a Response-PDU, from after its request id."""
    numbers = []
    for _ in range(2):
        tag, start, pos = tlv_bounds(data, pos, end)
        if tag != 0x02:
            raise BerError("bad PDU header")
        numbers.append(int.from_bytes(data[start:pos], "big", signed=True))
    tag, start, stop = tlv_bounds(data, pos, end)
    if tag != 0x30:
        raise BerError("bad varbind list")
    return numbers[0], numbers[1], start, stop


_oids: dict[bytes, Oid] = {}


def remember(cache: dict[K, V], key: K, value: V, limit: int = 50_000) -> V:
    """Keep a value for the next poll's identical bytes (or key); a map past `limit` starts over, so it stays small."""
    if len(cache) > limit:
        cache.clear()
    cache[key] = value
    return value


_values: dict[tuple[int, bytes], SnmpValue] = {}
_new_value = partial(tuple.__new__, SnmpValue)  # SnmpValue((kind, value)) without NamedTuple's keyword __new__
_COUNTERS = {0x41: "counter32", 0x46: "counter64"}


def decode_varbinds(data: bytes, pos: int, end: int) -> list[tuple[Oid, SnmpValue]]:
    """A varbind list as (OID, value) pairs (GET answers; walks decode into their tables: collectors.berwalk)."""
    out = []
    while pos < end:
        tag, start, stop = tlv_bounds(data, pos, end)
        otag, ostart, ostop = tlv_bounds(data, start, stop)
        vtag, vstart, vstop = tlv_bounds(data, ostop, stop)
        if tag != 0x30 or otag != 0x06 or vstop != stop:
            raise BerError("bad varbind")
        raw_oid = data[ostart:ostop]
        oid = _oids.get(raw_oid) or remember(_oids, raw_oid, decode_oid(raw_oid))
        out.append((oid, value_of(vtag, data[vstart:vstop])))
        pos = stop
    return out


def value_of(tag: int, raw: bytes) -> SnmpValue:
    """A value from its tag and contents: counters built directly, every other value cached across polls."""
    kind = _COUNTERS.get(tag)
    if kind is not None:
        number = int.from_bytes(raw, "big")
        if number > _UNSIGNED_MAX[tag]:
            raise BerError(f"{kind} value out of range")
        return _new_value((kind, number))
    key = (tag, raw)
    value = _values.get(key)
    return value if value is not None else remember(_values, key, _value(tag, raw))
