"""The arithmetic around the 95th percentile's reads (monitor.timeseries.percentiles), without InfluxDB (issue 44):
what a series drawn from windows and raw edges says about its samples, the guess below the 95th percentile and
what the read above it settles, the coarse windows of the lower bound, the k-th largest, and hourly means."""

from __future__ import annotations

from array import array

from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.percentiles import _bound_window_s, _derived, _guess, _kth, _of_means, _set, _settled
from monitor.timeseries.templates import TEMPLATES

S = 1000


def item(means: list[float], n: int, lo: float | None, field: str = "in_bps") -> dict:
    t = array("q", [i * 300 * S for i in range(len(means))])
    return {"field": field, "acc": {"n": n, "lo": lo}, "cols": {"t": t, "mean": array("d", means)}}


def test_a_series_of_windows_and_raw_edges_as_the_95th_reads_it():
    # Two windows drawn at 8x (bits): their means back in the stored unit; a head of raw samples before the first
    # window (from 100 s, one before it left out) and a tail after the last (from 600 s).
    got = {
        "head": [(50 * S, 99.0), (100 * S, 2.0), (200 * S, None), (250 * S, 4.0), (300 * S, 77.0)],
        "tail": [(599 * S, 55.0), (600 * S, 1.0), (660 * S, 5.0)],
    }
    derived = _derived(item([16.0, 24.0], 10, 1.5), got, 8.0, 100 * S, 300 * S, 600 * S)
    assert derived == {
        "n": [(None, 10 + 2 + 2)],
        "wmean": [(0, 2.0), (300 * S, 3.0), (100 * S, 3.0), (600 * S, 3.0)],
        "lo": [(None, 1.0)],  # the tail's 1.0 is below the windows' 1.5
    }
    # No head (a range starting on a window), no edges at all, no minimum yet.
    assert _derived(item([8.0], 3, 0.5), got, 8.0, None, 0, 600 * S)["n"] == [(None, 5)]
    assert _derived(item([8.0], 3, 0.5), {}, 8.0, 0, 0, 600 * S) == {
        "n": [(None, 3)],
        "wmean": [(0, 1.0)],
        "lo": [(None, 0.5)],
    }
    assert _derived(item([], 0, None), {"tail": [(600 * S, 7.0)]}, 1.0, None, 0, 600 * S) == {
        "n": [(None, 1)],
        "wmean": [(600 * S, 7.0)],
        "lo": [(None, 7.0)],
    }
    assert _derived(item([], 0, None), {}, 1.0, None, 0, 0)["lo"] == []


def test_the_guess_is_the_90th_percentile_of_window_means_at_least_the_minimum():
    means = [(t, float(v)) for t, v in enumerate([5, 1, 9, 3, 7, 2, 8, 4, 6, 10])]  # sorted: 1..10
    got = {"n": [(None, 60.0), (None, 40.0)], "wmean": means, "lo": [(None, 0.5)]}
    assert _guess(got) == (6, 10.0, 0.5)  # 100 samples: the 6th largest; sorted means[int(0.9 x 10)] = 10
    assert _guess(got | {"wmean": [*means[:9], (9, None)]}) == (6, 9.0, 0.5)  # 9 means: index 8, the largest
    assert _guess(got | {"wmean": means[:5]}) == (6, 9.0, 0.5)  # 5 means (5, 1, 9, 3, 7): index 4
    assert _guess(got | {"lo": [(None, None), (None, 12.0)]}) == (6, 12.0, 12.0)  # never below the minimum
    assert _guess(got | {"n": [(None, 19.0), (None, None)]}) == (1, 10.0, 0.5)
    # Twenty means 1..20: the guess is at most their 95th percentile (nearest rank: the ceil(0.95 x 20) = 19th
    # smallest, 19) and above their 90th (the 18th, 18), so a read above it keeps k samples when they follow
    # their means: 19, not the largest.
    twenty = {"n": [(None, 100.0)], "wmean": [(t, float(t + 1)) for t in range(20)], "lo": [(None, 0.5)]}
    assert _guess(twenty) == (6, 19.0, 0.5)
    assert _guess(got | {"n": [(None, 0.0)]}) is None
    assert _guess(got | {"wmean": [(0, None)]}) is None
    assert _guess(got | {"lo": []}) is None
    assert _guess({}) is None


def test_what_the_read_above_the_guess_settles():
    wanted = {"a": ("pa", 3, 5.0), "b": ("pb", 3, 5.0), "c": ("pc", 3, 5.0), "d": ("pd", 2, 4.0)}
    floors = {"a": 1.0, "b": 5.0, "c": 6.0, "d": 1.0}
    result, again = _settled(wanted, floors, {"a": 7.0, "b": None, "d": 0.0})
    # a: k values above the guess, the k-th is it; b: fewer above a guess that is the minimum: the minimum;
    # c: the guess is below the minimum (cannot be, but then too: the minimum); d: a p95 of 0 is one.
    assert result == {"a": 7.0, "b": 5.0, "c": 6.0, "d": 0.0}
    assert again == {}
    result, again = _settled({"e": ("pe", 4, 5.0)}, {"e": 4.0}, {})
    assert (result, again) == ({}, {"e": ("pe", 4, None)})  # fewer above a guess over the minimum: read all


def test_the_coarse_windows_of_the_lower_bound():
    day = 86_400
    assert _bound_window_s(day) == 3600  # 2,000 windows of a day would be 43 s: an hour at least
    assert _bound_window_s(3600 * 2000) == 3600
    assert _bound_window_s(3600 * 2000 + 1) == 3900  # whole 5-minute windows
    assert _bound_window_s(365 * day) == 15_900  # 15,768 s rounded up to 5 minutes


def test_the_kth_largest_of_rows_read():
    rows = [(0, 3.0), (1, None), (2, 9.0), (3, 1.0), (4, 9.0)]
    assert [_kth(rows, k) for k in (1, 2, 3, 4)] == [9.0, 9.0, 3.0, 1.0]
    assert _kth(rows, 5) is None  # four values cannot give a 5th largest
    assert _kth([], 1) is None


def test_the_95th_of_hourly_means():
    sums = [(0, 120.0), (3600, 60.0), (7200, None), (10_800, 30.0)]
    counts = [(0, 60.0), (3600, 60.0), (7200, 60.0), (10_800, 0.0)]
    assert _of_means(sums, counts) == 2.0  # means 2 and 1 (no sum, no count: left out); 2 values: the largest
    assert _of_means(sums, []) is None
    assert _of_means(sums[:2], counts[1:2]) == 1.0


def test_percentiles_are_set_in_the_charts_unit():
    plot = Plot("p", TEMPLATES["traffic"], (Member("d", "1", 60),), 8.0)
    out = {"p": {"series": [{"field": "in_bps", "stats": {"p95": None}}, {"field": "out_bps", "stats": {"p95": 3}}]}}
    _set([plot], out, {("p", "in_bps"): 2.5, ("p", "out_bps"): None})
    assert [s["stats"]["p95"] for s in out["p"]["series"]] == [20.0, 3]  # None leaves what was there
    _set([plot], out, {("p", "out_bps"): 0.0})
    assert out["p"]["series"][1]["stats"]["p95"] == 0.0


def test_a_bound_sent_to_influxdb_is_below_the_value_once_rounded_to_16_significant_digits():
    from monitor.timeseries.percentiles import below

    # InfluxDB receives a query's float parameters to 16 significant digits: 19047.619047619046 (a window's mean)
    # arrives as 19047.61904761905, above the stored mean, which `>=` then left out.
    for value in (
        19047.619047619046,
        1.0000000000000002,
        123456789.12345679,
        9.999999999999999e-05,
        -2.5000000000000004,
    ):
        sent = float(f"{below(value):.16g}")
        assert sent <= value and abs(value - sent) <= abs(value) * 2e-14
    assert float(f"{19047.619047619046:.16g}") > 19047.619047619046  # why: rounded up, it excluded the value
    assert below(0.0) == 0.0 and below(5.0) < 5.0 and below(-5.0) < -5.0
