"""The window accumulator on its own: what a closed 5-minute and 1-hour window says, to the last digit."""

from __future__ import annotations

import orjson
import pytest

from collectors.lineprotocol import series_key
from collectors.rollup import (
    HOUR_WRITE_DELAY_S,
    SPREAD_S,
    WRITE_SLACK_S,
    Windows,
    begun_by_s,
    sample_weight,
    write_delay_s,
    written_by_s,
)
from collectors.samples import CounterState, Sample

KEY = "interface,device=1,port=1/g1"
HOUR = 1_800_000_000  # a whole hour, in epoch seconds


def fields_of(line: str) -> tuple[str, dict[str, float], int]:
    series, fields, stamp = line.rsplit(" ", 2)
    parsed = {}
    for part in fields.split(","):
        name, value = part.split("=")
        parsed[name] = int(value[:-1]) if value.endswith("i") else float(value)
    return series, parsed, int(stamp)


def feed(
    windows: Windows, points: list[tuple[float, float]], interval: float = 60.0, out: dict | None = None
) -> dict[str, list[str]]:
    out = {} if out is None else out
    for t, value in points:
        windows.add(KEY, "interface", t, {"in_bps": value, "speed_bps": 10}, interval, out)
    return out


def test_a_closed_window_holds_min_max_sum_count_mean_and_total():
    windows = Windows()
    out = feed(windows, [(HOUR + 10, 4.0), (HOUR + 70, 1.0), (HOUR + 130, 7.0), (HOUR + 300, 2.0)])
    (line,) = out["5m"]  # the sample at HOUR + 300 opened the next window and closed this one
    series, stats, stamp = fields_of(line)
    assert series == KEY and stamp == HOUR * 1000
    assert stats == {
        "in_bps_min": 1.0,
        "in_bps_max": 7.0,
        "in_bps_sum": 12.0,
        "in_bps_count": 3,
        "in_bps_total": 4.0 * 60 + 1.0 * 60 + 7.0 * 60,  # the first sample stands for one interval
        "in_bps_mean": 4.0,
    }
    assert "speed_bps_min" not in stats  # integers are states, not rolled up


def test_a_window_totals_each_sample_for_its_span_and_keeps_no_statistics_of_the_span():
    # Polled every 300 s: the answer after three unanswered polls spans 1,200 s, the next one 300 s.
    windows, out = Windows(), {}
    for t, value, span in ((HOUR + 100, 8.0, 300.0), (HOUR + 1300, 4.0, 1200.0), (HOUR + 1600, 2.0, 300.0)):
        windows.add(KEY, "interface", t, {"in_bps": value, "span_s": span}, 300.0, out)
    windows.close_due(HOUR + 3600, out)
    totals = [fields_of(line)[1]["in_bps_total"] for line in out["5m"]]
    assert totals == [8.0 * 300, 4.0 * 1200, 2.0 * 300]
    assert not [name for line in out["5m"] + out["1h"] for name in fields_of(line)[1] if name.startswith("span_s")]
    assert fields_of(out["1h"][0])[1]["in_bps_total"] == 2400.0 + 4800.0 + 600.0


def test_an_hour_is_exactly_its_windows_whatever_their_sample_counts():
    windows = Windows()
    points = [(HOUR + 10 * i, 100.0) for i in range(30)] + [(HOUR + 300 + 300 * i, 0.0) for i in range(11)]
    out = feed(windows, points)
    windows.close_due(HOUR + 3600, out)
    (hour,) = out["1h"]
    _, stats, stamp = fields_of(hour)
    assert stamp == HOUR * 1000 and stats["in_bps_count"] == 41
    assert stats["in_bps_sum"] / stats["in_bps_count"] == pytest.approx(3000 / 41)  # not the mean of 12 means
    assert (stats["in_bps_min"], stats["in_bps_max"]) == (0.0, 100.0)
    assert len(out["5m"]) == 12 and "in_bps_mean" not in stats  # hourly windows keep no mean


def test_an_hour_is_written_by_the_first_poll_its_delay_after_its_end_not_with_the_windows_closed_at_the_hour():
    """At the hour every series' last 5-minute window is written; its hour comes a poll or three later, whole."""
    windows = Windows()
    out = feed(windows, [(HOUR + 30 + 60 * i, float(i)) for i in range(60)])  # one poll a minute, phase 30 s
    assert len(out["5m"]) == 11 and "1h" not in out  # the hour's last window is still open
    polls = [HOUR + 3600 + 30 + 60 * i for i in range(5)]
    for t in polls:
        closed = feed(windows, [(t, 1000.0)])
        if t < HOUR + 3600 + HOUR_WRITE_DELAY_S:
            assert "1h" not in closed, t  # the poll at the hour writes the hour's last 5-minute window only
            assert len(closed.get("5m", ())) == (1 if t == polls[0] else 0)
        else:
            written_at = t
            break
    assert written_at == polls[2]  # the first poll at least 150 s after the hour (its third)
    (hour,) = closed["1h"]
    _, stats, stamp = fields_of(hour)
    assert stamp == HOUR * 1000  # the hour before, not the one the samples since it are in
    assert (stats["in_bps_count"], stats["in_bps_sum"], stats["in_bps_max"]) == (60, sum(range(60)), 59.0)
    windows.close_due(HOUR + 2 * 3600, out := {})
    (next_hour,) = out["1h"]
    _, stats, stamp = fields_of(next_hour)
    assert stamp == (HOUR + 3600) * 1000 and (stats["in_bps_count"], stats["in_bps_min"]) == (3, 1000.0)


def test_an_hour_waiting_for_its_delay_is_written_when_the_next_hour_closes_a_window_first():
    """A device polled every 5 minutes may close a window of the next hour before the delay: the hour goes first."""
    windows = Windows()
    out = feed(windows, [(HOUR + 60 + 300 * i, 10.0) for i in range(12)], interval=300)
    feed(windows, [(HOUR + 3600 + 60, 20.0)], interval=300, out=out)  # closes 55-60, before the delay
    assert "1h" not in out
    feed(windows, [(HOUR + 3600 + 360, 30.0)], interval=300, out=out)  # past the delay: the hour is due
    (hour,) = out["1h"]
    _, stats, stamp = fields_of(hour)
    assert stamp == HOUR * 1000 and (stats["in_bps_count"], stats["in_bps_max"]) == (12, 10.0)


@pytest.mark.parametrize("interval", [30, 60, 120, 180, 300, 600, 900])
def test_pages_count_a_window_as_written_only_once_every_device_polled_so_has_written_it(interval):
    """Devices polled every `interval` s at every phase, writing at once or a minute late: the poll that writes
    each 5-minute window and hour (the accumulator's own choice, its state kept in JSON between polls as in Redis)
    begins by collectors/rollup.py's begun_by_s after the window's end, and pages count it as written
    (monitor/timeseries/cache.py seen_after_s) only once that poll's lines are in InfluxDB (WRITE_SLACK_S later),
    at the moment pages move on (3 minutes past a 5-minute boundary), and no later than the first such moment."""
    from monitor.timeseries import cache

    latest = {300: 0.0, 3600: 0.0}
    for phase in range(0, interval, max(5, interval // 12)):
        for delay in {0.0, write_delay_s("1", interval), write_delay_s("2", interval)}:
            state = CounterState()
            for k in range(2 * 3600 // interval + 2):
                t = HOUR + phase + k * interval
                sample = Sample("interface", {"device": "1", "port": "1/g1"}, {"in_bps": 1.0}, t)
                out = state.windows.take([sample], float(interval), t, series_key, delay_s=delay)
                state = CounterState.from_json(state.to_json())
                for tier, step in (("5m", 300), ("1h", 3600)):
                    for line in out.get(tier, ()):
                        end = fields_of(line)[2] / 1000 + step
                        latest[step] = max(latest[step], t - end)
    for step in (300, 3600):
        assert latest[step] <= begun_by_s(step, interval), (step, latest[step])
        seen = cache.seen_after_s(step, interval)
        assert seen >= begun_by_s(step, interval) + WRITE_SLACK_S == written_by_s(step, interval)
        assert seen % 300 == cache.WRITE_GRACE_S and seen - 300 < written_by_s(step, interval)
    assert cache.seen_after_s(300, 60) == cache.WRITE_GRACE_S == 180  # a minute's devices: 3 minutes after
    assert cache.seen_after_s(3600, 60) == cache.HOUR_GRACE_S == 480  # an hour with the next 5-minute window
    assert (cache.seen_after_s(300, 300), cache.seen_after_s(3600, 900)) == (480, 1380)


def test_a_total_never_spans_a_gap():
    assert sample_weight(1000.0, 940.0, 60.0) == 60.0
    assert sample_weight(1000.0, 900.0, 60.0) == 100.0  # a late poll: its own, longer interval
    assert sample_weight(1000.0, 870.0, 60.0) == 60.0  # 130 s: more than two intervals, a gap
    assert sample_weight(1000.0, 500.0, 60.0) == 60.0  # after a gap longer than two intervals: one interval
    assert sample_weight(1000.0, None, 60.0) == 60.0
    # A sample with its span counts for it: after an outage, the 1,200 s its counter delta covers.
    assert sample_weight(1000.0, 700.0, 300.0, 1200.0) == 1200.0
    assert sample_weight(1000.0, None, 300.0, 0.5) == 0.5
    assert sample_weight(1000.0, 700.0, 300.0, 0.0) == 300.0  # no span: the spacing rule
    assert sample_weight(1000.0, 700.0, 300.0, None) == 300.0
    windows = Windows()
    out = feed(windows, [(HOUR, 10.0), (HOUR + 60, 10.0), (HOUR + 1200, 10.0), (HOUR + 1260, 10.0)])
    windows.close_due(HOUR + 3600, out)
    assert sum(fields_of(line)[1]["in_bps_total"] for line in out["5m"]) == 4 * 10.0 * 60


def test_a_sample_older_than_the_open_window_is_left_to_the_raw_tier():
    windows = Windows()
    out = feed(windows, [(HOUR + 400, 5.0), (HOUR + 100, 99.0)])
    windows.close_due(HOUR + 3600, out)
    assert [fields_of(line)[1]["in_bps_max"] for line in out["5m"]] == [5.0]


def test_open_windows_and_hours_survive_the_counter_state_round_trip():
    windows = Windows()
    feed(windows, [(HOUR + 60 * i, float(i)) for i in range(8)])  # one window closed into the hour, one open
    state = CounterState(windows=windows)
    back = CounterState.from_json(state.to_json())
    again = CounterState.from_json(back.to_json())  # the hours travel untouched as the text they were
    assert orjson.loads(again.to_json())["windows"] == orjson.loads(state.to_json())["windows"]
    out: dict[str, list[str]] = {}
    again.windows.close_due(HOUR + 3600, out)
    assert fields_of(out["1h"][0])[1]["in_bps_count"] == 8 and fields_of(out["5m"][0])[1]["in_bps_count"] == 3


@pytest.mark.parametrize(
    "windows",
    [
        [1, 2],
        {"five": {"k": [1, 2]}, "hours": ""},
        {"five": {"k": [1.0, 2.0, {"f": [1, 2]}]}, "hours": ""},
        {"five": {}, "hours": 7},
    ],
)
def test_unreadable_windows_start_afresh_and_the_counters_stay(windows):
    good = CounterState.from_json(CounterState().to_json())
    raw = orjson.loads(good.to_json()) | {"windows": windows}
    state = CounterState.from_json(orjson.dumps(raw))
    assert state is not None and state.windows.series == {}


def test_unreadable_hours_start_afresh_when_first_needed():
    raw = {"five": {KEY: [float(HOUR), float(HOUR), {"in_bps": [1.0, 1.0, 1.0, 1, 0.0, None]}]}, "hours": "{oops"}
    windows = Windows.from_raw(raw)
    out: dict[str, list[str]] = {}
    windows.close_due(HOUR + 3600, out)
    assert fields_of(out["1h"][0])[1]["in_bps_count"] == 1  # the broken hours dropped, this window kept


def test_every_sample_of_a_poll_goes_to_its_own_series():
    windows = Windows()
    samples = [
        Sample("interface", {"device": "1", "port": p}, {"in_bps": float(i)}, HOUR + 1) for i, p in enumerate("ab")
    ]
    out = windows.take(samples, 60, HOUR + 1, series_key)
    assert out == {} and set(windows.series) == {series_key("interface", (("device", "1"), ("port", p))) for p in "ab"}


def polls(delay: float, phase: float, minutes: int) -> list[tuple[float, dict[str, list[str]]]]:
    """A device polled every minute at `phase` seconds past it from HOUR on, writing its windows `delay` late:
    (poll time, what each poll wrote), its state kept in JSON between polls as in Redis."""
    state, written = CounterState(), []
    for minute in range(minutes):
        t = HOUR + 60 * minute + phase
        sample = Sample("interface", {"device": "1", "port": "1/g1"}, {"in_bps": float(minute)}, t)
        written.append((t, state.windows.take([sample], 60.0, t, series_key, delay_s=delay)))
        state = CounterState.from_json(state.to_json())
    return written


def test_a_device_that_writes_a_minute_later_writes_the_same_windows_by_its_first_poll_a_minute_after_their_end():
    now = {t: out for t, out in polls(0.0, 20.0, 70)}
    later = {t: out for t, out in polls(SPREAD_S, 20.0, 70)}
    fives = {t: out["5m"] for t, out in now.items() if "5m" in out}
    assert sorted(fives) == [HOUR + 300 * k + 20 for k in range(1, 14)]  # the first poll after each end
    assert {t: out["5m"] for t, out in later.items() if "5m" in out} == {t + 60: lines for t, lines in fives.items()}
    hours = [(t, out["1h"]) for t, out in now.items() if "1h" in out]
    assert [(t + SPREAD_S, lines) for t, lines in hours] == [(t, out["1h"]) for t, out in later.items() if "1h" in out]
    assert hours[0][0] == HOUR + 3600 + 180 + 20  # the first poll HOUR_WRITE_DELAY_S (150 s) after the hour
    assert fields_of(hours[0][1][0])[1]["in_bps_count"] == 60


def test_half_of_the_fleet_writes_a_minute_later_whatever_its_poll_phase():
    from monitor.polling.scheduler import device_phase

    keys = [str(pk) for pk in range(1, 4001)]
    later = {key for key in keys if write_delay_s(key, 60.0) == SPREAD_S}
    assert all(write_delay_s(key, 60.0) in (0.0, SPREAD_S) for key in keys)
    assert not any(write_delay_s(key, 300.0) for key in keys)  # polled every 5 minutes: written at once
    by_phase: dict[int, list[bool]] = {}
    for key in keys:
        by_phase.setdefault(device_phase(int(key), 60), []).append(key in later)
    assert len(by_phase) == 12
    for phase, flags in by_phase.items():  # each 5-second slot of the minute splits about evenly
        assert 0.4 < sum(flags) / len(flags) < 0.6, phase


def test_a_waiting_window_that_cannot_be_read_back_is_dropped_not_the_open_ones():
    state = CounterState()
    state.windows.add(KEY, "interface", HOUR + 10, {"in_bps": 1.0}, 60.0, {})
    state.windows.pending.append([HOUR + 360, "interface,device=1,port=1/g1 in_bps_min=1.0 1800000000000"])
    raw = orjson.loads(state.to_json())
    raw["windows"]["pending"] = [["soon", 5]]
    back = CounterState.from_json(orjson.dumps(raw))
    assert back.windows.pending == [] and KEY in back.windows.series
    assert CounterState.from_json(state.to_json()).windows.pending == state.windows.pending
