"""The window accumulator's arithmetic and bookkeeping (collectors/rollup.py Windows), each expectation worked out
from the scenario: which windows a run of samples closes and when, what each line holds, how 5-minute windows fold
into their hour, what waits for a write delay, and what its stored form keeps. Plus a property: whatever the
samples, each window's total is Σ rate x span of its samples and an hour is what its samples say."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collectors.lineprotocol import series_key
from collectors.rollup import FIVE, HOUR_WRITE_DELAY_S, Windows, sample_weight, spanned
from collectors.samples import Sample

KEY = "interface,device=1,port=1/g1"
SYS = "system,device=1"
H = 1_800_000_000  # a whole hour, in epoch seconds


def parse(line: str) -> tuple[str, dict[str, float], int]:
    series, fields, stamp = line.rsplit(" ", 2)
    parsed = {}
    for part in fields.split(","):
        name, value = part.split("=")
        parsed[name] = int(value[:-1]) if value.endswith("i") else float(value)
    return series, parsed, int(stamp) // 1000


def lines(out: dict[str, list[str]], tier: str) -> dict[int, dict[str, float]]:
    """{window start: fields} of a tier's lines."""
    return {parse(line)[2]: parse(line)[1] for line in out.get(tier, [])}


def add(
    windows: Windows, t: float, fields: dict, out: dict, interval: float = 60.0, delay: float = 0.0, key: str = KEY
) -> None:
    """One sample of the port's series (or of `key`), of the measurement its key names."""
    windows.add(key, key.split(",", 1)[0], t, fields, interval, out, delay_s=delay)


# --- one window, to the digit ---


def test_minimum_and_maximum_follow_every_sample_whatever_the_order():
    windows, out = Windows(), {}
    for i, value in enumerate((5.0, 9.0, 3.0, 7.0, 1.0, 8.0, 10.0)):  # up, down, between, lowest, highest last
        add(windows, H + 10 * i, {"in_bps": value}, out)
    windows.close_due(H + FIVE, out)
    got = lines(out, "5m")[H]
    assert (got["in_bps_min"], got["in_bps_max"], got["in_bps_sum"], got["in_bps_count"]) == (1.0, 10.0, 43.0, 7)
    assert got["in_bps_mean"] == 43.0 / 7


def test_a_window_of_one_sample_is_that_sample():
    windows, out = Windows(), {}
    add(windows, H + 299, {"in_bps": 6.0, "span_s": 30.0}, out)
    windows.close_due(H + FIVE, out)
    assert lines(out, "5m") == {
        H: {
            "in_bps_min": 6.0,
            "in_bps_max": 6.0,
            "in_bps_sum": 6.0,
            "in_bps_count": 1,
            "in_bps_total": 180.0,
            "in_bps_mean": 6.0,
        }
    }


def test_a_window_totals_the_bytes_each_rate_moved_and_keeps_no_statistics_of_them():
    # 8 bit/s for 60 s is 60 bytes; 2 bit/s whose bytes say 100 (its counter delta) totals 800 bits, not 2 x 60.
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 8.0, "in_bytes": 60.0, "span_s": 60.0}, out)
    add(windows, H + 70, {"in_bps": 2.0, "in_bytes": 100.0, "out_bps": 4.0}, out)  # out_bps: no bytes, no span
    windows.close_due(H + FIVE, out)
    got = lines(out, "5m")[H]
    assert got["in_bps_total"] == 480.0 + 800.0
    assert got["out_bps_total"] == 4.0 * 60  # the time since the previous sample of the series (60 s)
    assert not [name for name in got if name.startswith(("in_bytes", "out_bytes", "span_s"))]


def test_a_measurement_without_totals_keeps_statistics_of_every_float_field_whatever_its_name():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bytes": 3.0, "span_s": 2.0, "state": 1}, out, key=SYS)  # no totals there
    windows.close_due(H + FIVE, out)
    got = lines(out, "5m")[H]
    assert got == {
        "in_bytes_min": 3.0,
        "in_bytes_max": 3.0,
        "in_bytes_sum": 3.0,
        "in_bytes_count": 1,
        "in_bytes_mean": 3.0,
        "span_s_min": 2.0,
        "span_s_max": 2.0,
        "span_s_sum": 2.0,
        "span_s_count": 1,
        "span_s_mean": 2.0,
    }  # no total, and the integer (a state) is not rolled up


def test_values_that_are_not_finite_floats_are_not_accounted():
    windows, out = Windows(), {}
    for i, value in enumerate((float("nan"), float("inf"), -float("inf"), 4, True, 2.5)):
        add(windows, H + i, {"in_bps": value}, out)
    windows.close_due(H + FIVE, out)
    got = lines(out, "5m")[H]
    assert (got["in_bps_count"], got["in_bps_sum"], got["in_bps_total"]) == (1, 2.5, 2.5 * 60)


def test_a_window_with_no_float_sample_writes_nothing():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 7}, out)  # an integer only
    windows.close_due(H + 2 * 3600, out)
    assert out == {} and windows.series == {} and windows.pending == []


def test_a_total_restarts_with_each_window_and_counts_from_the_last_sample_before_it():
    # Samples every 100 s without a span: each counts the 100 s since the one before, across windows too.
    windows, out = Windows(), {}
    for t in (H + 50, H + 150, H + 250, H + 350, H + 450):
        add(windows, t, {"in_bps": 1.0}, out, interval=100.0)
    windows.close_due(H + 2 * FIVE, out)
    assert {t: f["in_bps_total"] for t, f in lines(out, "5m").items()} == {H: 100.0 + 100 + 100, H + FIVE: 200.0}


# --- which windows close, when ---


def test_a_sample_in_a_later_window_closes_the_open_one_at_its_own_start():
    windows, out = Windows(), {}
    add(windows, H + 310, {"in_bps": 1.0}, out)  # opens H + 300
    add(windows, H + 1250, {"in_bps": 2.0}, out)  # closes it, opens H + 1200 (no empty windows between)
    assert list(lines(out, "5m")) == [H + 300]
    assert windows.series[KEY][0] == H + 1200 and windows.series[KEY][1] == H
    windows.close_due(H + 1499, out)
    assert list(lines(out, "5m")) == [H + 300]  # H + 1200 ends at H + 1500: still open
    windows.close_due(H + 1500, out)
    assert list(lines(out, "5m")) == [H + 300, H + 1200]


def test_a_sample_at_a_window_s_end_belongs_to_the_next():
    windows, out = Windows(), {}
    add(windows, H + 299.5, {"in_bps": 1.0}, out)
    add(windows, H + 300, {"in_bps": 2.0}, out)
    assert lines(out, "5m")[H]["in_bps_count"] == 1


def test_an_hour_closes_with_the_first_sample_its_delay_after_its_end():
    windows, out = Windows(), {}
    add(windows, H + 3500, {"in_bps": 4.0}, out)
    add(windows, H + 3600 + HOUR_WRITE_DELAY_S - 1, {"in_bps": 5.0}, out)
    assert "1h" not in out and lines(out, "5m")[H + 3300]["in_bps_count"] == 1
    add(windows, H + 3600 + HOUR_WRITE_DELAY_S, {"in_bps": 6.0}, out)
    assert lines(out, "1h") == {
        H: {"in_bps_min": 4.0, "in_bps_max": 4.0, "in_bps_sum": 4.0, "in_bps_count": 1, "in_bps_total": 240.0}
    }
    assert windows.series[KEY][1] == H + 3600


def test_a_write_delay_moves_the_hour_and_waits_the_window_s_line():
    windows, out = Windows(), {}
    add(windows, H + 3500, {"in_bps": 4.0}, out, delay=60.0)
    add(windows, H + 3600 + HOUR_WRITE_DELAY_S + 59, {"in_bps": 5.0}, out, delay=60.0)
    assert out == {} and windows.pending == [[H + 3600 + 60, parse_back(H + 3300, 4.0)]]
    add(windows, H + 3600 + HOUR_WRITE_DELAY_S + 60, {"in_bps": 6.0}, out, delay=60.0)
    assert list(lines(out, "1h")) == [H] and "5m" not in out  # the hour is written; the window's line still waits
    windows.close_due(H + 3600 + 59, out)
    assert "5m" not in out
    windows.close_due(H + 3600 + 60, out)
    assert list(lines(out, "5m")) == [H + 3300] and windows.pending == []


def parse_back(start: int, value: float) -> str:
    """The 5-minute line of one sample of `value` at 60 s, as written."""
    return (
        f"{KEY} in_bps_min={value!r},in_bps_max={value!r},in_bps_sum={value!r},in_bps_count=1i,"
        f"in_bps_total={value * 60!r},in_bps_mean={value!r} {start * 1000}"
    )


def test_close_due_writes_only_the_waiting_lines_that_are_due_and_keeps_the_rest_in_order():
    windows = Windows(pending=[[100.0, "a"], [300.0, "b"], [200.0, "c"], [200.0, "d"]])
    out: dict[str, list[str]] = {}
    windows.close_due(200.0, out)
    assert out == {"5m": ["a", "c", "d"]} and windows.pending == [[300.0, "b"]]
    windows.close_due(299.0, out)
    assert out == {"5m": ["a", "c", "d"]}


def test_close_due_closes_the_hour_and_forgets_the_series_only_once_the_hour_is_over():
    windows, out = Windows(), {}
    add(windows, H + 3100, {"in_bps": 2.0}, out)
    windows.close_due(H + 3599, out)
    assert list(lines(out, "5m")) == [H + 3000] and "1h" not in out and KEY in windows.series
    windows.close_due(H + 3600, out)
    assert list(lines(out, "1h")) == [H] and KEY not in windows.series


def test_close_due_goes_by_each_series_measurement_for_totals():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 2.0}, out)
    windows.add("interface,device=1,port=2", "interface", H + 10, {"x": 1.0}, 60.0, out)
    windows.close_due(H + 3600, out)
    got = {parse(line)[0]: parse(line)[1] for line in out["1h"]}
    assert got[KEY]["in_bps_total"] == 120.0 and "x_total" not in got["interface,device=1,port=2"]


def test_due_at_is_the_earliest_window_end_or_waiting_line():
    windows = Windows()
    assert windows.due_at() is None
    add(windows, H + 610, {"in_bps": 1.0}, {})
    assert windows.due_at() == H + 900
    windows.pending.append([H + 700.0, "x"])
    assert windows.due_at() == H + 700
    windows.add("interface,device=1,port=0", "interface", H + 10, {"in_bps": 1.0}, 60.0, {})
    assert windows.due_at() == H + 300


# --- an hour is its windows folded ---


def test_an_hour_folds_minima_maxima_sums_counts_and_totals_of_its_windows():
    windows, out = Windows(), {}
    samples = [(H + 10, 5.0), (H + 20, 3.0), (H + 400, 9.0), (H + 410, 1.0), (H + 1000, 4.0), (H + 1010, 6.0)]
    for t, value in samples:
        add(windows, t, {"in_bps": value, "span_s": 10.0}, out)
    windows.close_due(H + 3600, out)
    assert lines(out, "1h")[H] == {
        "in_bps_min": 1.0,
        "in_bps_max": 9.0,
        "in_bps_sum": 28.0,
        "in_bps_count": 6,
        "in_bps_total": 280.0,
    }
    assert len(out["5m"]) == 3


def test_an_hour_of_windows_rising_then_falling_keeps_its_extremes():
    windows, out = Windows(), {}
    for i, value in enumerate((2.0, 8.0, 1.0, 9.0, 5.0)):
        add(windows, H + 300 * i + 10, {"in_bps": value}, out)
    windows.close_due(H + 3600, out)
    got = lines(out, "1h")[H]
    assert (got["in_bps_min"], got["in_bps_max"], got["in_bps_count"]) == (1.0, 9.0, 5)


def test_a_window_of_a_new_hour_closes_the_old_hour_first():
    # Polled every 30 minutes: the window at H + 3,300 closes when the next sample (H + 5,100) comes, which is past
    # the hour's delay, so the hour H goes (holding both windows); the window of H + 3,600's hour folds afresh.
    windows, out = Windows(), {}
    for t, value in ((H + 1500, 1.0), (H + 3300, 2.0), (H + 3700, 7.0), (H + 5500, 3.0)):
        add(windows, t, {"in_bps": value, "span_s": 1.0}, out, interval=1800.0)
    assert lines(out, "1h") == {
        H: {"in_bps_min": 1.0, "in_bps_max": 2.0, "in_bps_sum": 3.0, "in_bps_count": 2, "in_bps_total": 3.0}
    }
    windows.close_due(H + 3 * 3600, out)
    assert lines(out, "1h")[H + 3600] == {
        "in_bps_min": 3.0,
        "in_bps_max": 7.0,
        "in_bps_sum": 10.0,
        "in_bps_count": 2,
        "in_bps_total": 10.0,
    }


def test_a_field_seen_only_in_a_later_window_starts_its_hour_there():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 1.0}, out)
    add(windows, H + 310, {"in_bps": 1.0, "out_bps": 6.0}, out)
    add(windows, H + 610, {"in_bps": 1.0, "out_bps": 2.0}, out)
    windows.close_due(H + 3600, out)
    got = lines(out, "1h")[H]
    assert (got["out_bps_min"], got["out_bps_max"], got["out_bps_sum"], got["out_bps_count"]) == (2.0, 6.0, 8.0, 2)
    assert got["out_bps_total"] == 6.0 * 60 + 2.0 * 60  # one interval each: the first, and after 300 s (a gap at 60 s)


# --- the stored form ---


def test_the_stored_form_keeps_open_windows_hours_and_waiting_lines():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 1.0}, out, delay=60.0)
    add(windows, H + 310, {"in_bps": 2.0}, out, delay=60.0)
    raw = orjson.loads(orjson.dumps(windows.to_raw()))
    assert set(raw) == {"five", "hours", "pending"} and raw["pending"] == windows.pending
    back = Windows.from_raw(raw)
    assert back.series == windows.series and back.pending == windows.pending
    assert back.hours == windows.hours and back.hours[KEY]["in_bps"][3] == 1
    assert "pending" not in Windows().to_raw() and Windows().to_raw() == {"five": {}, "hours": "{}"}


def test_hours_stay_their_stored_text_until_needed():
    raw = {"five": {}, "hours": '{"k": {"f": [1.0, 2.0, 3.0, 2, 0.0]}}'}
    windows = Windows.from_raw(raw)
    assert windows.to_raw()["hours"] == raw["hours"]  # untouched: written back as it was read
    assert windows.hours == {"k": {"f": [1.0, 2.0, 3.0, 2, 0.0]}}
    assert Windows.from_raw({"five": {}}).hours == {}


@pytest.mark.parametrize(
    "raw",
    [
        None,
        {"hours": ""},
        {"five": [], "hours": ""},
        {"five": {}, "hours": 1},
        {"five": {1: [0.0, 0.0, {}]}},
        {"five": {"k": (0.0, 0.0, {})}},
        {"five": {"k": [0.0, 0.0]}},
        {"five": {"k": [0.0, 0.0, {}, 1]}},
        {"five": {"k": [0.0, 0.0, []]}},
        {"five": {"k": [0.0, 0.0, {"f": (1.0, 1.0, 1.0, 1)}]}},
        {"five": {"k": [0.0, 0.0, {"f": [1.0, 1.0, 1.0]}]}},
        {"five": {"k": [0.0, 0.0, {"f": [1.0, 1.0, 1.0, 1, 0.0]}]}},
    ],
)
def test_malformed_open_windows_start_afresh(raw):
    got = Windows.from_raw(raw)
    assert got.series == {} and got.pending == [] and got.hours == {}


@pytest.mark.parametrize("acc", [[1.0, 1.0, 1.0, 1], [1.0, 1.0, 1.0, 1, 0.0, None]])
def test_well_formed_open_windows_are_kept(acc):
    raw = {"five": {"k": [0.0, 0.0, {"f": acc}]}, "pending": [[1, "x"], [2.5, "y"]]}
    got = Windows.from_raw(raw)
    assert got.series == raw["five"] and got.pending == [[1, "x"], [2.5, "y"]]


@pytest.mark.parametrize("pending", [{}, [[1, "x"], ["1", "y"]], [[1, 2]], [[1, "x", 3]], [(1, "x")], [None]])
def test_malformed_waiting_lines_are_dropped_and_the_open_windows_kept(pending):
    raw = {"five": {"k": [0.0, 0.0, {}]}, "hours": "", "pending": pending}
    got = Windows.from_raw(raw)
    assert got.series == {"k": [0.0, 0.0, {}]} and got.pending == []


@pytest.mark.parametrize("text", ["[1]", '{"k": [1]}', '{"k": {"f": [1, 2]}}', '{"k": {"f": 3}}', "{oops"])
def test_malformed_hours_start_afresh(text):
    assert Windows.from_raw({"five": {}, "hours": text}).hours == {}


def test_spanned_adds_a_made_up_poll_s_span_and_bytes():
    assert spanned({"in_bps": 800.0, "out_bps": 80.0, "speed_bps": 10}, 60.0) == {
        "in_bps": 800.0,
        "out_bps": 80.0,
        "speed_bps": 10,
        "span_s": 60.0,
        "in_bytes": 6000.0,
        "out_bytes": 600.0,
    }
    fields = {"cpu_util": 3.0}
    assert spanned(fields, 60) == fields and spanned(fields, 60) is not fields


# --- whatever the samples ---

SAMPLES = st.lists(
    st.tuples(
        st.integers(1, 1300),  # seconds since the sample before
        st.integers(0, 10**6),  # its rate: whole numbers, so every sum is exact in any order
        st.integers(1, 1500),  # its span
        st.sampled_from(["span", "bytes", "both"]),  # what the poller wrote beside it
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(SAMPLES, st.sampled_from([10.0, 60.0, 300.0]), st.sampled_from([0.0, 60.0]), st.booleans())
def test_each_window_totals_rate_x_span_and_each_hour_is_its_samples(samples, interval, delay, stored):
    windows, out, t, kept = Windows(), {}, float(H + 7), []
    for step, rate, span, written in samples:
        t += step
        fields = {"in_bps": float(rate)}
        if written != "bytes":
            fields["span_s"] = float(span)
        if written != "span":
            fields["in_bytes"] = float(rate * span) / 8  # exact: the rate is whole, 8 divides into a power of two
        windows.add(KEY, "interface", t, fields, interval, out, delay_s=delay)
        if stored:  # as between polls: the state goes through Redis as JSON
            windows = Windows.from_raw(orjson.loads(orjson.dumps(windows.to_raw())))
        kept.append((t, float(rate), float(rate * span)))
    windows.close_due(t + 3 * 3600, out)
    for tier, step in (("5m", 300), ("1h", 3600)):
        expected: dict[int, list] = {}
        for moment, rate, moved in kept:
            expected.setdefault(int(moment - moment % step), []).append((rate, moved))
        got = lines(out, tier)
        assert sorted(got) == sorted(expected) and len(out[tier]) == len(expected)
        for start, rows in expected.items():
            rates = [rate for rate, _ in rows]
            want = {
                "in_bps_min": min(rates),
                "in_bps_max": max(rates),
                "in_bps_sum": sum(rates),
                "in_bps_count": len(rates),
                "in_bps_total": sum(moved for _, moved in rows),
            }
            if tier == "5m":
                want["in_bps_mean"] = sum(rates) / len(rates)
            assert got[start] == want, (tier, start)
    assert windows.series == {} and windows.pending == []


# --- what a poll writes, through take ---


def poll(windows: Windows, t: float, fields: dict | None, delay: float = 0.0) -> dict[str, list[str]]:
    """One poll at `t` through take (as the pollers call it): its port sample, or none (a failed poll)."""
    samples = [Sample("interface", {"device": "1", "port": "1/g1"}, fields, t)] if fields else []
    return windows.take(samples, 60.0, t, series_key, delay_s=delay)


def test_a_poll_at_a_window_s_end_writes_that_window_with_its_total_at_once():
    windows = Windows()
    assert poll(windows, H + 240, {"in_bps": 2.0, "span_s": 60.0}) == {}
    sample = Sample("interface", {"device": "1", "port": "1/g1"}, {"in_bps": 3.0, "span_s": 60.0}, H + 300)
    out = windows.take([sample], 60.0, H + 300, series_key)  # no write delay said: none
    assert lines(out, "5m") == {
        H: {
            "in_bps_min": 2.0,
            "in_bps_max": 2.0,
            "in_bps_sum": 2.0,
            "in_bps_count": 1,
            "in_bps_total": 120.0,
            "in_bps_mean": 2.0,
        }
    }


def test_a_failed_poll_after_a_window_s_end_closes_it_and_a_delay_makes_its_line_wait():
    for delay, at_once in ((0.0, True), (60.0, False)):
        windows = Windows()
        poll(windows, H + 10, {"in_bps": 2.0}, delay)
        out = poll(windows, H + 310, None, delay)  # nobody answered: no sample, the window is over
        assert ("5m" in out) is at_once, delay
        if not at_once:
            assert [due for due, _ in windows.pending] == [H + 360]
            assert lines(poll(windows, H + 360, None, delay), "5m")[H]["in_bps_count"] == 1


def test_close_due_with_a_delay_keeps_the_line_until_the_delay_has_passed():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 1.0}, out, delay=60.0)
    windows.close_due(H + 300, out, delay_s=60.0)
    assert out == {} and [due for due, _ in windows.pending] == [H + 360]
    windows.close_due(H + 360, out, delay_s=60.0)
    assert list(lines(out, "5m")) == [H]


def test_a_sample_back_within_the_open_window_still_counts_there():
    windows, out = Windows(), {}
    add(windows, H + 310, {"in_bps": 1.0}, out)
    add(windows, H + 300, {"in_bps": 5.0}, out)  # the clock stepped back 10 s, still in the open window
    windows.close_due(H + 600, out)
    assert lines(out, "5m")[H + 300]["in_bps_count"] == 2


def test_a_state_field_before_the_rates_does_not_hide_them():
    windows, out = Windows(), {}
    add(windows, H + 10, {"speed_bps": 10, "oper_up": 1, "in_bps": 4.0, "in_bytes": 30.0, "out_bps": 2.0}, out)
    windows.close_due(H + 300, out)
    got = lines(out, "5m")[H]
    assert (got["in_bps_total"], got["out_bps_total"]) == (240.0, 120.0)


def test_a_late_poll_counts_its_own_longer_interval_and_an_early_one_its_shorter():
    # Without spans, polled every 60 s: 90 s since the sample before (late), then 30 s (early), then 0.5 s.
    windows, out = Windows(), {}
    for t in (H + 10, H + 100, H + 130, H + 130.5):
        add(windows, t, {"in_bps": 2.0}, out)
    windows.close_due(H + 300, out)
    assert lines(out, "5m")[H]["in_bps_total"] == 2.0 * (60 + 90 + 30 + 0.5)
    assert sample_weight(1000.5, 1000.0, 60.0) == 0.5


def test_a_field_missing_from_a_later_window_does_not_stop_the_others_folding():
    windows, out = Windows(), {}
    add(windows, H + 10, {"in_bps": 1.0, "out_bps": 3.0}, out)
    add(windows, H + 310, {"out_bps": 5.0}, out)  # in_bps (first in the window's fields) has no sample here
    windows.close_due(H + 3600, out)
    got = lines(out, "1h")[H]
    assert (got["in_bps_count"], got["out_bps_count"], got["out_bps_sum"]) == (1, 2, 8.0)


def test_a_field_without_a_total_keeps_four_numbers_in_its_open_window():
    windows = Windows()
    add(windows, H + 10, {"in_bps": 1.0}, {})
    add(windows, H + 10, {"cpu_util": 3.0}, {}, key=SYS)
    assert windows.series[SYS][2]["cpu_util"] == [3.0, 3.0, 3.0, 1]
    assert windows.series[KEY][2]["in_bps"] == [1.0, 1.0, 1.0, 1, 60.0, H + 10]


def test_hours_that_are_not_text_refuse_the_whole_stored_form():
    assert Windows.from_raw({"five": {"k": [0.0, 0.0, {}]}, "hours": 1}).series == {}
    assert Windows.from_raw({"five": {"k": [0.0, 0.0, {}]}}).series == {"k": [0.0, 0.0, {}]}


def test_a_total_of_a_field_without_bytes_counts_rate_x_span():
    # Totals asked of a rate the poller writes no bytes for (a volume's read_bps): each sample for its span.
    windows, out = Windows(), {}
    for t, value, span in ((H + 10, 3.0, 60.0), (H + 70, 5.0, 20.0)):
        windows.add(
            "volume,device=1,volume=v",
            "volume",
            t,
            {"read_bps": value, "span_s": span},
            60.0,
            out,
            {"volume": frozenset({"read_bps"})},
        )
    windows.close_due(H + 300, out, {"volume": frozenset({"read_bps"})})
    assert lines(out, "5m")[H]["read_bps_total"] == 3.0 * 60 + 5.0 * 20
