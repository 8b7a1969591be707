"""A page's columns carry values to the digits a chart can draw (issue 41): a day's page of a switch moved 6.7 MB of
JSON at full precision, about 14 bytes a number. Each value sent is within half a unit of its 5th significant digit
of the exact one the single-graph API sends, and the legends are the same numbers."""

from __future__ import annotations

import math

import orjson
import pytest

from monitor.graphs.api import drawn

# Values of every magnitude a chart draws: rates near line rate, small error rates, percentages, a latency.
VALUES = [9_871_234_567.891, 812_345_678.9, 1_234.5678, 99.999_51, 0.012_345_678, 3.3e-7, 0.0, 1e6]


def answer(values: list) -> dict:
    times = [1_800_000_000_000 + 300_000 * i for i in range(len(values))]
    cols = {"t": times, "mean": list(values), "max": list(values), "min": [None] * len(values)}
    return {"graphs": {"1": {"series": [{"cols": cols, "stats": {"average": values[0]}}]}}, "aggregates": {}}


def test_each_value_keeps_five_significant_digits_and_the_legend_stays_exact():
    sent = drawn(answer(VALUES))["graphs"]["1"]["series"][0]
    for got, exact in zip(sent["cols"]["mean"], VALUES, strict=True):
        if exact == 0:
            assert got == 0
            continue
        unit = 10 ** (math.floor(math.log10(abs(exact))) - 4)  # the 5th significant digit's place
        assert abs(got - exact) <= unit / 2 * (1 + 1e-12), (got, exact)
    assert sent["cols"]["mean"][:3] == [9_871_200_000.0, 812_350_000.0, 1_234.6]
    assert sent["cols"]["min"] == [None] * len(VALUES)  # a page's missing minima stay missing
    assert sent["cols"]["t"] == answer(VALUES)["graphs"]["1"]["series"][0]["cols"]["t"]  # times are exact
    assert sent["stats"]["average"] == VALUES[0]


def test_a_days_columns_take_a_quarter_fewer_bytes_or_more():
    day = [1e6 * (1 + ((i * 245_489) % 991) / 7.0) / 3.0 for i in range(288)]  # uneven means, full precision
    full, short = orjson.dumps(answer(day)), orjson.dumps(drawn(answer(day)))
    assert len(short) < 0.75 * len(full), (len(short), len(full))


@pytest.mark.parametrize("value", [float("inf"), -5.5e12, -0.000123456])
def test_signs_and_infinities_pass(value):
    assert drawn(answer([value]))["graphs"]["1"]["series"][0]["cols"]["max"][0] == pytest.approx(value, rel=5e-5)
