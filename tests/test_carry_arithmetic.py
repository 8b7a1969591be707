"""The arithmetic of carried windows (monitor.timeseries.carry) on plain numbers, without InfluxDB or Redis (issue
44): a range's legend moved on by the windows that left and entered it equals the legend of the new range's windows
worked out from scratch, and the window columns kept, cut and joined are the new range's."""

from __future__ import annotations

import math
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.timeseries.carry import UNSURE, _between, _joined, _legend, _lowest, _spans

PROPERTY = settings(max_examples=200, deadline=None, derandomize=True)
FIVE_MS = 300_000
NAN = float("nan")


def read_of(windows: list[dict], with_last: bool = True) -> dict:
    """What a figures read of these windows returns (InfluxDB's rows: count, sum, minimum, total, last())."""
    if not windows:
        return {}
    got = {
        "scount": [(None, sum(w["count"] for w in windows))],
        "ssum": [(None, sum(w["sum"] for w in windows))],
        "lo": [(None, min(w["min"] for w in windows))],
    }
    if windows[0]["total"] is not None:
        got["total"] = [(None, sum(w["total"] for w in windows))]
    if with_last:
        newest = windows[-1]
        got["lastsum"], got["lastcount"] = [(newest["t"], newest["sum"])], [(newest["t"], newest["count"])]
    return got


def scratch(windows: list[dict], scale: float) -> dict:
    """The legend of a range from its windows, by definition."""
    if not windows:
        return {"n": 0, "sum": 0.0, "lo": None, "hi": None, "total": None, "current": None}
    return {
        "n": sum(w["count"] for w in windows),
        "sum": sum(w["sum"] for w in windows),
        "lo": min(w["min"] for w in windows),
        "hi": max(w["max"] for w in windows) / scale,
        "total": None if windows[0]["total"] is None else sum(w["total"] for w in windows),
        "current": windows[-1]["sum"] / windows[-1]["count"],
    }


def cols_of(windows: list[dict]) -> dict:
    return {
        "t": array("q", [w["t"] for w in windows]),
        "mean": array("d", [w["sum"] / w["count"] for w in windows]),
        "max": array("d", [w["max"] for w in windows]),
    }


def window(index: int, values: list[float], with_total: bool = True) -> dict:
    return {
        "t": index * FIVE_MS,
        "count": len(values),
        "sum": sum(values),
        "min": min(values),
        "max": max(values),
        "total": sum(values) * 60.0 if with_total else None,
    }


def test_one_window_on_the_sums_move_by_the_window_gone_and_the_window_new():
    # Windows 0..3 of the old range, 1..4 of the new: window 0 (values 5, 7) left, window 4 (values 1, 2, 3) came.
    old = [window(0, [5.0, 7.0]), window(1, [4.0]), window(2, [9.0, 6.0]), window(3, [8.0])]
    new = [*old[1:], window(4, [1.0, 2.0, 3.0])]
    legend = _legend(scratch(old, 8.0), read_of(old[:1]), read_of(new[-1:]), cols_of(new), 8.0, True)
    assert legend == {
        "n": 1 + 2 + 1 + 3,
        "sum": 4.0 + 15.0 + 8.0 + 6.0,
        "lo": 1.0,  # the window new holds the minimum
        "hi": 9.0 / 8.0,
        "total": (4.0 + 15.0 + 8.0 + 6.0) * 60.0,
        "current": 2.0,  # the newest window's mean, from its last() sum and count
    }


def test_a_minimum_that_left_the_range_is_unsure_unless_a_window_new_is_lower():
    old = [window(0, [1.0]), window(1, [4.0]), window(2, [6.0])]
    gone = read_of(old[:1])
    legend = _legend(scratch(old, 1.0), gone, read_of([window(3, [5.0])]), cols_of(old[1:]), 1.0, True)
    assert legend["lo"] is UNSURE  # 1.0 left; 4.0 is the range's minimum, but no read of windows 1 and 2 says so
    legend = _legend(scratch(old, 1.0), gone, read_of([window(3, [0.5])]), cols_of(old[1:]), 1.0, True)
    assert legend["lo"] == 0.5


def test_the_minimum_rule_on_its_own():
    assert _lowest(5.0, 5.0, 5.0) == 5.0  # a new window as low as the old minimum: no second read needed
    assert _lowest(5.0, 6.0, 7.0) == 5.0  # the old minimum is still in the range (the windows gone were higher)
    assert _lowest(5.0, 5.0, 7.0) is UNSURE  # it left and nothing as low came
    assert _lowest(5.0, 4.0, 7.0) is UNSURE  # (a window gone below the old minimum: the old figure was stale)
    assert _lowest(5.0, None, 7.0) == 5.0  # nothing left
    assert _lowest(5.0, None, None) == 5.0
    assert _lowest(None, None, 3.0) == 3.0  # the old range had no sample
    assert _lowest(None, None, None) is None
    assert _lowest(2.0, 2.0, 3.0) is UNSURE
    assert _lowest(2.0, 1.0, None) is UNSURE


def test_a_range_moved_past_every_old_window_is_the_new_windows_alone():
    old = [window(0, [5.0]), window(1, [3.0])]
    new = [window(5, [2.0, 4.0])]
    # The figures read of the windows gone covers more than the old range held (moved by more than the range).
    legend = _legend(scratch(old, 1.0), read_of(old), read_of(new), cols_of(new), 1.0, True)
    assert legend == {"n": 2, "sum": 6.0, "lo": 2.0, "hi": 4.0, "total": 360.0, "current": 3.0}
    # Nothing new either: an empty legend, no residue of a subtraction.
    legend = _legend(scratch(old, 1.0), read_of(old), {}, cols_of([]), 1.0, True)
    assert legend == {"n": 0, "sum": 0.0, "lo": None, "hi": None, "total": None, "current": None}


def test_the_current_value_when_no_window_entered():
    old = [window(0, [5.0]), window(1, [3.0]), window(2, [9.0, 11.0])]
    kept = old[1:]
    base = scratch(old, 2.0)
    # last() read: the newest window is the old range's newest, still in the range.
    assert _legend(base, read_of(old[:1]), {}, cols_of(kept), 2.0, True)["current"] == 10.0
    # last() not read: the newest point's mean, in the chart's unit (scaled back).
    assert _legend(base, read_of(old[:1]), {}, cols_of(kept), 2.0, False)["current"] == 10.0 / 2.0
    assert _legend(base, read_of(old[:1]), {}, cols_of([]), 2.0, False)["current"] is None
    # Everything old left (kept is none) and nothing came: no current value from the old range.
    assert _legend(base, read_of(old), {}, cols_of([]), 2.0, True)["current"] is None
    # A window entered without last(): the newest point still.
    entered = [window(3, [4.0])]
    legend = _legend(base, read_of(old[:1]), read_of(entered, with_last=False), cols_of([*kept, *entered]), 2.0, False)
    assert legend["current"] == 2.0


def test_the_maximum_is_of_the_windows_in_the_range_and_skips_windows_without_one():
    cols = {"t": array("q", [0, FIVE_MS, 2 * FIVE_MS]), "mean": array("d", [1, 2, 3]), "max": array("d", [4, NAN, 6])}
    old = scratch([window(0, [1.0])], 1.0)
    assert _legend(old, {}, {}, cols, 2.0, True)["hi"] == 3.0
    cols["max"] = array("d", [NAN, NAN, NAN])
    assert _legend(old, {}, {}, cols, 2.0, True)["hi"] is None
    assert _legend(old, {}, {}, cols_of([window(0, [4.0])]), 0.0, False) | {"n": 0} == {
        "n": 0,
        "sum": 1.0,  # the old range's: nothing left or entered
        "lo": 1.0,
        "hi": None,  # a zero scale (a chart without one) draws nothing rather than divide by it
        "total": 60.0,
        "current": None,
    }


def test_totals_of_fields_without_one_stay_none_and_a_total_can_start_or_end():
    plain = [window(0, [5.0], False), window(1, [3.0], False)]
    legend = _legend(
        scratch(plain, 1.0), read_of(plain[:1]), read_of([window(2, [1.0], False)]), cols_of(plain), 1.0, True
    )
    assert legend["total"] is None
    # The old range had windows without totals read as none; the windows new have one: it counts alone.
    with_total = [window(2, [1.0])]
    legend = _legend(scratch(plain, 1.0), read_of(plain[:1]), read_of(with_total), cols_of(with_total), 1.0, True)
    assert legend["total"] == 60.0 and legend["n"] == 2 and legend["sum"] == 4.0
    # The old range had a total, nothing new has: the old one less the window gone.
    old = [window(0, [5.0]), window(1, [3.0])]
    legend = _legend(scratch(old, 1.0), read_of(old[:1]), {}, cols_of(old[1:]), 1.0, True)
    assert legend["total"] == 180.0 and legend["n"] == 1 and legend["sum"] == 3.0


VALUES = st.lists(st.integers(0, 50).map(float), min_size=1, max_size=4)


@PROPERTY
@given(
    st.lists(st.one_of(st.none(), VALUES), min_size=2, max_size=14),
    st.integers(1, 12),
    st.integers(1, 6),
    st.booleans(),
    st.sampled_from([1.0, 8.0]),
)
def test_a_range_slid_by_k_windows_has_the_legend_of_its_windows_from_scratch(slots, length, k, totals, scale):
    length = min(length, len(slots) - 1)
    k = min(k, len(slots) - length)
    windows = [None if v is None else window(i, v, totals) for i, v in enumerate(slots)]

    def over(a: int, b: int) -> list[dict]:
        return [w for w in windows[a:b] if w is not None]

    old_range, new_range = over(0, length), over(k, k + length)
    gone, entered = over(0, k), over(max(k, length), k + length)
    legend = _legend(scratch(old_range, scale), read_of(gone), read_of(entered), cols_of(new_range), scale, True)
    expected = scratch(new_range, scale)
    if legend["lo"] is UNSURE:  # only when the old minimum left and no window new is as low: then read again
        assert read_of(gone)["lo"][0][1] == expected["lo"] or min(w["min"] for w in gone) <= expected["lo"]
        assert not entered or min(w["min"] for w in entered) > scratch(old_range, scale)["lo"]
        legend["lo"] = expected["lo"]
    if not new_range:  # an empty range: what remains of the sums is zero
        assert legend["n"] == 0 and legend["sum"] == 0.0 and legend["total"] in (None, 0.0)
        legend["total"] = None
    assert legend == expected


def test_windows_between_two_moments_start_in_them():
    cols = {"t": array("q", [0, 300, 600, 900]), "mean": array("d", [1, 2, 3, 4]), "max": array("d", [5, 6, 7, 8])}
    assert _between(cols, 300, 900) == {
        "t": array("q", [300, 600]),
        "mean": array("d", [2, 3]),
        "max": array("d", [6, 7]),
    }
    assert _between(cols, 301, 901)["t"] == array("q", [600, 900])
    assert _between(cols, 0, 0)["t"] == array("q")


def test_joined_columns_keep_their_order_and_minima_where_any_part_has_them():
    head = {"t": array("q", [0]), "mean": array("d", [1]), "max": array("d", [2]), "min": array("d", [0.5])}
    middle = {"t": array("q", [300, 600]), "mean": array("d", [3, 4]), "max": array("d", [5, 6])}
    tail = {"t": array("q", []), "mean": array("d", []), "max": array("d", [])}
    out = _joined([head, middle, tail])
    assert list(out["t"]) == [0, 300, 600] and list(out["mean"]) == [1, 3, 4] and list(out["max"]) == [2, 5, 6]
    assert len(out["min"]) == 3  # a minimum (NaN: none) for each of the three windows, as their other columns
    assert out["min"][0] == 0.5 and all(math.isnan(v) for v in out["min"][1:])
    assert "min" not in _joined([middle, tail])
    nan_only = dict(middle, min=array("d", [NAN, NAN]))
    assert "min" not in _joined([nan_only])  # minima that are all NaN: as a cold read, none


def test_joined_columns_keep_each_window_s_samples_where_every_part_has_them():
    """The samples behind each point ("n") join the edges' samples to their grid interval's point (assemble.finish):
    kept where every part with windows has them; a part without them leaves none (a merge would guess)."""
    head = {"t": array("q", [0]), "mean": array("d", [1]), "max": array("d", [2]), "n": array("q", [4])}
    middle = {
        "t": array("q", [300, 600]),
        "mean": array("d", [3, 4]),
        "max": array("d", [5, 6]),
        "n": array("q", [12, 9]),
    }
    empty = {"t": array("q", []), "mean": array("d", []), "max": array("d", [])}
    assert list(_joined([head, middle, empty])["n"]) == [4, 12, 9]
    uncounted = {"t": array("q", [900]), "mean": array("d", [7]), "max": array("d", [8])}
    assert "n" not in _joined([head, middle, uncounted])
    assert "n" not in _joined([empty])


def test_the_spans_read_when_a_range_moves_on():
    # A 1-day range of 5-minute points moved on by one window: the window gone, the windows new read with the tail.
    day, five = 86_400, 300
    start, end = 1_800_000_000.0, 1_800_000_000.0 + day
    assert _spans(start, end, five, five, True) == (
        start,
        end - five,
        {"gone": (start - five, start), "tail": (end - five, end)},
    )
    # Not together (points of several windows, or a tier without means): the windows new are a read of their own.
    assert _spans(start, end, five, five, False)[2] == {
        "gone": (start - five, start),
        "tail": (end - five, end),
        "new": (end - five, end),
    }
    # Moved by two windows, on a chart of 15-minute points: the tail from the last whole point of the old range.
    first, last, spans = _spans(start + 100, end + 100, 2 * five, 900, True)
    assert (first, last) == (start + 900, end - 900)  # ceil(start + 100 to 900 s), floor(end + 100 - 600 to 900 s)
    assert spans == {
        "gone": (start + 100 - 600, start + 100),
        "tail": (end - 900, end + 100),
        "new": (end + 100 - 600, end + 100),  # not where the tail starts: its own read
        "head": (start + 100, start + 900),  # the range begins inside a point: read anew
    }
    # The range's end not on a point of the old range, but moved by exactly a point: no separate read of the new.
    assert "new" not in _spans(start, end, 900, 900, True)[2]
    # No window whole in both ranges: nothing to carry.
    assert _spans(start, start + 600, 600, 300, True) is None
    # One window kept: the window new is the tail's (its end is where the old range ended).
    assert _spans(start, start + 900, 600, 300, True) == (
        start,
        start + 300,
        {"gone": (start - 600, start), "tail": (start + 300, start + 900)},
    )


def test_a_cached_part_is_carried_only_with_the_templates_series_in_order_and_spans_keep_the_asks_points():
    from datetime import datetime, timezone

    from monitor.timeseries.carry import Ask, _at, _same_fields, _span
    from monitor.timeseries.flux import Member, Plot
    from monitor.timeseries.plan import Layout, Window
    from monitor.timeseries.templates import TEMPLATES
    from monitor.timeseries.tiers import Tier

    plot = Plot("p", TEMPLATES["traffic"], (Member("d", "1", 60),))
    assert _same_fields(plot, {"series": [{"field": "in_bps"}, {"field": "out_bps"}]})
    assert not _same_fields(plot, {"series": [{"field": "out_bps"}, {"field": "in_bps"}]})
    assert not _same_fields(plot, {"series": [{"field": "in_bps"}]})
    assert not _same_fields(plot, {})
    assert _at(1_800_000_000.5) == datetime(2027, 1, 15, 8, 0, 0, 500_000, tzinfo=timezone.utc)
    now = _at(1_800_000_900)
    span = Window(_at(1_799_913_600), _at(1_800_000_000), 300, now)
    ask = Ask(Layout(Tier("5m", "5m", 300, 400), 300, 300), span, span, False, True)
    assert _span(ask, 1_799_999_700, 1_800_000_000) == Window(_at(1_799_999_700), _at(1_800_000_000), 300, now)
