"""Aggregate arithmetic on plain numbers, without InfluxDB (issue 44): each member resampled to the chart's steps
(a step takes the member's samples there, else the sample whose own interval reaches into it, else its newest while
its next poll is not due), rollup windows filled for slow members, and the summed steps' points and legend."""

from __future__ import annotations

from monitor.timeseries.aggregates import (
    _assemble,
    _fill,
    _margin_s,
    _own_since,
    _public,
    _resample,
    _value_in,
    _with_tail,
)
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.plan import Layout
from monitor.timeseries.templates import TEMPLATES
from monitor.timeseries.tiers import Tier

S = 1000  # ms
M60, M300 = Member("a", "1", 60), Member("b", "1", 300)


def test_a_samples_own_interval_starts_at_the_one_before_unless_that_is_a_gap():
    times = [0, 60 * S, 120 * S, 400 * S, 460 * S]
    assert _own_since(times, 0, 60 * S) == -60 * S  # the first: one poll interval
    assert _own_since(times, 1, 60 * S) == 0
    assert _own_since(times, 2, 60 * S) == 60 * S
    assert _own_since(times, 3, 60 * S) == 340 * S  # 280 s after the one before: a gap (over 2 x 60 s)
    assert _own_since(times, 4, 60 * S) == 400 * S
    # Exactly two intervals is not a gap; history polled every 300 s (spacings beside it) is not one either.
    assert _own_since([0, 120 * S], 1, 60 * S) == 0
    assert _own_since([0, 121 * S], 1, 60 * S) == 61 * S
    assert _own_since([0, 300 * S, 600 * S], 1, 60 * S) == 0  # beside it: 300 s after it
    assert _own_since([0, 300 * S, 600 * S], 2, 60 * S) == 300 * S  # beside it: 300 s before it
    assert _own_since([0, 300 * S, 900 * S], 2, 60 * S) == 300 * S  # 600 s is 2 x 300 s: not a gap
    assert _own_since([0, 300 * S, 901 * S], 2, 60 * S) == 841 * S  # 601 s: a gap after all
    assert _own_since([0, 300 * S, 901 * S, 1502 * S], 2, 60 * S) == 300 * S  # 601 s beside it: not a gap


def test_a_member_polled_each_minute_resampled_to_minutes():
    samples = [(10 * S, 1.0), (70 * S, 2.0), (130 * S, 3.0), (140 * S, 5.0)]
    got = dict(_resample(samples, M60, 60 * S))
    # Its own samples' mean per minute; the first sample's interval (from 50 s before the first minute) reaches
    # into the minute before.
    assert got == {-60 * S: 1.0, 0: 1.0, 60 * S: 2.0, 120 * S: 4.0}


def test_a_member_polled_every_300_s_fills_the_minutes_its_rates_cover():
    samples = [(290 * S, 5.0), (590 * S, 7.0)]
    got = dict(_resample(samples, M300, 60 * S))
    # The rate at 590 s covers (290 s, 590 s]: minutes from 300 s to 540 s; the one at 290 s (-10 s, 290 s].
    assert got == {t * S: 5.0 for t in (-60, 0, 60, 120, 180, 240)} | {t * S: 7.0 for t in (300, 360, 420, 480, 540)}
    # At a live range's end, the newest rate stands until its next poll is due (590 s + 300 s), up to now.
    live = dict(_resample(samples, M300, 60 * S, now_ms=725 * S))
    assert live == got | {600 * S: 7.0, 660 * S: 7.0, 720 * S: 7.0}
    assert dict(_resample(samples, M300, 60 * S, now_ms=600 * S)) == got | {600 * S: 7.0}
    assert dict(_resample(samples, M300, 60 * S, now_ms=599 * S)) == got
    assert dict(_resample(samples, M300, 60 * S, now_ms=890 * S)) == got  # its next poll is due: missing
    late = dict(_resample(samples, M300, 60 * S, now_ms=889 * S))
    assert late == got | {t * S: 7.0 for t in (600, 660, 720, 780, 840)}


def test_at_a_live_ranges_end_the_newest_of_several_samples_stands_until_its_next_poll():
    samples = [(290 * S, 5.0), (590 * S, 7.0), (890 * S, 9.0)]
    # Each rate covers the 300 s before it: minutes from -60 s to 240 s, 300 s to 540 s, 600 s to 840 s.
    covered = {t * S: 5.0 for t in range(-60, 300, 60)} | {t * S: 7.0 for t in range(300, 600, 60)}
    covered |= {t * S: 9.0 for t in range(600, 900, 60)}
    assert dict(_resample(samples, M300, 60 * S)) == covered
    # At 1,000 s the newest (890 s) stands until its next poll (1,190 s): the minutes at 900 s and 960 s.
    assert dict(_resample(samples, M300, 60 * S, now_ms=1000 * S)) == covered | {900 * S: 9.0, 960 * S: 9.0}


def test_a_member_is_missing_across_a_gap():
    samples = [(0, 1.0), (60 * S, 2.0), (400 * S, 3.0)]
    got = dict(_resample(samples, M60, 60 * S))
    assert got == {-60 * S: 1.0, 0: 1.0, 60 * S: 2.0, 300 * S: 3.0, 360 * S: 3.0}  # 120 s to 300 s: no sample
    assert _resample([], M60, 60 * S, now_ms=0) == []


def test_a_members_value_over_one_step():
    samples = [(290 * S, 5.0), (590 * S, 7.0), (600 * S, 9.0)]
    assert _value_in(samples, M300, 0, 300 * S, 1000 * S) == 5.0  # its own sample
    assert _value_in(samples, M300, 580 * S, 601 * S, 1000 * S) == 8.0  # the mean of its two
    assert _value_in(samples, M300, 300 * S, 590 * S, 1000 * S) == 7.0  # the next one's interval reaches back
    assert _value_in(samples, M300, 0, 290 * S, 1000 * S) == 5.0  # (the first's: 300 s before it)
    assert _value_in([(400 * S, 5.0)], M300, 0, 100 * S, 1000 * S) is None  # 300 s before 400 s is 100 s
    assert _value_in([(400 * S, 5.0)], M300, 0, 101 * S, 1000 * S) == 5.0
    # After the newest sample: while its next poll is not due.
    assert _value_in(samples, M300, 601 * S, 660 * S, 899 * S) == 9.0
    assert _value_in(samples, M300, 601 * S, 660 * S, 900 * S) is None  # due at 900 s
    assert _value_in(samples, M300, 900 * S, 960 * S, 899 * S) is None  # the step starts when it is due
    assert _value_in(samples, M300, 899 * S, 960 * S, 899 * S) == 9.0
    assert _value_in([], M300, 0, 60 * S, 0) is None
    # A step holds its samples from its start on and not the one at its end (that is the next step's).
    assert _value_in([(300 * S, 5.0), (360 * S, 7.0)], M60, 300 * S, 360 * S, 1000 * S) == 5.0
    assert _value_in([(250 * S, 1.0), (300 * S, 5.0)], M60, 240 * S, 300 * S, 1000 * S) == 1.0


def test_rollup_windows_of_a_slow_member_fill_the_empty_windows_its_poll_interval_covers():
    means = {0: 1.0, 600 * S: 2.0}
    # polled every 600 s: a sample covers the 600 s before it, two 5-minute windows back (-600 s is the first's)
    assert sorted(_fill(means, Member("d", "", 600), 300 * S)) == [
        (-600 * S, 1.0),
        (-300 * S, 1.0),
        (0, 1.0),
        (300 * S, 2.0),
        (600 * S, 2.0),
    ]
    assert sorted(_fill(means, Member("d", "", 300), 300 * S)) == [
        (-300 * S, 1.0),
        (0, 1.0),
        (300 * S, 2.0),
        (600 * S, 2.0),
    ]
    assert sorted(_fill(means, Member("d", "", 299), 300 * S)) == [(0, 1.0), (600 * S, 2.0)]
    # Hourly windows: a member polled every 3,599 s has a sample in every hour, so no hour is empty to fill.
    hourly = {0: 1.0, 7200 * S: 2.0}
    assert sorted(_fill(hourly, Member("d", "", 3599), 3600 * S)) == [(0, 1.0), (7200 * S, 2.0)]
    assert sorted(_fill(hourly, Member("d", "", 3600), 3600 * S)) == [
        (-3600 * S, 1.0),
        (0, 1.0),
        (3600 * S, 2.0),
        (7200 * S, 2.0),
    ]
    # every 900 s: three windows back from each sample's, never past a window that has its own
    assert sorted(_fill({0: 1.0, 300 * S: 2.0}, Member("d", "", 900), 300 * S)) == [
        (-900 * S, 1.0),
        (-600 * S, 1.0),
        (-300 * S, 1.0),
        (0, 1.0),
        (300 * S, 2.0),
    ]
    # every 3,600 s on 5-minute windows: the twelve windows of the hour before; a gap longer is left empty
    far = dict(_fill({0: 1.0, 7200 * S: 2.0}, Member("d", "", 3600), 300 * S))
    assert sorted(far) == [t * 300 * S for t in range(-12, 1)] + [t * 300 * S for t in range(12, 25)]
    assert far[3600 * S] == 2.0 and far[-3600 * S] == 1.0


def test_the_reads_margin_covers_two_of_the_longest_intervals_and_half_an_hour():
    template = TEMPLATES["traffic"]
    assert _margin_s(Plot("k", template, (M60, M300))) == 1800
    assert _margin_s(Plot("k", template, (M60, Member("c", "1", 3600)))) == 7200
    assert _margin_s(Plot("k", template, (Member("c", "1", 901),))) == 1802


RAW = Tier("raw", "raw", 0, 14)
FIVE = Tier("5m", "5m", 300, 400)


def traffic(scale: float = 1.0) -> Plot:
    return Plot("agg", TEMPLATES["traffic"], (M60, M300), scale)


def test_the_summed_steps_points_and_legend():
    steps = {"in_bps": [(0, 4.0), (60 * S, 8.0), (120 * S, 6.0)], "out_bps": []}
    data = _assemble(traffic(8.0), Layout(RAW, 60, 60), steps, {"in_bps": 7.5}, {"in_bps": 960.0}, RAW)
    inbound, outbound = data["series"]
    assert inbound["points"] == [[0, 32.0, 32.0, 32.0], [60 * S, 64.0, 64.0, 64.0], [120 * S, 48.0, 48.0, 48.0]]
    assert inbound["stats"] == {
        "current": 48.0,
        "average": 48.0,  # (4 + 8 + 6) / 3 x 8
        "minimum": 32.0,
        "maximum": 64.0,
        "p95": 60.0,
        "total": 120.0,  # 960 bits over 8 bits a byte
    }
    assert inbound["_steps"] == (3, 18.0)
    assert outbound["points"] == [] and outbound["_steps"] == (0, 0)
    assert outbound["stats"] == dict.fromkeys(("current", "average", "minimum", "maximum", "p95", "total"))
    assert (data["resolution_s"], data["aggregated"], data["tier"], data["unit"]) == (60, False, "raw", "bit/s")
    assert data["p95_source"] == "raw samples"
    # Two steps a point: each point the min, mean and max of its steps.
    data = _assemble(traffic(), Layout(RAW, 60, 120), steps, {}, {}, FIVE)
    assert data["series"][0]["points"] == [[0, 4.0, 6.0, 8.0], [120 * S, 6.0, 6.0, 6.0]]
    assert data["series"][0]["stats"]["p95"] is None and data["series"][0]["stats"]["total"] is None
    assert data["aggregated"] is True and data["p95_source"] == "5-minute means"
    assert "p95_source" in data and _public(data)["series"][0].keys() == {"field", "label", "points", "stats"}
    # A zero p95 is a value; a template without totals or percentile has neither.
    assert (
        _assemble(traffic(), Layout(RAW, 60, 60), steps, {"in_bps": 0.0}, {}, RAW)["series"][0]["stats"]["p95"] == 0.0
    )
    load = Plot("c", TEMPLATES["load"], (M60,))
    field = load.template.fields[0]
    got = _assemble(load, Layout(RAW, 60, 60), {field: [(0, 1.0)]}, {}, {field: 5.0}, RAW)
    assert "total" not in got["series"][0]["stats"] and got["p95_source"] == "raw samples"
    memory = Plot("m", TEMPLATES["memory"], (M60,))
    assert _assemble(memory, Layout(RAW, 60, 60), {}, {}, {}, RAW)["p95_source"] is None  # no 95th in its legend


def test_the_raw_tail_after_the_newest_window_counts_in_every_figure_but_the_95th():
    steps = {"in_bps": [(0, 4.0), (300 * S, 8.0)], "out_bps": [(0, 1.0)]}
    data = _assemble(traffic(2.0), Layout(FIVE, 300, 300), steps, {"in_bps": 8.0}, {"in_bps": 800.0}, FIVE)
    tail = {"in_bps": ([(600 * S, 2.0), (660 * S, 10.0), (900 * S, 6.0)], 160.0)}
    out = _with_tail(traffic(2.0), data, tail, 300)
    inbound, outbound = out["series"]
    assert inbound["stats"] == {
        "current": 12.0,
        "average": (4.0 + 8.0 + 2.0 + 10.0 + 6.0) / 5 * 2.0,
        "minimum": 4.0,
        "maximum": 20.0,
        "p95": 16.0,  # of the windows only
        "total": (800.0 + 160.0) / 8.0,
    }
    # Drawn on the chart's grid: the tail's steps from 600 s, then every 300 s.
    assert inbound["points"][2:] == [[600 * S, 4.0, 12.0, 20.0], [900 * S, 12.0, 12.0, 12.0]]
    assert outbound == _public(data)["series"][1]  # no tail: unchanged
    assert "_steps" not in inbound
    # A graph with no window before the tail: the tail's own figures.
    empty = _assemble(traffic(), Layout(FIVE, 300, 300), {"in_bps": []}, {}, {}, FIVE)
    out = _with_tail(traffic(), empty, {"in_bps": ([(600 * S, 3.0), (660 * S, 1.0)], 80.0)}, 300)
    assert out["series"][0]["stats"] | {"p95": None} == {
        "current": 1.0,
        "average": 2.0,
        "minimum": 1.0,
        "maximum": 3.0,
        "p95": None,
        "total": 10.0,
    }


def test_a_raw_tail_of_one_series_only_keeps_the_windows_extremes_and_is_drawn_from_where_it_starts():
    # 900-s points of 5-minute windows: out_bps's windows are 2 and 4, in_bps's 1 and 20; only out_bps has raw
    # samples after the newest window (at 600 s, 660 s and 900 s), and none of them is beyond its windows' range.
    steps = {"in_bps": [(0, 1.0), (300 * S, 20.0)], "out_bps": [(0, 2.0), (300 * S, 4.0)]}
    data = _assemble(traffic(), Layout(FIVE, 300, 900), steps, {"out_bps": 4.0}, {}, FIVE)
    tail = {"out_bps": ([(600 * S, 3.0), (660 * S, 3.5), (900 * S, 2.5)], 80.0)}
    inbound, outbound = _with_tail(traffic(), data, tail, 900)["series"]
    assert inbound == _public(data)["series"][0]  # no tail: unchanged, and the series after it still gets its own
    assert outbound["stats"] == {
        "current": 2.5,
        "average": (2.0 + 4.0 + 3.0 + 3.5 + 2.5) / 5,
        "minimum": 2.0,  # the windows' (the tail's least is 2.5)
        "maximum": 4.0,  # the windows' (the tail's most is 3.5)
        "p95": 4.0,
        "total": 80.0 / 8,
    }
    # The tail starts at 600 s, inside the chart's 900-s point from 0 that the windows at 0 and 300 s fill part of:
    # its steps there join that point (one point per interval of the grid, the mean of its four steps), the rest
    # are points of the grid.
    assert outbound["points"] == [[0, 2.0, (2.0 + 4.0 + 3.0 + 3.5) / 4, 4.0], [900 * S, 2.5, 2.5, 2.5]]
    # The windows' point holds one step only where one window lies in the interval.
    one = _assemble(traffic(), Layout(FIVE, 300, 900), {"out_bps": [(0, 2.0), (900 * S, 4.0)]}, {}, {}, FIVE)
    joined = _with_tail(traffic(), one, {"out_bps": ([(1200 * S, 1.0), (1500 * S, 3.0)], 0.0)}, 900)
    assert joined["series"][1]["points"] == [[0, 2.0, 2.0, 2.0], [900 * S, 1.0, (4.0 + 1.0 + 3.0) / 3, 4.0]]


def test_an_aggregate_of_traffic_reads_each_rate_s_span_and_bytes_and_counts_the_bytes_in_bits():
    from monitor.timeseries.aggregates import _moved, _raw_names

    traffic = Plot("t", TEMPLATES["traffic"], (M60,))
    names = _raw_names(traffic)
    assert sorted(names) == ["in_bps", "in_bytes", "out_bps", "out_bytes", "span_s"]
    assert all(stored == field for stored, field in names.items())
    errors = Plot("e", TEMPLATES["errors"], (M60,))
    assert _raw_names(errors) == {f: f for f in TEMPLATES["errors"].fields}  # no totals: the fields only
    got = {(0, "in_bytes"): [(1, 10.0), (2, None), (3, 0.5)], (1, "in_bytes"): [(1, 7.0)], (0, "out_bytes"): [(1, 2.0)]}
    assert _moved(got, 0, "in_bps") == {1: 80.0, 3: 4.0}
    assert _moved(got, 1, "in_bps") == {1: 56.0}
    assert _moved(got, 0, "out_bps") == {1: 16.0}
    assert _moved(got, 2, "in_bps") == {} and _moved(got, 0, "in_errors") == {}


def test_a_sample_with_a_span_covers_it_back_from_its_time():
    from monitor.timeseries.aggregates import _spans

    times = [0, 60 * S, 300 * S]
    assert _own_since(times, 2, 60 * S, {300 * S: 240.0}) == 60 * S  # after three unanswered polls: 240 s back
    assert _own_since(times, 2, 60 * S, {300 * S: 0.5}) == 299_500  # to the millisecond
    assert _own_since(times, 2, 60 * S, {300 * S: 0.0}) == 240 * S  # no span: 240 s after the one before is a gap
    assert _own_since(times, 1, 60 * S, {300 * S: 240.0}) == 0  # a sample without one: since the one before
    assert _spans({(0, "span_s"): [(1, 60.0), (2, None)], (1, "span_s"): [(3, 1.0)]}, 0) == {1: 60.0}
    assert _spans({}, 0) == {}  # a member with no sample there


def test_the_answer_after_an_outage_fills_the_steps_its_span_covers():
    # Polled every 300 s: answers at 300 s and at 1,500 s, the second spanning the 1,200 s since the first.
    samples = [(300 * S, 1.0), (1500 * S, 5.0)]
    spans = {1500 * S: 1200.0}
    got = dict(_resample(samples, M300, 300 * S, None, spans))
    # The first (no span, no sample before) covers one interval back: the step at 0 too.
    assert got == {0: 1.0, 300 * S: 1.0, 600 * S: 5.0, 900 * S: 5.0, 1200 * S: 5.0, 1500 * S: 5.0}
    without = {0: 1.0, 300 * S: 1.0, 1200 * S: 5.0, 1500 * S: 5.0}  # 1,200 s without a span: a gap
    assert dict(_resample(samples, M300, 300 * S)) == without
    assert _value_in(samples, M300, 600 * S, 900 * S, 2000 * S, spans) == 5.0
    assert _value_in(samples, M300, 600 * S, 900 * S, 2000 * S) is None


def test_an_aggregates_whole_windows_wait_for_the_windows_its_slowest_member_fills_from():
    from monitor.timeseries.plan import lag

    template = TEMPLATES["traffic"]
    # A member polled every 900 s fills the three 5-minute windows before each sample's: the newest counted window
    # is whole for the aggregate only once the three after it are counted too.
    assert lag(Plot("k", template, (M60, Member("c", "1", 900))), 300) == 3
    assert lag(Plot("k", template, (M60, M300)), 300) == 1
    assert lag(Plot("k", template, (Member("a", "1", 299), M60)), 300) == 0  # a sample in every window
    assert lag(Plot("k", template, (Member("c", "1", 3600),)), 3600) == 1
    assert lag(Plot("k", template, (Member("c", "1", 3600),)), 300) == 12
