"""Rate maths: 64-bit counters, 32-bit wraps, resets, reboots, jumps above line rate, missing samples, intervals
too long for 32 bits or too short for any rate, counters of unknown width or speed, reboots seen only in
sysUpTime."""

import pytest

from collectors.counters import (
    COUNTER32_MAX_PER_SECOND,
    RESET,
    TOO_LONG,
    TOO_SOON,
    UNKNOWN_WIDTH,
    WRAP_32,
    Reading,
    counter_rate,
    min_rate_interval,
)
from collectors.poll import _rebooted
from collectors.samples import CounterState

GIGABIT_BYTES = 1_000_000_000 / 8


def test_64_bit_counter_gives_exact_rate():
    rate = counter_rate(
        Reading(10_000_000_000, 64, 100.0),
        Reading(10_000_000_000 + 60 * 5_000_000, 64, 160.0),
        max_per_second=GIGABIT_BYTES,
    )
    assert rate.per_second == pytest.approx(5_000_000)
    assert rate.reason == "ok"


def test_32_bit_wrap_within_line_rate_is_counted():
    before = WRAP_32 - 1_000_000
    after = 2_000_000  # 3,000,000 bytes moved across the wrap in 10 s
    rate = counter_rate(Reading(before, 32, 0.0), Reading(after, 32, 10.0), max_per_second=GIGABIT_BYTES)
    assert rate.per_second == pytest.approx(300_000)
    assert rate.reason == "32-bit wrap"


def test_32_bit_backwards_beyond_line_rate_is_a_reset_not_a_spike():
    # A 100 Mbit/s port cannot move 4 GB in 60 s: the counter was reset, not wrapped.
    rate = counter_rate(Reading(1_000, 32, 0.0), Reading(500, 32, 60.0), max_per_second=100_000_000 / 8)
    assert rate.per_second is None
    assert rate.reason == "counter reset"


def test_64_bit_counter_going_backwards_is_a_reset():
    rate = counter_rate(Reading(5_000_000, 64, 0.0), Reading(1_000, 64, 60.0), max_per_second=GIGABIT_BYTES)
    assert rate.per_second is None
    assert rate.reason == "counter reset"


def test_reboot_gives_a_gap_even_when_the_counter_grew():
    rate = counter_rate(Reading(1_000, 64, 0.0), Reading(2_000, 64, 60.0), rebooted=True)
    assert rate.per_second is None
    assert rate.reason == "device rebooted"


def test_jump_above_line_rate_is_dropped():
    # 1 GB in 10 s on a gigabit port is 800 Mbit/s... 10 GB is not possible.
    rate = counter_rate(Reading(0, 64, 0.0), Reading(10_000_000_000, 64, 10.0), max_per_second=GIGABIT_BYTES)
    assert rate.per_second is None
    assert rate.reason == "above line rate"


def test_full_line_rate_with_timing_jitter_is_kept():
    rate = counter_rate(Reading(0, 64, 0.0), Reading(int(GIGABIT_BYTES * 10.5), 64, 10.0), max_per_second=GIGABIT_BYTES)
    assert rate.per_second == pytest.approx(GIGABIT_BYTES * 1.05)


def test_missing_previous_sample_gives_no_rate():
    rate = counter_rate(None, Reading(123, 64, 10.0), max_per_second=GIGABIT_BYTES)
    assert rate.per_second is None
    assert rate.reason == "first sample"


def test_no_elapsed_time_gives_no_rate():
    assert counter_rate(Reading(1, 64, 10.0), Reading(2, 64, 10.0)).per_second is None


def test_counter_width_change_gives_a_gap():
    # The device switched from 32-bit to 64-bit counters (for example after a firmware upgrade).
    rate = counter_rate(Reading(100, 32, 0.0), Reading(200, 64, 10.0))
    assert rate.per_second is None


def test_32_bit_wrap_without_known_speed_is_trusted_when_no_reboot():
    rate = counter_rate(Reading(WRAP_32 - 10, 32, 0.0), Reading(90, 32, 10.0))
    assert rate.per_second == pytest.approx(10.0)


def test_a_counter32_reset_without_a_line_rate_is_a_gap_not_a_wrap_of_71_million_a_second():
    # A statistics reset from 5,000 to 1,000, 60 s apart: read as a wrap it moved 2^32 - 4,000 in 60 s.
    wrapped = (1_000 - 5_000) % WRAP_32 / 60
    assert wrapped == pytest.approx(71_582_721.6) and wrapped > COUNTER32_MAX_PER_SECOND * 1.1
    assert counter_rate(Reading(5_000, 32, 0.0), Reading(1_000, 32, 60.0)) == RESET
    # A wrap within what 32 bits are read at is one: 1,000 to the top, 3,000 after it.
    assert counter_rate(Reading(WRAP_32 - 1_000, 32, 0.0), Reading(3_000, 32, 60.0)) == (4_000 / 60, "32-bit wrap")
    # At that bound exactly (with the line-rate tolerance) a wrap still counts; above it, a reset.
    most = int(COUNTER32_MAX_PER_SECOND * 1.1 * 60)
    assert counter_rate(Reading(WRAP_32 - 1_000, 32, 0.0), Reading(most - 1_000, 32, 60.0)).per_second == most / 60
    assert counter_rate(Reading(WRAP_32 - 1_000, 32, 0.0), Reading(most, 32, 60.0)) == RESET


def test_a_number_of_unknown_width_going_back_is_a_reset_never_a_wrap():
    # A counter served as a string or a Gauge: nothing says it wraps at 2^32 (or at all), so back is a reset.
    for before, after in ((5_000, 1_000), (WRAP_32 - 10, 90), (2**40, 5)):
        assert counter_rate(Reading(before, UNKNOWN_WIDTH, 0.0), Reading(after, UNKNOWN_WIDTH, 60.0)) == RESET
    rate = counter_rate(Reading(5_000, UNKNOWN_WIDTH, 0.0), Reading(6_000, UNKNOWN_WIDTH, 60.0))
    assert rate == (1_000 / 60, "ok")
    # Not 32 bits either for the interval: any width, so no wrap can hide in it and no interval is too long.
    rate = counter_rate(Reading(0, UNKNOWN_WIDTH, 0.0), Reading(10**13, UNKNOWN_WIDTH, 3_600.0))
    assert rate == (10**13 / 3_600, "ok")
    assert counter_rate(Reading(5_000, 32, 0.0), Reading(6_000, UNKNOWN_WIDTH, 60.0)).reason == "counter width changed"


def test_32_bit_counter_over_300_s_at_400_mbit_s_on_a_gigabit_port_is_a_gap_not_56_mbit_s():
    # 15 GB in 300 s is 3.49 wraps of 2^32; what is left modulo 2^32 would read as 56.4 Mbit/s.
    moved = 400_000_000 // 8 * 300
    for start in (1_000, WRAP_32 - 1_000_000_000):  # the delta modulo 2^32 positive, then negative
        current = Reading((start + moved) % WRAP_32, 32, 300.0)
        rate = counter_rate(Reading(start, 32, 0.0), current, max_per_second=GIGABIT_BYTES)
        assert rate == (None, "interval too long for a 32-bit counter")
    # The same counter without a line rate (a profile's Counter32, a port of unknown speed) is read up to
    # COUNTER32_MAX_PER_SECOND, RFC 2863's 20 Mbit/s: 300 s hold 750 MB of it, one wrap at most, so what the
    # counter shows moved is taken as all that moved, and 56.4 Mbit/s is more than 32 bits are read at: a gap.
    left = moved % WRAP_32
    assert COUNTER32_MAX_PER_SECOND * 300 < WRAP_32 and left / 300 > COUNTER32_MAX_PER_SECOND * 1.1
    assert left * 8 / 300 == pytest.approx(56_402_616.32)  # the alias that was written as traffic
    unknown_speed = {"max_per_second": 1e12 / 8, "ceiling_only": True}
    for bound in ({}, unknown_speed):
        rate = counter_rate(Reading(1_000, 32, 0.0), Reading(1_000 + left, 32, 300.0), **bound)
        assert rate == (None, "faster than a 32-bit counter of unknown speed can be read")
        start = WRAP_32 - 1_000_000_000  # the same delta across a wrap: a wrap too fast to be one
        assert counter_rate(Reading(start, 32, 0.0), Reading(start + left - WRAP_32, 32, 300.0), **bound) == RESET


def test_32_bit_interval_is_readable_up_to_one_wrap_at_line_rate():
    # At 1 Gbit/s a 32-bit counter can wrap in 2^32 / 125 MB/s = 34.36 s: up to then one wrap at most.
    moved = 100_000_000 * 34  # 800 Mbit/s for 34 s
    rate = counter_rate(Reading(0, 32, 0.0), Reading(moved, 32, 34.0), max_per_second=GIGABIT_BYTES)
    assert rate == (100_000_000, "ok")
    rate = counter_rate(Reading(0, 32, 0.0), Reading(moved, 32, 34.4), max_per_second=GIGABIT_BYTES)
    assert rate.reason == "interval too long for a 32-bit counter"
    rate = counter_rate(Reading(0, 64, 0.0), Reading(moved * 10, 64, 340.0), max_per_second=GIGABIT_BYTES)
    assert rate == (100_000_000, "ok")  # 64 bits: no such limit
    # A port of unknown speed: 1 Tbit/s only bounds it, and its 32-bit counters are read as RFC 2863 allows them:
    # up to 20 Mbit/s (2.5 MB/s), one wrap at most in 2^32 / 2.5 MB/s = 1,717.99 s.
    unknown_speed = {"max_per_second": 1e12 / 8, "ceiling_only": True}
    rate = counter_rate(Reading(0, 32, 0.0), Reading(moved, 32, 34.4), **unknown_speed)
    assert rate == (None, "faster than a 32-bit counter of unknown speed can be read")  # 800 Mbit/s
    slow = 2_000_000  # 16 Mbit/s for 1,717 s: 3.4 GB, within 2^32
    assert counter_rate(Reading(0, 32, 0.0), Reading(slow * 1_717, 32, 1_717.0), **unknown_speed) == (slow, "ok")
    assert counter_rate(Reading(0, 32, 0.0), Reading(slow * 1_718, 32, 1_718.0), **unknown_speed) == TOO_LONG
    assert 2.5e6 * 1_717 < WRAP_32 <= 2.5e6 * 1_718
    rate = counter_rate(Reading(0, 64, 0.0), Reading(moved, 64, 34.4), **unknown_speed)
    assert rate.per_second == pytest.approx(moved / 34.4)  # 64 bits: no such limit


def test_readings_closer_than_the_minimum_interval_give_no_rate():
    assert (min_rate_interval(None), min_rate_interval(5), min_rate_interval(60), min_rate_interval(300)) == (
        0.0,
        2.5,
        10.0,
        10.0,
    )
    before = Reading(1_000, 64, 100.0)
    assert counter_rate(before, Reading(1_200, 64, 102.0), min_interval=10.0) is TOO_SOON
    assert counter_rate(before, Reading(11_000, 64, 110.0), min_interval=10.0) == (1_000.0, "ok")
    assert counter_rate(before, Reading(1_200, 64, 102.0)) == (100.0, "ok")  # no interval given: any
    assert counter_rate(before, Reading(5, 64, 102.0), min_interval=10.0, rebooted=True).reason == "device rebooted"


HOUR_TICKS = 360_000  # sysUpTime counts hundredths of a second


def test_uptime_of_1_h_after_3_h_without_a_poll_is_a_reboot():
    polled = CounterState(uptime_ticks=HOUR_TICKS // 2, taken_at=1_000_000.0)  # up 30 minutes then
    assert _rebooted(polled, HOUR_TICKS, 1_000_000.0 + 3 * 3600)  # uptime went up, but by 30 min in 3 h
    assert not _rebooted(polled, HOUR_TICKS // 2 + 3 * HOUR_TICKS, 1_000_000.0 + 3 * 3600)  # up 3 h 30 min: no
    # 10 % of the elapsed time (at least 5 s) of slack for clocks and slow answers.
    assert not _rebooted(polled, HOUR_TICKS // 2 + 3 * HOUR_TICKS - 1_000 * 100, 1_000_000.0 + 3 * 3600)
    assert _rebooted(polled, HOUR_TICKS // 2 + 3 * HOUR_TICKS - 1_100 * 100, 1_000_000.0 + 3 * 3600)
    assert not _rebooted(polled, HOUR_TICKS // 2 + 55 * 100, 1_000_000.0 + 60)  # 60 s: 6 s of slack
    assert _rebooted(polled, HOUR_TICKS // 2 + 53 * 100, 1_000_000.0 + 60)


def test_uptime_going_back_is_a_reboot_but_not_the_497_day_wrap():
    polled = CounterState(uptime_ticks=2**32 - 3_000, taken_at=1_000_000.0)  # 30 s before TimeTicks wrap
    assert not _rebooted(polled, 3_000, 1_000_000.0 + 60)  # wrapped 30 s ago: 60 s later, as expected
    assert _rebooted(polled, 3_000, 1_000_000.0 + 3600)  # wrapped, but 59 minutes short
    assert _rebooted(CounterState(uptime_ticks=HOUR_TICKS, taken_at=1_000_000.0), 500, 1_000_000.0 + 60)
