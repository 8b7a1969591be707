"""Legends and rollups that say what they are, on a real InfluxDB: each wrong number the time-series issue
measured is planted here and checked against the series API's answer (data written as polls write it)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from monitor.timeseries import aggregates, series
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets, port_polls

TRAFFIC = TEMPLATES["traffic"]
NOW = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
HOUR = 3600


def at(moment: datetime) -> float:
    return moment.timestamp()


def inbound(data: dict) -> dict:
    return next(s for s in data["series"] if s["field"] == "in_bps")


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    """Every case's history, written once through the poll path's own window accumulator and writer."""
    with own_buckets("legends", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        # 1 h at a constant 100 Mbit/s, one sample a minute, three hours ago.
        hour = at(NOW - timedelta(hours=3))
        port_polls(history, "1", "p/1", [hour + 60 * i for i in range(60)], lambda t: 100e6, 60)
        # 2 h at 500 Mbit/s, 10 h silent, 2 h at 500 Mbit/s, ending a day ago.
        first = at(NOW - timedelta(hours=38))
        times = [first + 60 * i for i in range(120)] + [first + 12 * HOUR + 60 * i for i in range(120)]
        port_polls(history, "2", "p/1", times, lambda t: 500e6, 60)
        # 30 days ending 20 days ago: 100 Mbit/s for the first 10 minutes of every hour, idle otherwise.
        month = at(NOW - timedelta(days=50))
        port_polls(history, "3", "p/1", [month + 60 * i for i in range(30 * 1440)], _ten_of_sixty, 60)
        # 400 days ago, an hour at 100 Mbit/s: only the hourly tier keeps it (InfluxDB refuses its 5-minute
        # windows, past that bucket's retention, and they are set aside rather than retried).
        ancient = HistoryWriter(writer)
        old = at(NOW - timedelta(days=400))
        port_polls(ancient, "4", "p/1", [old + 60 * i for i in range(60)], lambda t: 100e6, 60)
        ancient.close(old + 2 * HOUR)
        assert ancient.failed == 1
        # 200 days ago, an hour polled unevenly: 10 samples of 100 in its first 5 minutes, then 11 of 0.
        uneven = at(NOW - timedelta(days=200))
        times = [uneven + 30 * i for i in range(10)] + [uneven + 300 * i for i in range(1, 12)]
        port_polls(history, "5", "p/1", times, lambda t: 100.0 if t < uneven + 300 else 0.0, 30)
        # Two LAG members at 500 Mbit/s polled every 300 s, at phases 0 s and 150 s, for the last 7 hours.
        lag = at(NOW - timedelta(hours=7))
        port_polls(history, "6", "a", [lag + 300 * i for i in range(84)], lambda t: 500e6, 300)
        port_polls(history, "6", "b", [lag + 150 + 300 * i for i in range(84)], lambda t: 500e6, 300)
        # The same pair, where member a was polled once 2 s early and then 2 s late (a window without a sample).
        late = [lag + 300 * i for i in range(84)]
        late[40], late[41] = late[40] - 2, late[41] + 2
        port_polls(history, "7", "a", late, lambda t: 500e6, 300)
        port_polls(history, "7", "b", [lag + 150 + 300 * i for i in range(84)], lambda t: 500e6, 300)
        # Member a polled every 300 s for 3 h, then its interval changed to 60 s; member b every 60 s.
        port_polls(history, "8", "a", [lag + 300 * i for i in range(36)], lambda t: 500e6, 300)
        port_polls(history, "8", "a", [lag + 3 * HOUR + 60 * i for i in range(240)], lambda t: 500e6, 60)
        port_polls(history, "8", "b", [lag + 60 * i + 30 for i in range(420)], lambda t: 500e6, 60)
        # The last day, a sample a minute at 100 Mbit/s off the 5-minute grid, with a 700 Mbit/s sample just
        # after the start of the window read below (before its first whole 5-minute window) and a last one at 300.
        day = at(NOW - timedelta(days=1)) - 587
        port_polls(history, "9", "p/1", [day + 60 * i for i in range(1450)], _day_value, 60)
        history.close(at(NOW))
        assert history.failed == 0
        yield


def _day_value(t: float) -> float:
    if t == at(NOW - timedelta(days=1)) + 193:
        return 700e6
    return 300e6 if t == at(NOW) - 47 else 100e6


def test_a_day_from_5_minute_windows_counts_every_sample_of_its_window(planted):
    start = NOW - timedelta(days=1) + timedelta(seconds=130)  # off the 5-minute grid: a raw head before it
    data = one("9", start, NOW, points=280)
    assert data["tier"] == "5m" and data["p95_source"] == "raw samples"
    first = at(NOW - timedelta(days=1)) - 587
    values = [_day_value(t) for t in (first + 60 * i for i in range(1450)) if at(start) <= t < at(NOW)]
    stats = inbound(data)["stats"]
    assert stats["maximum"] == pytest.approx(700e6)  # in the head, before the first whole window
    assert stats["current"] == pytest.approx(300e6)  # the newest sample, after the newest window read
    assert stats["average"] == pytest.approx(sum(values) / len(values), rel=1e-9)
    assert stats["total"] == pytest.approx(sum(values) * 60 / 8, rel=1e-9)  # bytes: every sample x its 60 s
    assert stats["p95"] == pytest.approx(100e6)
    points = inbound(data)["points"]
    assert points[0][0] == int(at(start) * 1000) and points[0][3] == pytest.approx(700e6)
    assert points[-1][3] == pytest.approx(300e6) and len(points) <= 290


def _ten_of_sixty(t: float) -> float:
    return 100e6 if t % HOUR < 600 else 0.0


def one(device: str, start: datetime, end: datetime, points: int = 800, interval: int = 60) -> dict:
    return series.one(TRAFFIC, device, "p/1", start, end, points, interval, now=NOW)


def test_total_of_an_hour_at_100_mbit_is_45_gb(planted):
    start = NOW - timedelta(hours=3)
    data = one("1", start, start + timedelta(hours=1))
    assert data["tier"] == "raw"
    assert inbound(data)["stats"]["total"] == pytest.approx(45e9, rel=1e-9)  # not 43.5 GB: no lines between points
    wide = one("1", start - timedelta(hours=1), start + timedelta(hours=2), points=50)  # windowed, Flux-side total
    assert wide["aggregated"] and inbound(wide)["stats"]["total"] == pytest.approx(45e9, rel=1e-9)


def test_a_total_never_bridges_a_gap(planted):
    start = NOW - timedelta(hours=39)
    for points in (800, 100):  # samples as they are, and windows
        data = one("2", start, start + timedelta(hours=16), points=points)
        assert inbound(data)["stats"]["total"] == pytest.approx(900e9, rel=1e-9)  # not 3,142 GB


def test_a_range_holding_one_hourly_point_still_has_its_total(planted):
    start = NOW - timedelta(days=400)
    data = one("4", start, start + timedelta(hours=1))
    assert data["tier"] == "1h" and len(inbound(data)["points"]) == 1
    assert inbound(data)["stats"]["total"] == pytest.approx(45e9, rel=1e-9)  # not 0
    assert inbound(data)["stats"]["average"] == pytest.approx(100e6)


def test_p95_past_raw_retention_is_of_5_minute_means(planted):
    start = NOW - timedelta(days=51)
    data = one("3", start, NOW - timedelta(days=19), points=600)
    assert data["tier"] == "1h" and data["p95_source"] == "5-minute means"
    assert inbound(data)["stats"]["p95"] == pytest.approx(100e6)  # not 16.7 Mbit/s, the p95 of hourly means
    assert inbound(data)["stats"]["average"] == pytest.approx(100e6 / 6)
    assert inbound(data)["stats"]["maximum"] == pytest.approx(100e6)


def test_the_year_view_takes_its_p95_from_5_minute_means_too(planted):
    data = one("3", NOW - timedelta(days=366), NOW, points=800)
    assert data["tier"] == "1h" and data["p95_source"] == "5-minute means"
    assert inbound(data)["stats"]["p95"] == pytest.approx(100e6)


def test_the_hourly_mean_is_weighted_by_its_samples(planted):
    start = NOW - timedelta(days=200, hours=1)
    for window in ((start, start + timedelta(hours=3)), (NOW - timedelta(days=366), NOW)):
        data = one("5", *window, interval=30)
        assert data["tier"] in ("5m", "1h")
        assert inbound(data)["stats"]["average"] == pytest.approx(1000 / 21)  # not 100/12, a mean of means
    year = one("5", NOW - timedelta(days=366), NOW, interval=30)
    assert year["tier"] == "1h" and [p[2] for p in inbound(year)["points"]] == [pytest.approx(1000 / 21)]


def lag(device: str, intervals: tuple[int, int] = (300, 300)) -> Plot:
    members = (Member(device, "a", intervals[0]), Member(device, "b", intervals[1]))
    return Plot("lag", TRAFFIC, members)


@pytest.mark.parametrize("device,intervals", [("6", (300, 300)), ("7", (300, 300)), ("8", (60, 60))])
def test_an_aggregate_counts_every_member_in_every_step(planted, device, intervals):
    """Phases 0 s and 150 s, a late poll, an interval changed from 300 s to 60 s: 1,000 Mbit/s throughout."""
    start = NOW - timedelta(hours=7) + timedelta(seconds=10)  # the first step starts before the range
    for end, points in ((NOW - timedelta(minutes=10), 800), (NOW - timedelta(minutes=10), 30)):
        data = aggregates.read(lag(device, intervals), Window.of(start, end, points, NOW))
        summed = inbound(data)
        assert summed["stats"]["minimum"] == pytest.approx(1000e6)  # never one member alone
        assert summed["stats"]["maximum"] == pytest.approx(1000e6)
        assert summed["stats"]["p95"] == pytest.approx(1000e6)
        assert all(p[1] == pytest.approx(1000e6) for p in summed["points"])
