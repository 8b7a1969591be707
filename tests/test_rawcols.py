"""A device's kept raw samples (monitor.timeseries.rawcols): InfluxQL's series as columns, cut and extended poll by
poll, and back to rows for the series a request asks for, with a field's missing values left out, never zeros."""

from __future__ import annotations

import pickle
from array import array

from monitor.timeseries import rawcols
from monitor.timeseries.rawcols import SeriesCols

PORT1 = {"device": "7", "port": "gi1/0/1"}


def influxql_series(port: str, rows: list[list]) -> dict:
    return {
        "name": "interface",
        "tags": {"device": "7", "port": port},
        "columns": ["time", "in_bps", "in_errors"],
        "values": rows,
    }


def rows_of(tables) -> dict:
    return {(t.result, t.group["port"], t.group["_field"]): t.rows for t in tables}


def test_influxqls_series_become_columns_and_a_missing_value_is_no_row():
    found = [influxql_series("gi1/0/1", [[60_000, 100, 0], [120_000, None, 2], [180_000, 300, None]])]
    kept = rawcols.from_influxql(found)
    assert [s.group for s in kept] == [PORT1 | {"_measurement": "interface"}]
    assert list(kept[0].times) == [60_000, 120_000, 180_000]
    assert rows_of(rawcols.tables(kept, "tail")) == {
        ("tail", "gi1/0/1", "in_bps"): [(60_000, 100.0), (180_000, 300.0)],  # the gap at 120 s stays a gap
        ("tail", "gi1/0/1", "in_errors"): [(60_000, 0.0), (120_000, 2.0)],  # a zero is a value
    }


def test_a_field_without_any_value_and_a_series_without_rows_make_no_table():
    found = [influxql_series("gi1/0/1", [[60_000, None, 5]]), influxql_series("gi1/0/2", [])]
    assert rows_of(rawcols.tables(rawcols.from_influxql(found), "head")) == {
        ("head", "gi1/0/1", "in_errors"): [(60_000, 5.0)]
    }


def test_only_the_wanted_series_are_made_rows():
    found = [influxql_series(f"gi1/0/{p}", [[60_000, p, 0]]) for p in range(1, 4)]
    wanted = {("gi1/0/2", "in_bps")}
    tables = rawcols.tables(rawcols.from_influxql(found), "tail", lambda g: (g["port"], g["_field"]) in wanted)
    assert rows_of(tables) == {("tail", "gi1/0/2", "in_bps"): [(60_000, 2.0)]}


def test_merge_cuts_the_kept_samples_and_appends_the_fresh_ones_field_by_field():
    kept = rawcols.from_influxql(
        [influxql_series("gi1/0/1", [[0, 1, 0], [60_000, 2, 0], [120_000, 3, 0], [180_000, 4, 0]])]
    )
    fresh = [  # from 120 s on, read again: in_errors now absent, a new field and a new port appear
        SeriesCols(
            PORT1 | {"_measurement": "interface"},
            array("q", [120_000, 240_000]),
            {"in_bps": array("d", [30, 50]), "out_bps": array("d", [7, 8])},
        ),
        SeriesCols(
            {"device": "7", "port": "gi1/0/9", "_measurement": "interface"},
            array("q", [240_000]),
            {"in_bps": array("d", [9])},
        ),
    ]
    merged = rawcols.merge(kept, fresh, low_ms=60_000, cut_ms=120_000)
    assert rows_of(rawcols.tables(merged, "tail")) == {
        ("tail", "gi1/0/1", "in_bps"): [(60_000, 2.0), (120_000, 30.0), (240_000, 50.0)],
        ("tail", "gi1/0/1", "in_errors"): [(60_000, 0.0)],
        ("tail", "gi1/0/1", "out_bps"): [(120_000, 7.0), (240_000, 8.0)],
        ("tail", "gi1/0/9", "in_bps"): [(240_000, 9.0)],
    }
    assert rawcols.newest_ms(merged) == 240_000
    assert rawcols.newest_ms([]) == 0


def test_kept_samples_cut_to_a_moment_lose_those_at_or_after_it_and_are_untouched_when_none_are():
    kept = rawcols.from_influxql(
        [influxql_series("gi1/0/1", [[0, 1, 0], [60_000, 2, None]]), influxql_series("gi1/0/2", [[120_000, 3, 1]])]
    )
    assert rawcols.cut_to(kept, 180_000) is kept
    assert rows_of(rawcols.tables(rawcols.cut_to(kept, 60_000), "tail")) == {
        ("tail", "gi1/0/1", "in_bps"): [(0, 1.0)],
        ("tail", "gi1/0/1", "in_errors"): [(0, 0.0)],
    }
    assert list(kept[1].times) == [120_000]  # the kept samples themselves stay as they were


def test_kept_columns_survive_the_cache_as_they_were():
    kept = rawcols.from_influxql([influxql_series("gi1/0/1", [[60_000, 1.5, None], [120_000, 2.5, 1]])])
    again = pickle.loads(pickle.dumps(kept, pickle.HIGHEST_PROTOCOL))  # noqa: S301 (our own bytes: as Django's cache)
    assert rows_of(rawcols.tables(again, "tail")) == rows_of(rawcols.tables(kept, "tail"))
    assert again[0].times.typecode == "q" and again[0].fields["in_bps"].typecode == "d"
