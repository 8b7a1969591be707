"""A chart's windows carried over from the range a window or two earlier (monitor.timeseries.carry) give the very
points and legend that reading the whole range again gives, on a real InfluxDB, and read less to do it."""

from __future__ import annotations

import math
import pickle
import time
from datetime import datetime, timezone

import pytest
from django.core.cache import cache

from monitor.core import services
from monitor.timeseries import series
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.plan import Window
from monitor.timeseries.templates import TEMPLATES
from tests.influxq import influx_queries
from tests.test_page_series import page  # noqa: F401 (fixture: a 16-port switch with 40 days of history)

pytestmark = pytest.mark.django_db
DAY = 86400


def plots_of(graphs, scale: float = 1.0) -> list[Plot]:
    return [
        Plot(f"graph:{g.pk}", TEMPLATES[g.template], (Member(str(g.device_id), g.instance, 60),), scale) for g in graphs
    ]


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def read(plots, end: float, days: float, points: int, detail: bool = False) -> dict:
    return series.read(plots, Window(at(end - days * DAY), at(end), points, at(end)), detail=detail, columns=True)


def assert_same(mine: dict, theirs: dict) -> None:
    """The same graphs: the same times, and every number equal to rounding (sums are added in another order)."""
    assert mine.keys() == theirs.keys()
    for key in mine:
        a, b = mine[key], theirs[key]
        assert {k: v for k, v in a.items() if k != "series"} == {k: v for k, v in b.items() if k != "series"}
        for one, other in zip(a["series"], b["series"], strict=True):
            assert one["cols"]["t"] == other["cols"]["t"], key
            assert one["cols"].keys() == other["cols"].keys()
            for name in one["cols"]:
                assert nan_free(one["cols"][name]) == pytest.approx(nan_free(other["cols"][name]), rel=1e-12), name
            for name, value in one["stats"].items():
                assert (value is None) == (other["stats"][name] is None), name
                if value is not None:
                    assert value == pytest.approx(other["stats"][name], rel=1e-9), name


def parts_read_before(moment: float) -> int:
    """Charts' windows in the cache that were read from InfluxDB before `moment` (carried ones keep that time)."""
    redis = services.redis_client()
    found = 0
    for key in redis.scan_iter("monitor-cache:*:ts:*"):
        value = redis.get(key)
        if value is None or value.isdigit():
            continue
        part = pickle.loads(value)  # noqa: S301 (our own cache, written by this test's reads)
        found += isinstance(part, dict) and part.get("_read_at", moment) < moment
    return found


def nan_free(values: list) -> list:
    return [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in values]


@pytest.mark.parametrize(
    ("days", "points", "step", "detail", "back"),
    [
        (1, 300, 300, False, 1),  # a day: one 5-minute window a point, a window later (a live page's refresh)
        (1, 300, 300, True, 2),  # with minima, two windows later
        (30, 280, 3600, False, 1),  # a month: 3-hour points of the hourly tier, cut short at each end
    ],
)
def test_windows_carried_over_equal_a_whole_read(page, influx, days, points, step, detail, back):  # noqa: F811
    plots = plots_of(page["graphs"], scale=0.125 if detail else 1.0)
    then = (time.time() - 3 * DAY) // step * step + 137  # within the history, not on a window's edge
    cache.clear()
    read(plots, then, days, points, detail)  # the page as it was: its windows cached
    read_at = time.time()
    before = influx_queries(influx)
    carried = read(plots, then + back * step, days, points, detail)
    carried_reads = influx_queries(influx) - before
    assert parts_read_before(read_at) == 2 * len(plots)  # each chart's windows cached for both ranges, read once
    cache.clear()
    before = influx_queries(influx)
    whole = read(plots, then + back * step, days, points, detail)
    whole_reads = influx_queries(influx) - before
    assert_same(carried, whole)
    # The windows at the ends and the figures in the one query of a batch; these rates are lowest at each full hour,
    # so the minimum that left the range may have been the only one: those minima are read again, in one query more.
    assert carried_reads - whole_reads in (0, 1)
    assert any(s["stats"]["average"] for g in whole.values() for s in g["series"])  # a page with numbers in it
    assert all(len(s["cols"]["t"]) > 200 for g in whole.values() for s in g["series"] if s["field"] == "in")


def test_a_range_moved_further_than_two_windows_is_read_whole(page):  # noqa: F811
    plots = plots_of(page["graphs"][:4])
    then = (time.time() - 3 * DAY) // 300 * 300 + 61
    cache.clear()
    read(plots, then, 1, 300)
    read_at = time.time()
    later = read(plots, then + 3 * 300, 1, 300)
    assert parts_read_before(read_at) == len(plots)  # the later range's windows were read afresh
    cache.clear()
    assert_same(later, read(plots, then + 3 * 300, 1, 300))


def test_results_after_an_extra_blank_line_are_read():
    """InfluxDB streams a script's results as they finish, and between two of them may write one blank line more
    (as captured from a carried read: the head's maxima, then the tail's sums); both results are read."""
    from monitor.timeseries.client import parse

    header = ",result,table,_value,_field,_measurement,device,port"
    text = (
        f"{header}\r\n,r3_wmax,0,1,in_bps_max,interface,1,1/g1\r\n,r3_wmax,1,2.5,in_bps_max,interface,1,1/g2\r\n"
        f"\r\n\r\n{header}\r\n,r1_wsum,0,1740,in_bps_sum,interface,1,1/g1\r\n\r\n"
    )
    tables = parse(text)
    assert [(t.result, t.group["port"], [v for _, v in t.rows]) for t in tables] == [
        ("r3_wmax", "1/g1", [1.0]),
        ("r3_wmax", "1/g2", [2.5]),
        ("r1_wsum", "1/g1", [1740.0]),
    ]


def test_a_legend_carried_over_a_device_that_stopped_keeps_its_newest_window():
    """Nothing entered the range (the device stopped): the newest window is still the old range's, and a range
    with nothing left of the old one takes the new windows' own figures, not a subtraction's residue."""
    from array import array

    from monitor.timeseries.carry import _legend

    old = {"n": 10.0, "sum": 30.0, "lo": 1.0, "hi": 5.0, "total": 300.0, "current": 4.0}
    gone = {"scount": [(None, 2.0)], "ssum": [(None, 4.0)], "lo": [(None, 1.0)], "total": [(None, 40.0)]}
    cols = {"t": array("q", [0, 1000]), "mean": array("d", [24.0, 40.0]), "max": array("d", [40.0, 48.0])}
    found = _legend(old, gone, {}, cols, 8.0, lasts=True)
    assert found["current"] == 4.0  # last() of the old range, not the newest point's mean (5.0)
    assert (found["n"], found["sum"], found["total"]) == (8.0, 26.0, 260.0)
    assert found["hi"] == 6.0
    assert _legend(old, gone, {}, cols, 8.0, lasts=False)["current"] == 5.0  # the newest point stands for it
    everything = {"scount": [(None, 10.0)], "ssum": [(None, 30.0 + 1e-13)], "lo": [(None, 1.0)]}
    new = {"scount": [(None, 3.0)], "ssum": [(None, 0.0)], "lo": [(None, 0.0)], "total": [(None, 0.0)]}
    moved_away = _legend(old, everything, new, cols, 8.0, lasts=True)
    assert (moved_away["n"], moved_away["sum"], moved_away["total"], moved_away["lo"]) == (3.0, 0.0, 0.0, 0.0)
