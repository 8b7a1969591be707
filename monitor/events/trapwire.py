"""A trap datagram read before pysnmp decodes it (collectors/ber.py's reader, definite lengths only, as SNMP
requires): the version, a v1/v2c message's community, and its varbind list cut to a bound.

pysnmp decodes every varbind of a message before it checks the community (about 50 µs each: 45 ms for an 8 kB
message of 1,000, from anyone who can reach the port). Here an unknown community is refused unread, and a v1/v2c
message carrying more than the bound is cut to its first ones (re-encoded; no signature covers it) so pysnmp never
decodes the rest. SNMPv3 messages pass as they are: their PDU is signed or encrypted."""

from __future__ import annotations

from dataclasses import dataclass

from collectors.ber import BerError, encode_tlv, tlv_bounds

SEQUENCE, INTEGER, OCTET_STRING, V1_TRAP = 0x30, 0x02, 0x04, 0xA4


@dataclass(frozen=True)
class Wire:
    """What the receiver hands pysnmp, and what it learnt reading it."""

    message: bytes
    version: int  # 0 SNMPv1, 1 SNMPv2c, 3 SNMPv3 (another number: pysnmp counts it a bad version)
    community: bytes | None = None  # v1/v2c
    dropped: int = 0  # varbinds cut off the end


def read(datagram: bytes, keep: int) -> Wire:
    """The message as pysnmp should see it; BerError for what is not one well-formed SNMP message."""
    tag, start, end = tlv_bounds(datagram, 0, len(datagram))
    if tag != SEQUENCE:
        raise BerError("not a SEQUENCE")
    tag, low, pos = tlv_bounds(datagram, start, end)
    if tag != INTEGER or not 0 < pos - low <= 4:
        raise BerError("no version")
    version = int.from_bytes(datagram[low:pos], "big", signed=True)
    if version not in (0, 1):
        return Wire(datagram, version)
    tag, low, head_end = tlv_bounds(datagram, pos, end)
    if tag != OCTET_STRING:
        raise BerError("no community")
    community = datagram[low:head_end]
    pdu_tag, pdu_start, pdu_end = tlv_bounds(datagram, head_end, end)
    pos = pdu_start
    for _ in range(5 if pdu_tag == V1_TRAP else 3):  # enterprise, agent, generic, specific, time; or id, status, index
        pos = tlv_bounds(datagram, pos, pdu_end)[2]
    tag, list_start, list_end = tlv_bounds(datagram, pos, pdu_end)
    if tag != SEQUENCE:
        raise BerError("no varbind list")
    count, at, cut_at = 0, list_start, list_end
    while at < list_end:
        tag, _, at = tlv_bounds(datagram, at, list_end)
        if tag != SEQUENCE:
            raise BerError("a varbind is not a SEQUENCE")
        count += 1
        if count == keep:
            cut_at = at
    if count <= keep:
        return Wire(datagram[:end], version, community)
    varbinds = encode_tlv(SEQUENCE, datagram[list_start:cut_at])
    pdu = encode_tlv(pdu_tag, datagram[pdu_start:pos] + varbinds)
    return Wire(encode_tlv(SEQUENCE, datagram[start:head_end] + pdu), version, community, count - keep)
