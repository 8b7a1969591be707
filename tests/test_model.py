"""The reference model (tests/model/) against numbers worked out by hand from each scenario's arithmetic.

Pure and fast: no InfluxDB, no product code. Each expected value is the scenario's own arithmetic (bits moved,
seconds between readings), so the model that the live harness trusts is itself checked against the docs' examples.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.model.aggregate import aggregate
from tests.model.chart import chart, raw_floor, tier_for
from tests.model.rates import rates
from tests.model.scenario import Counter, Poll, Scenario, Segment
from tests.model.windows import FIVE_MIN, HOUR, counted_from, windows, written_at

T0 = 19_676 * 86_400  # a UTC midnight (2023-11-14)
DAY = 86_400
FAR = T0 - 30 * DAY  # a raw floor long before every range: raw retention holds them all
GB = 8e9  # bits in a gigabyte


def port(kind: str = "port64", speed: float = 1e9, bps: float = 100e6, start_value: int = 0, **kw) -> Counter:
    segments = kw.pop("segments", (Segment(T0 - 60 * DAY, bps),))
    return Counter("p", kind, speed, tuple(segments), start_value=start_value, **kw)


def every(interval: int, first: float, last: float, missed: tuple[float, ...] = ()) -> list[Poll]:
    n = int((last - first) // interval) + 1
    return [Poll(first + k * interval, interval, first + k * interval not in missed) for k in range(n)]


def device(counter: Counter, polls: list[Poll], **kw) -> Scenario:
    return Scenario("d1", (counter,), tuple(polls), booted=kw.pop("booted", T0 - 60 * DAY), **kw)


def test_an_hour_at_100_mbit_polled_every_minute_totals_45_gb():
    sc = device(port(), every(60, T0 - 600, T0 + 7200))
    e = chart(sc, "p", T0, T0 + 3600, 800, T0 + 7200, FAR)
    assert (e.tier, e.every_s, e.aggregated) == ("raw", 60, False)
    assert len(e.points) == 60 and e.points[0] == (T0 * 1000, 100e6)  # T0 .. T0+3540: the end is not in the range
    assert e.total == pytest.approx(45 * GB)
    assert e.current == e.average == e.minimum == e.maximum == e.p95 == 100e6
    assert e.p95_source == "raw samples"


def test_three_unanswered_300s_polls_then_an_answer_counts_the_outage_exactly():
    missed = (T0 + 900, T0 + 1200, T0 + 1500)
    sc = device(port(bps=600e6), every(300, T0, T0 + 3000, missed))
    r = next(x for x in rates(sc)["p"] if x.t == T0 + 1800)
    assert (r.value, r.span) == (600e6, 1200)  # the exact average over the outage, for its four intervals
    e = chart(sc, "p", T0 + 1, T0 + 1801, 800, T0 + 3600, FAR)
    # samples at 300 and 600 (300 s each) and 1800 (1200 s): 1800 s at 75 MB/s = 135 GB, all of it moved
    assert e.total == pytest.approx(135 * GB)
    assert e.total == pytest.approx(sc.counters[0].bits_between(T0, T0 + 1800))


def test_a_one_poll_gap_is_not_bridged_the_next_rate_counts_its_own_interval():
    # a string counter at 25 bytes/s, 3500 at boot: 5000 at T0+60; reset at T0+80, so 1000 at T0+120
    c = Counter("p", "string", 0, (Segment(T0, 200),), resets=(T0 + 80,), start_value=3500)
    sc = device(c, every(60, T0, T0 + 600), booted=T0)
    r = rates(sc)["p"]
    assert [sc.octets(c, t) for t in (T0 + 60, T0 + 120, T0 + 180)] == [5000, 1000, 2500]
    assert (r[2].value, r[2].reason) == (None, "counter reset")  # not (2^32 - 4000) / 60 = 71.6 million a second
    assert (r[3].value, r[3].span) == (25, 60)
    e = chart(sc, "p", T0, T0 + 241, 800, T0 + 600, FAR)
    assert e.maximum == 25 and e.total == 25 * 180  # bytes of 60..180 minus the gap's interval
    c32 = Counter("p", "port32", 0, c.segments, resets=c.resets, start_value=3500)
    r32 = rates(device(c32, every(60, T0, T0 + 600), booted=T0))["p"]
    assert (r32[2].value, r32[2].reason) == (None, "counter reset")  # a "wrap" faster than 2.5 million a second


def test_a_32_bit_counter_wraps_and_a_64_bit_one_going_back_is_a_reset():
    near = 2**32 - 100_000_000
    sc = device(port("port32", speed=100e6, bps=80e6, start_value=near), every(60, T0, T0 + 600), booted=T0)
    r = rates(sc)["p"]
    assert sc.octets(sc.counters[0], T0 + 60) < near  # it wrapped: 600 MB on top of 2^32 - 100 MB
    assert [x.value for x in r[1:]] == [80e6] * 10
    sc64 = device(port("port64", bps=1e6, start_value=2**64 - 1000), every(60, T0, T0 + 600), booted=T0)
    r64 = rates(sc64)["p"]
    assert (r64[1].value, r64[1].reason) == (None, "counter reset")
    assert [x.value for x in r64[2:]] == [1e6] * 9


def test_400_mbit_on_a_32_bit_gigabit_port_polled_every_300s_is_a_gap_every_poll():
    sc = device(port("port32", speed=1e9, bps=400e6), every(300, T0, T0 + 3600), booted=T0)
    assert {x.reason for x in rates(sc)["p"][1:]} == {"interval too long for a 32-bit counter"}
    e = chart(sc, "p", T0, T0 + 3600, 800, T0 + 3600, FAR)
    assert e.points == [] and e.total is None and e.current is None and e.p95 is None
    sc64 = device(port("port64", speed=1e9, bps=400e6), every(300, T0, T0 + 3600), booted=T0)
    assert {x.value for x in rates(sc64)["p"][1:]} == {400e6}
    unknown = device(port("port32", speed=0, bps=400e6), every(300, T0, T0 + 600), booted=T0)
    # 15 GB leave 2,115,098,112 bytes modulo 2^32: 56.4 Mbit/s, above 2.5 MB/s x 1.1
    assert rates(unknown)["p"][1].reason == "faster than a 32-bit counter of unknown speed can be read"


def test_a_reboot_is_a_gap_and_the_next_interval_counts_from_the_new_value():
    sc = device(port(bps=8e6, start_value=10**9), every(60, T0, T0 + 600), reboots=(T0 + 330,), booted=T0)
    r = rates(sc)["p"]
    assert (r[6].t, r[6].value, r[6].reason) == (T0 + 360, None, "reboot")
    assert (r[7].value, r[7].span) == (8e6, 60)
    e = chart(sc, "p", T0, T0 + 601, 800, T0 + 700, FAR)
    assert e.total == pytest.approx(8e6 * 60 * 9)  # ten intervals less the one across the reboot


def test_older_300s_spacings_are_no_gaps_after_a_change_to_60s():
    polls = every(300, T0 - DAY, T0 + 3 * HOUR) + every(60, T0 + 3 * HOUR + 60, T0 + 7 * HOUR)
    sc = device(port(), polls)
    six = chart(sc, "p", T0, T0 + 6 * HOUR, 800, T0 + 6 * HOUR, FAR)
    assert (six.tier, six.every_s, six.aggregated) == ("raw", 60, False)
    # 37 samples of 300 s (T0 .. T0+3h) and 179 of 60 s (T0+3h+60 .. T0+6h-60): 11,100 + 10,740 s at 100 Mbit/s
    assert six.total == pytest.approx(100e6 * 21_840)
    day = chart(sc, "p", T0 - 18 * HOUR, T0 + 6 * HOUR, 300, T0 + 6 * HOUR, FAR)
    assert (day.tier, day.every_s) == ("5m", 300)
    first = chart(sc, "p", T0 - 18 * HOUR, T0, 800, T0 + 6 * HOUR, FAR)
    assert day.total == pytest.approx(first.total + six.total) == pytest.approx(100e6 * (64_800 + 21_840))


@pytest.mark.parametrize(
    ("interval", "five", "hour"),
    [(10, 180, 480), (60, 180, 480), (120, 180, 480), (300, 480, 780), (900, 1080, 1380), (3600, 3780, 4080)],
)
def test_pages_count_a_window_as_written(interval, five, hour):
    # docs: 3 / 8 / 18 minutes (60 / 300 / 900 s), hours 8 / 13 / 23; 10 s as 60 s; 3,600 s: 63 and 68 minutes
    assert counted_from(T0 + 300, FIVE_MIN, interval) - (T0 + 300) == five
    assert counted_from(T0 + HOUR, HOUR, interval) - (T0 + HOUR) == hour


def test_when_a_device_writes_its_windows():
    slow = device(port(), every(300, T0 + 200, T0 + 2 * HOUR))
    assert written_at(slow, T0, FIVE_MIN) == T0 + 500  # its first poll after the end: 200 s later
    assert written_at(slow, T0, HOUR) == T0 + HOUR + 200  # the first poll 150 s after the hour
    minute = device(port(), every(60, T0 + 15, T0 + 2 * HOUR))
    assert written_at(minute, T0, FIVE_MIN, late=False) == T0 + 315
    assert written_at(minute, T0, FIVE_MIN, late=True) == T0 + 375  # a minute later
    assert written_at(minute, T0, FIVE_MIN) == T0 + 375  # unsaid which half: the model takes the later
    assert written_at(minute, T0, HOUR, late=True) == T0 + HOUR + 255  # 210 s after the hour, then its poll


def test_a_300s_device_at_phase_200_shows_its_sample_13_minutes_after_it_started():
    sc = device(port(bps=300e6), every(300, T0 + 200, T0 + HOUR))
    now = T0 + 780  # the window of its one rate (T0+500) is counted only at T0+1080: the raw tail holds it
    e = chart(sc, "p", now - DAY, now, 300, now, now - 14 * DAY)
    assert e.tier == "5m" and e.points == [((T0 + 300) * 1000, 300e6, 300e6, 300e6)]
    assert e.current == 300e6 and e.total == pytest.approx(300e6 * 300)


def test_ten_second_polls_over_12_hours_are_minutes_of_min_mean_max():
    # each minute: 50 s at 10 Mbit/s, then 10 s at 70 Mbit/s (readings at :00, :10, ... :50)
    segs = [Segment(T0 - 60 + m * 60 + s, b) for m in range(13 * 60) for s, b in ((0, 10e6), (50, 70e6))]
    sc = device(port(segments=segs), every(10, T0 - 60, T0 + 12 * HOUR))
    e = chart(sc, "p", T0, T0 + 12 * HOUR, 800, T0 + 12 * HOUR, FAR)
    assert (e.tier, e.every_s, e.aggregated) == ("raw", 60, True)  # 54 s a point, rounded up to the minute
    assert len(e.points) == 720 and e.points[0] == (T0 * 1000, 10e6, 20e6, 70e6)
    assert e.average == pytest.approx(20e6) and e.total == pytest.approx(20e6 * 12 * HOUR)
    assert e.p95 == 70e6  # a sixth of the samples


def test_900s_and_3600s_polls_on_rollup_tiers():
    sc = device(port(bps=50e6), every(900, T0 - DAY, T0 + DAY))
    e = chart(sc, "p", T0, T0 + DAY, 300, T0 + DAY, FAR)
    assert (e.tier, e.every_s, e.aggregated) == ("5m", 300, True)  # points are windows: [t, min, mean, max]
    assert len(e.points) == 96 and e.total == pytest.approx(50e6 * DAY)  # a window in three holds a sample
    long_ago = T0 - 41 * DAY
    hourly = device(port(segments=(Segment(long_ago, 50e6),)), every(3600, T0 - 40 * DAY, T0 + DAY), booted=long_ago)
    month = chart(hourly, "p", T0 - 31 * DAY, T0, 800, T0 + DAY, T0 - 14 * DAY)  # 3,348 s a point: 3,600 is within 1.1x
    assert (month.tier, month.every_s, month.p95_source) == ("1h", 3600, "5-minute means")
    assert len(month.points) == 744 and month.total == pytest.approx(50e6 * 31 * DAY)


def test_the_raw_floor_is_the_shard_group_holding_now_less_the_retention():
    assert raw_floor(T0 + 10 * HOUR, 14 * DAY, DAY) == T0 - 14 * DAY
    assert raw_floor(T0 + 10.5 * HOUR, DAY, HOUR) == T0 + 10 * HOUR - DAY
    start = T0 + 10 * HOUR - (14 * DAY + 22 * HOUR)  # 14 d 22 h back: before the floor
    assert tier_for(start, T0 + 10 * HOUR, 800, T0 + 10 * HOUR, T0 - 14 * DAY) == "5m"
    sc = device(port(bps=100e6), every(300, T0 - 16 * DAY, T0 + 11 * HOUR))
    e = chart(sc, "p", start, T0 + 10 * HOUR, 800, T0 + 10 * HOUR, raw_floor(T0 + 10 * HOUR, 14 * DAY, DAY))
    assert (e.tier, e.p95_source, e.p95) == ("5m", "5-minute means", 100e6)
    later = T0 + 23 * HOUR  # the day that holds a 14 d 22 h range's start is still there
    e = chart(sc, "p", later - (14 * DAY + 22 * HOUR), later, 800, later, raw_floor(later, 14 * DAY, DAY))
    assert (e.tier, e.p95_source) == ("5m", "raw samples")


def test_past_raw_retention_the_95th_is_of_5_minute_means():
    # each 5 minutes: 4 minutes silent, then one at 500 Mbit/s: a fifth of the samples 500, every window's mean 100
    segs = [Segment(T0 - 300 + k * 300 + s, b) for k in range(300) for s, b in ((0, 0.0), (240, 500e6))]
    sc = device(port(segments=segs), every(60, T0 - 300, T0 + DAY))
    assert chart(sc, "p", T0, T0 + DAY, 300, T0 + DAY + HOUR, FAR).p95 == 500e6
    past = chart(sc, "p", T0, T0 + DAY, 300, T0 + DAY + HOUR, T0 + 1)
    assert (past.p95_source, past.p95, past.maximum) == ("5-minute means", 100e6, 500e6)
    assert [w.mean for w in windows(rates(sc)["p"], FIVE_MIN)][2:5] == [100e6] * 3


def test_an_aggregate_of_two_300s_ports_at_other_phases_is_whole_in_every_step():
    a = device(port(bps=500e6), every(300, T0 - HOUR, T0 + 2 * HOUR))
    b = Scenario("d2", a.counters, tuple(every(300, T0 - HOUR + 150, T0 + 2 * HOUR)), booted=a.booted)
    now = T0 + 2 * HOUR + 10
    e = aggregate([(a, "p"), (b, "p")], now - HOUR, now, 800, now, FAR)
    assert e.tier == "raw" and e.every_s == 300 and not e.aggregated
    assert len(e.points) == 13 and {v for _, v in e.points} == {1000e6}  # first, last and the step at now
    assert e.total == pytest.approx(2 * 500e6 * 300 * 12)


def test_an_aggregate_with_a_missed_poll_takes_the_next_samples_span():
    a = device(port(bps=100e6), every(60, T0 - HOUR, T0 + HOUR))
    b_polls = every(300, T0 - HOUR + 30, T0 + HOUR, missed=(T0 + 630,))
    b = Scenario("d2", (port(bps=200e6),), tuple(b_polls), booted=a.booted)
    e = aggregate([(a, "p"), (b, "p")], T0, T0 + HOUR, 800, T0 + HOUR, FAR)
    assert {v for _, v in e.points} == {300e6}


scenario_polls = st.lists(st.booleans(), min_size=3, max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    answered=scenario_polls,
    interval=st.sampled_from([10, 60, 300, 900]),
    jitter=st.lists(st.floats(0, 2), min_size=40, max_size=40),
    levels=st.lists(st.floats(0, 900e6), min_size=1, max_size=6),
)
def test_with_no_gap_the_total_is_what_moved_between_the_first_and_last_reading(answered, interval, jitter, levels):
    segs = [Segment(T0 + k * 7 * interval / 3, b) for k, b in enumerate(levels)]
    polls = [Poll(T0 + k * interval + jitter[k], interval, ok) for k, ok in enumerate(answered)]
    sc = device(port(segments=[Segment(T0 - DAY, 0.0), *segs]), polls, booted=T0 - DAY)
    got = [p.t for p in polls if p.answered]
    e = chart(sc, "p", got[0], got[-1] + 1, 2000, got[-1] + 1, FAR) if len(got) > 1 else None
    if e is None or e.total is None:
        return
    moved = sc.counters[0].bits_between(got[0], got[-1])
    assert e.total == pytest.approx(moved, rel=1e-9, abs=16)  # octets are whole: under 8 bits at each end


@settings(max_examples=60, deadline=None)
@given(
    interval=st.sampled_from([10, 60, 300]),
    missed=st.sets(st.integers(0, 60), max_size=10),
    reboot=st.floats(0, 60),
    split=st.floats(0.01, 0.99),
    kind=st.sampled_from(["port32", "port64", "string"]),
)
def test_a_range_split_in_two_totals_the_same_as_the_whole(interval, missed, reboot, split, kind):
    n = 60
    polls = [Poll(T0 + k * interval, interval, k not in missed) for k in range(n)]
    c = port(kind, speed=100e6, segments=(Segment(T0 - DAY, 20e6), Segment(T0 + n * interval / 2, 60e6)))
    sc = device(c, polls, reboots=(T0 + reboot * interval + 0.5,), booted=T0 - DAY)
    end = T0 + n * interval
    mid = T0 + split * n * interval
    whole, left, right = (chart(sc, "p", a, b, 5000, end, FAR) for a, b in ((T0, end), (T0, mid), (mid, end)))
    assert (whole.total or 0) == pytest.approx((left.total or 0) + (right.total or 0))
    parts = [x for x in (left.maximum, right.maximum) if x is not None]
    assert whole.maximum == (max(parts) if parts else None)


def test_the_bound_holds_with_its_tenth_of_tolerance():
    def first_rate(kind: str, speed: float, bps: float, interval: int):
        return rates(device(port(kind, speed=speed, bps=bps), every(interval, T0, T0 + 2 * interval)))["p"][1]

    assert first_rate("port64", 100e6, 109e6, 60).value == 109e6  # within 1.1 x the line rate: late answers
    assert first_rate("port64", 100e6, 111e6, 60).reason == "above line rate"
    assert first_rate("port32", 100e6, 10e6, 300).value == 10e6  # 300 s < 343.6 s at 100 Mbit/s
    assert first_rate("port32", 100e6, 10e6, 360).reason == "interval too long for a 32-bit counter"
    assert first_rate("port32", 0, 1e6, 1500).value == 1e6  # 25 minutes < 28.6 without a speed
    assert first_rate("port32", 0, 1e6, 1800).reason == "interval too long for a 32-bit counter"
    assert first_rate("port64", 0, 900e9, 60).value == 900e9  # 1 Tbit/s is a sanity bound only
    assert first_rate("port64", 0, 1200e9, 60).reason == "above line rate"


def test_a_reboot_is_seen_by_sysuptime_even_when_the_counter_did_not_go_back():
    sc = device(port(bps=8e6), every(60, T0, T0 + 300), reboots=(T0 + 50,), booted=T0)
    assert sc.octets(sc.counters[0], T0 + 60) > sc.octets(sc.counters[0], T0)  # 10 s of traffic since the reboot
    assert rates(sc)["p"][1].reason == "reboot"


def test_past_raw_retention_the_head_is_not_read_and_current_is_the_newest_windows_mean():
    segs = [Segment(T0 - 300 + k * 300 + s, b) for k in range(300) for s, b in ((0, 0.0), (240, 500e6))]
    sc = device(port(segments=segs), every(60, T0 - 300, T0 + DAY))
    e = chart(sc, "p", T0 + 120, T0 + DAY, 300, T0 + 3 * DAY, T0 + 2 * DAY)
    # the samples at T0+120..T0+240 lie before the first whole window: 287 whole windows of 100 Mbit/s remain
    assert e.total == pytest.approx(100e6 * 287 * 300)
    assert e.current == 100e6  # not the last sample (0): raw samples are gone, its window's mean stands


def test_an_aggregate_member_after_an_outage_stands_for_the_steps_its_span_covers():
    a = device(port(bps=100e6), every(300, T0 - HOUR, T0 + HOUR))
    b_polls = every(300, T0 - HOUR + 30, T0 + HOUR, missed=(T0 + 630, T0 + 930))
    b = Scenario("d2", (port(bps=200e6),), tuple(b_polls), booted=a.booted)
    e = aggregate([(a, "p"), (b, "p")], T0, T0 + HOUR, 800, T0 + HOUR, FAR)
    assert {v for _, v in e.points} == {300e6}  # b's sample at T0+1230 spans 900 s: it stands for 600..1200


def test_an_aggregate_past_raw_retention_sums_window_means_taking_a_900s_members_next_window():
    a = device(port(bps=300e6), every(900, T0 - 2 * DAY, T0 + DAY))
    b = Scenario("d2", a.counters, tuple(every(900, T0 - 2 * DAY + 450, T0 + DAY)), booted=a.booted)
    now = T0 + DAY - 100
    e = aggregate([(a, "p"), (b, "p")], now - DAY, now, 300, now, now - DAY + 1)
    assert e.tier == "5m" and e.every_s == 300 and e.p95_source == "5-minute means"
    assert {p[2] for p in e.points} == {600e6}  # every window, though each member has a sample in one of three


def test_a_reading_closer_than_half_an_interval_keeps_the_older_one():
    for interval, extra in ((60, 9), (10, 4)):
        polls = sorted(
            [*every(interval, T0, T0 + 3 * interval), Poll(T0 + interval + extra, interval)], key=lambda p: p.t
        )
        r = rates(device(port(), polls))["p"]
        assert r[2].reason == "readings too close"
        assert (r[3].t, r[3].span, r[3].value) == (T0 + 2 * interval, interval, 100e6)


def test_a_tier_is_fine_enough_when_its_window_is_at_most_1_1_times_the_seconds_a_point():
    now = T0 + 10 * HOUR
    # a day: 300 points are 288 s a point (x1.1 = 316.8 >= 300), 315 points 275 s (302.5), 320 points 270 s (297)
    assert [tier_for(now - DAY, now, n, now, FAR) for n in (300, 315, 320)] == ["5m", "5m", "raw"]
    # 31 days of 800 points: 3,348 s a point (x1.1 = 3,682.8); 30 days: 3,240 s (3,564 < 3,600); 31 of 1,000: 2,679 s
    assert [tier_for(now - d * DAY, now, n, now, FAR) for d, n in ((31, 800), (30, 800), (31, 1000))] == [
        "1h",
        "5m",
        "5m",
    ]


def test_the_interval_leaves_room_for_a_partial_window_at_each_end_and_a_raw_head_and_tail():
    a = device(port(bps=100e6), every(10, T0 - 8 * DAY, T0 + DAY))
    b = Scenario("d2", a.counters, tuple(every(10, T0 - 8 * DAY + 5, T0 + DAY)), booted=a.booted)
    now = T0 + 183  # between two polls (a poll at the read's very moment has not written its sample)
    # a day at 300 points: 86,400 / 296 = 291.9, so 292 s rounded up to the 10-s step: 300 s (not 290)
    day = aggregate([(a, "p"), (b, "p")], now - DAY, now, 300, now, FAR)
    assert (day.tier, day.every_s, day.aggregated) == ("raw", 300, True)
    # a week: 604,800 / 296 = 2,043.2, so 2,044 s rounded up to 2,050 s (not 2,020)
    week = aggregate([(a, "p"), (b, "p")], now - 7 * DAY, now, 300, now, FAR)
    assert week.every_s == 2050 and len(week.points) <= 300
    assert {p[2] for p in week.points} == {200e6}
    # read at the moment b polls: its sample then is not written yet, and its next poll is due, so the newest
    # 10-s step has a only (100 Mbit/s); the week's newest point, from 2,050 s of steps, is that much lower
    at_poll = aggregate([(a, "p"), (b, "p")], T0 + 185 - 7 * DAY, T0 + 185, 300, T0 + 185, FAR)
    assert sorted({p[2] for p in at_poll.points})[-1] == 200e6 and len({p[2] for p in at_poll.points}) == 2


def test_an_intervals_point_lies_inside_the_range_timed_at_the_ranges_start_for_the_first():
    sc = device(port(bps=8e6), every(60, T0 - 2 * DAY, T0 + HOUR))
    now = T0 + 185
    e = chart(sc, "p", now - DAY, now, 300, now, FAR)
    assert (e.tier, e.every_s, e.aggregated) == ("5m", 300, True)
    # the head: the samples at T0-DAY+240 (T0-DAY+185 .. +300), timed at the range's start, then the whole windows
    assert e.points[0] == ((now - DAY) * 1000, 8e6, 8e6, 8e6)
    assert e.points[1][0] == (T0 - DAY + 300) * 1000
    tens = device(port(bps=8e6), every(10, T0 - DAY, T0 + DAY))
    twelve = chart(tens, "p", T0 + 30, T0 + 12 * HOUR + 30, 800, T0 + DAY, FAR)
    assert (twelve.tier, twelve.every_s) == ("raw", 60)  # 43,200 / 796 = 54.3 s: a minute
    assert [p[0] for p in twelve.points[:2]] == [(T0 + 30) * 1000, (T0 + 60) * 1000]


def test_a_reboot_within_the_uptime_slack_of_a_device_just_booted_is_not_seen():
    # Polled 2 s after it booted, rebooted 1 s later: at the next poll sysUpTime grew 57 s of 60, within the 6 s
    # slack (docs/graphs.md: a poll's timing and slow agent clocks are not reboots). 30 s later it would be seen.
    unseen = device(port(bps=8e6), every(60, T0, T0 + 180), reboots=(T0 + 1,), booted=T0 - 2)
    seen = device(port(bps=8e6), every(60, T0, T0 + 180), reboots=(T0 + 30,), booted=T0 - 2)
    assert rates(unseen)["p"][1].reason != "reboot"
    assert rates(seen)["p"][1].reason == "reboot"
