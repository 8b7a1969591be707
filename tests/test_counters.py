"""Rate maths: 64-bit counters, 32-bit wraps, resets, reboots, jumps above line rate, missing samples."""

import pytest

from collectors.counters import WRAP_32, Reading, counter_rate

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
