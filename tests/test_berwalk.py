"""The fast engine's walk decoder (collectors/berwalk.py) follows ColumnWalk.absorb's rules, answer for answer."""

from __future__ import annotations

import pytest

from collectors.ber import decode_varbinds, encode_oid, encode_tlv
from collectors.berwalk import absorb_varbinds
from collectors.snmptypes import ColumnWalk, SnmpError

COLUMNS = ["1.3.6.1.2.1.31.1.1.1.6", "1.3.6.1.2.1.31.1.1.1.10"]
COUNTER64, END_OF_MIB_VIEW, NO_SUCH_OBJECT = 0x46, 0x82, 0x80


def oid_bytes(text: str) -> bytes:
    return encode_oid(tuple(int(p) for p in text.split(".")))


def varbind(oid: bytes, tag: int, value: bytes = b"") -> bytes:
    return encode_tlv(0x30, oid + encode_tlv(tag, value))


def counter(oid: str, n: int) -> bytes:
    return varbind(oid_bytes(oid), COUNTER64, n.to_bytes(8, "big").lstrip(b"\0") or b"\0")


def both(answers: list[bytes], max_rows: int = 100, walk_first: list[bytes] | None = None) -> tuple:
    """The same answers through absorb_varbinds and through decode_varbinds + ColumnWalk.absorb: tables and ends."""
    outcomes = []
    for fast in (True, False):
        walk = ColumnWalk(COLUMNS, max_rows, timed=COLUMNS[:1])
        try:
            for answer in [*(walk_first or []), *answers]:
                data = b"".join(answer)
                if fast:
                    absorb_varbinds(walk, data, 0, len(data), 7.0)
                else:
                    walk.absorb(decode_varbinds(data, 0, len(data)), 7.0)
            outcomes.append((walk.result(), walk.active, walk.read_times(), None))
        except SnmpError as exc:
            outcomes.append((None, None, None, str(exc)))
    assert outcomes[0] == outcomes[1]
    return outcomes[0]


def test_rows_then_the_end_of_both_columns():
    tables, active, times, error = both(
        [
            [counter(f"{COLUMNS[0]}.1", 10), counter(f"{COLUMNS[1]}.1", 20)],
            [counter(f"{COLUMNS[0]}.2", 11), varbind(oid_bytes("1.3.6.1.2.1.31.1.1.1.11.1"), COUNTER64, b"\1")],
            [varbind(oid_bytes("1.3.6.1.2.1.31.1.1.1.7.1"), COUNTER64, b"\1")],
        ]
    )
    assert error is None and active == []
    assert [v.value for v in tables[COLUMNS[0]].values()] == [10, 11]
    assert [v.value for v in tables[COLUMNS[1]].values()] == [20]
    assert times[COLUMNS[0]] == {(1,): 7.0, (2,): 7.0}


def test_an_oid_with_padded_sub_identifiers_is_still_in_its_column():
    padded = oid_bytes(f"{COLUMNS[0]}.3")[:-1] + b"\x80\x03"  # the index 3 encoded as 0x80 0x03
    padded = encode_tlv(0x06, padded[2:])
    tables, active, _, error = both([[varbind(padded, COUNTER64, b"\x05"), counter(f"{COLUMNS[1]}.3", 6)]])
    assert error is None and tables[COLUMNS[0]][(3,)].value == 5 and len(active) == 2


def test_end_of_mib_view_and_a_no_such_object_echo_end_a_column():
    tables, active, _, error = both(
        [[varbind(oid_bytes(f"{COLUMNS[0]}.1"), END_OF_MIB_VIEW), varbind(oid_bytes(COLUMNS[1]), NO_SUCH_OBJECT)]]
    )
    assert error is None and active == [] and tables == {COLUMNS[0]: {}, COLUMNS[1]: {}}


@pytest.mark.parametrize(
    "second",
    [
        [counter(f"{COLUMNS[0]}.2", 1), counter(f"{COLUMNS[1]}.2", 1)],  # the same rows again: a looping table
        [counter(f"{COLUMNS[0]}.1", 1), counter(f"{COLUMNS[1]}.3", 1)],  # one column went back
    ],
)
def test_oids_out_of_order_are_a_looping_table(second):
    first = [counter(f"{COLUMNS[0]}.2", 1), counter(f"{COLUMNS[1]}.2", 1)]
    *_, error = both([first, second])
    assert error is not None and "looping table" in error


def test_more_rows_than_allowed_stop_the_walk():
    rows = [[counter(f"{COLUMNS[0]}.{i}", i), counter(f"{COLUMNS[1]}.{i}", i)] for i in range(1, 5)]
    *_, error = both(rows, max_rows=3)
    assert error is not None and "more than 3 rows" in error
