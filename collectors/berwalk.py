"""Decode a GETBULK or GETNEXT answer straight into a table walk: the poll path's hottest loop.

The rules are ColumnWalk.absorb's (a column ends at endOfMibView, outside its subtree, or at a noSuchObject
echo of the asked OID; OIDs out of order are a looping table; a table has at most max_rows rows), applied
to the BER bytes without building an (OID, value) pair per varbind first: a varbind is in its column when its
encoded OID starts with the column's encoded OID (else, once per column or for an agent that pads sub-identifiers,
its decoded OID tells), and its row index is the rest of the encoded OID.
"""

from __future__ import annotations

from collectors.ber import BerError, decode_oid, encode_oid, remember, subidentifiers, tlv_bounds, value_of
from collectors.snmptypes import ColumnWalk, Oid

END_OF_MIB_VIEW = 0x82
_prefixes: dict[Oid, bytes] = {}


def _prefix(root: Oid) -> bytes:
    """The contents of a column's encoded OID: every OID in its subtree is encoded starting with these bytes."""
    found = _prefixes.get(root)
    if found is None:
        tlv = encode_oid(root)
        found = tlv[2:] if tlv[1] < 0x80 else tlv[2 + (tlv[1] & 0x7F) :]
        if len(_prefixes) < 10_000:
            _prefixes[root] = found
    return found


_indexes: dict[bytes, Oid] = {}


def _index(raw: bytes) -> Oid:
    """A row index from the encoded sub-identifiers after the column's OID (cached: rows repeat every poll)."""
    found = _indexes.get(raw)
    return found if found is not None else remember(_indexes, raw, subidentifiers(raw))


def absorb_varbinds(walk: ColumnWalk, data: bytes, pos: int, end: int, at: float | None) -> int:
    """Put the varbinds of data[pos:end] into the walk's tables (in request order, row after row); returns how
    many there were (0: the agent had nothing more). Raises BerError on malformed BER, SnmpError on a looping
    or overlong table."""
    active = walk.active
    width = len(active)
    if not width or pos >= end:
        return 0
    prefixes = [_prefix(walk.roots[column]) for column in active]
    last, tables, times, max_rows = walk.last, walk.tables, walk.times, walk.max_rows
    done = [False] * width
    indexes = _indexes
    count = 0
    while pos < end:
        size, olen = data[pos + 1], data[pos + 3]
        if data[pos] != 0x30 or data[pos + 2] != 0x06 or size & 0x80 or olen & 0x80:
            tag, start, stop = tlv_bounds(data, pos, end)  # long forms: the general path
            otag, ostart, ostop = tlv_bounds(data, start, stop)
            vtag, vstart, vstop = tlv_bounds(data, ostop, stop)
            if tag != 0x30 or otag != 0x06 or vstop != stop:
                raise BerError("bad varbind")
        else:
            stop = pos + 2 + size
            ostart, ostop = pos + 4, pos + 4 + olen
            vtag, vlen = data[ostop], data[ostop + 1]
            vstart = ostop + 2
            vstop = vstart + vlen
            if vlen & 0x80 or vstop != stop or stop > end:
                tag, start, stop = tlv_bounds(data, pos, end)
                vtag, vstart, vstop = tlv_bounds(data, ostop, stop)
                if vstop != stop:
                    raise BerError("bad varbind")
        if ostop <= ostart or data[ostop - 1] & 0x80:
            raise BerError("empty or truncated OID")
        value = value_of(vtag, data[vstart:vstop])  # every value is checked, also past a column's end
        slot = count % width
        count += 1
        pos = stop
        if done[slot]:
            continue
        if vtag == END_OF_MIB_VIEW:
            done[slot] = True
            continue
        column = active[slot]
        prefix = prefixes[slot]
        if data.startswith(prefix, ostart, ostop):
            raw_index = data[ostart + len(prefix) : ostop]
            index = indexes.get(raw_index) or _index(raw_index)
        else:  # past the column, or an OID in it encoded with padded sub-identifiers: decode it to tell
            oid, root = decode_oid(data[ostart:ostop]), walk.roots[column]
            if oid[: len(root)] != root:
                done[slot] = True
                continue
            index = oid[len(root) :]
        if index <= last[column]:
            if value.kind == "missing" and index == last[column]:  # noSuchObject/noSuchInstance: column ended
                done[slot] = True
                continue
            raise walk.looping(column)
        last[column] = index
        table = tables[column]
        table[index] = value
        if at is not None:
            timed = times[column]
            if timed is not None:
                timed[index] = at
        if len(table) > max_rows:
            raise walk.too_long(column)
    walk.active = [column for slot, column in enumerate(active) if not done[slot]]
    return count
