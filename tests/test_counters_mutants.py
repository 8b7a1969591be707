"""Rate maths at the edges mutation testing found unguarded (issue 44): an idle counter, a clock that stepped back,
readings under a second apart, and an interval that holds exactly one whole wrap at line rate."""

from collectors.counters import RESET, TOO_LONG, WRAP_32, Reading, counter_rate

GIGABIT_BYTES = 1_000_000_000 / 8


def test_an_idle_counter_is_a_rate_of_zero_not_a_reset_nor_a_wrap():
    # Nothing moved for 30 s: 0 bytes in 30 s is 0 B/s, whatever the width (a wrap would be 2^32 in 30 s; 30 s at
    # 1 Gbit/s is 3.75 GB, under one wrap, so a gigabit Counter32 is readable over it).
    for bits in (64, 32):
        for bound in ({}, {"max_per_second": GIGABIT_BYTES}):
            assert counter_rate(Reading(7_000, bits, 0.0), Reading(7_000, bits, 30.0), **bound) == (0.0, "ok")
    # An idle Counter32 parked at its top value and at zero is idle too.
    assert counter_rate(Reading(WRAP_32 - 1, 32, 0.0), Reading(WRAP_32 - 1, 32, 60.0)) == (0.0, "ok")
    assert counter_rate(Reading(0, 32, 0.0), Reading(0, 32, 60.0)) == (0.0, "ok")
    # One byte back is not idle: a reset on a 64-bit counter.
    assert counter_rate(Reading(7_000, 64, 0.0), Reading(6_999, 64, 60.0)) == RESET


def test_a_clock_that_stepped_back_or_stood_still_gives_no_rate_and_says_why():
    for later_at in (100.0, 90.0, -5.0):  # the same instant, 10 s earlier, before the epoch
        rate = counter_rate(Reading(1_000, 64, 100.0), Reading(2_000, 64, later_at))
        assert rate == (None, "no time elapsed")


def test_readings_under_a_second_apart_give_a_rate_when_no_minimum_interval_is_asked():
    # A caller that does not know the poll interval asks for no minimum: 1,000 bytes in 0.5 s is 2,000 B/s.
    assert counter_rate(Reading(0, 64, 10.0), Reading(1_000, 64, 10.5)) == (2_000.0, "ok")
    assert counter_rate(Reading(0, 32, 10.0), Reading(1_000, 32, 11.0)) == (1_000.0, "ok")  # exactly 1 s
    # Across a Counter32 wrap as well: 100 below the top, 400 after it, 500 bytes in 0.25 s.
    assert counter_rate(Reading(WRAP_32 - 100, 32, 10.0), Reading(400, 32, 10.25)) == (2_000.0, "32-bit wrap")


def test_an_interval_that_holds_exactly_one_whole_wrap_at_line_rate_is_a_gap_not_idle():
    # A port whose line rate is 2^26 B/s (536.9 Mbit/s), polled 64 s apart: at line rate it moves 2^26 x 64 = 2^32
    # bytes, one whole wrap, and its Counter32 then reads the same value as an idle one. Nothing tells the two apart.
    line_rate = 2**26
    assert line_rate * 64 == WRAP_32
    for moved in (0, WRAP_32):  # idle, or a whole wrap at line rate: the same two readings
        current = Reading((1_000 + moved) % WRAP_32, 32, 64.0)
        assert counter_rate(Reading(1_000, 32, 0.0), current, max_per_second=line_rate) == TOO_LONG
    # A microsecond shorter and a whole wrap no longer fits: idle is idle.
    rate = counter_rate(Reading(1_000, 32, 0.0), Reading(1_000, 32, 63.999999), max_per_second=line_rate)
    assert rate == (0.0, "ok")
