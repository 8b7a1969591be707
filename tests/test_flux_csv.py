"""Flux's CSV as the pages read it (monitor.timeseries.client.parse): a block of windows without times, read by
slicing tables of equal length, must give every table its own values whatever their lengths and values."""

from __future__ import annotations

import math

from monitor.timeseries.client import parse

HEADER = ",result,table,_value,_field,_measurement,device,port"


def block(*tables: tuple[str, int, list[str], str]) -> str:
    """A block of (result, table, values, port) tables."""
    lines = [HEADER]
    for result, number, values, port in tables:
        lines += [f",{result},{number},{value},in_bps_sum,interface,7,{port}" for value in values]
    return "\r\n".join(lines) + "\r\n"


def read(text: str) -> list[tuple[str, str, list]]:
    return [(t.result, t.group["port"], [v for _, v in t.rows]) for t in parse(text)]


def test_tables_of_one_length_and_of_others_each_get_their_own_values():
    text = block(
        ("wsum", 0, ["1", "2.5", "3"], "1/g1"),
        ("wsum", 1, ["4", "", "6e+06"], "1/g2"),
        ("wsum", 2, ["7"], "1/g3"),  # shorter than the one before
        ("wsum", 3, ["8", "9", "10", "11"], "1/g4"),  # longer
        ("wsum", 10, ["12", "13", "14", "15"], "1/g10"),  # "1," must not be taken for "10,"
        ("wsum", 11, ["-0.5", "", "", "1e-05"], "1/g11"),
    )
    assert read(text) == [
        ("wsum", "1/g1", [1.0, 2.5, 3.0]),
        ("wsum", "1/g2", [4.0, None, 6e6]),
        ("wsum", "1/g3", [7.0]),
        ("wsum", "1/g4", [8.0, 9.0, 10.0, 11.0]),
        ("wsum", "1/g10", [12.0, 13.0, 14.0, 15.0]),
        ("wsum", "1/g11", [-0.5, None, None, 1e-05]),
    ]


def test_empty_values_at_either_end_and_a_table_of_none():
    text = block(("lo", 0, [""], "a"), ("lo", 1, ["", "1"], "b"), ("lo", 2, ["2", ""], "c"), ("lo", 3, ["", ""], "d"))
    assert read(text) == [
        ("lo", "a", [None]),
        ("lo", "b", [None, 1.0]),
        ("lo", "c", [2.0, None]),
        ("lo", "d", [None, None]),
    ]


def test_values_json_has_no_word_for_are_read_too():
    found = read(block(("wmax", 0, ["NaN", "+Inf", "1"], "a"), ("wmax", 1, ["-Inf", "", "2"], "b")))
    assert [port for _, port, _ in found] == ["a", "b"]
    assert math.isnan(found[0][2][0]) and found[0][2][1:] == [math.inf, 1.0]
    assert found[1][2] == [-math.inf, None, 2.0]


def test_quoted_device_strings_in_the_group_are_read_whole():
    """A port name with a comma and quotes (device strings are anything): CSV-quoted in its column."""
    lines = [
        HEADER,
        ',wsum,0,1,in_bps_sum,interface,7,"Gi1/0/1, ""uplink"""',
        ',wsum,0,2,in_bps_sum,interface,7,"Gi1/0/1, ""uplink"""',
    ]
    lines += [",wsum,1,3,in_bps_sum,interface,7,plain", ",wsum,1,4,in_bps_sum,interface,7,plain"]
    assert read("\r\n".join(lines) + "\r\n") == [
        ("wsum", 'Gi1/0/1, "uplink"', [1.0, 2.0]),
        ("wsum", "plain", [3.0, 4.0]),
    ]


def test_several_results_in_one_block_keep_their_names():
    text = block(("r0_wsum", 0, ["1", "2"], "a"), ("r0_wcount", 1, ["3", "4"], "a"), ("r1_lo", 2, ["5"], "a"))
    assert read(text) == [("r0_wsum", "a", [1.0, 2.0]), ("r0_wcount", "a", [3.0, 4.0]), ("r1_lo", "a", [5.0])]


def test_a_block_named_by_its_default_annotation_gives_every_table_its_result():
    """As the pages ask InfluxDB for it: each block's result named once on its "#default" line, its rows' result
    column empty; windows (read in bulk) of a plain and a quoted port, a one-value result, and timed rows."""
    windows = block(("", 0, ["1", "2"], "1/g1"), ("", 1, ["3", ""], '"Gi1/0/1, ""uplink"""'))
    timed = (
        ",result,table,_time,_value,_field,port\r\n"
        ",,0,2026-11-28T00:00:00Z,5,in_bps,1/g1\r\n,,0,2026-11-28T00:01:00Z,6,in_bps,1/g1\r\n"
    )
    text = f"#default,wsum,,,,,,\r\n{windows}\r\n#default,lo,,,,,,\r\n{block(('', 0, ['9'], '1/g1'))}\r\n"
    text += f"#datatype,string,long,dateTime:RFC3339,double,string,string\r\n#default,raw,,,,,\r\n{timed}\r\n"
    tables = parse(text)
    assert [(t.result, t.group["port"], [v for _, v in t.rows]) for t in tables] == [
        ("wsum", "1/g1", [1.0, 2.0]),
        ("wsum", 'Gi1/0/1, "uplink"', [3.0, None]),
        ("lo", "1/g1", [9.0]),
        ("raw", "1/g1", [5.0, 6.0]),
    ]
    assert tables[-1].rows[0][0] == 1_795_824_000_000 and tables[-1].value_type == "double"
