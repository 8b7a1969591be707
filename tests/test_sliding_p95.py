"""The 95th percentile of a long range, from 5-minute means, stays exact as the range slides: the values kept from
the last read are trimmed and topped up instead of reading the range again (monitor/timeseries/sliding.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from django.conf import settings

from monitor.timeseries import series, sliding, stats
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets, port_polls

TRAFFIC = TEMPLATES["traffic"]
STEP = 300
NOW = datetime.fromtimestamp(datetime.now(timezone.utc).timestamp() // STEP * STEP, timezone.utc)
FIRST = NOW - timedelta(days=24)  # past raw retention (14 days): percentiles come from 5-minute means
SHIFT = timedelta(hours=6)


def rate(t: float) -> float:
    """Mostly 100-200 Mbit/s; 950 Mbit/s every other window of the first range's first 6 hours (they leave the
    range when it slides) and 900 Mbit/s every other window of the 6 hours after its end (they enter it)."""
    first = (FIRST + timedelta(days=1)).timestamp()
    end = first + 2 * 86400
    window = int(t // STEP)
    if first <= t < first + SHIFT.total_seconds() and window % 2 == 0:
        return 950e6
    if end <= t < end + SHIFT.total_seconds() and window % 2 == 0:
        return 900e6
    return 100e6 + (window * 7919 % 1000) * 1e5


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    """Four days of one port of two switches polled every 5 minutes (one sample a window, 10 s into it)."""
    with own_buckets("sliding", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        times = [FIRST.timestamp() + STEP * i + 10 for i in range(4 * 288)]
        port_polls(history, "s1", "p/1", times, rate, STEP)
        port_polls(history, "s2", "p/1", times, rate, STEP)  # a second switch, the same port name
        history.close(NOW.timestamp())
        assert history.failed == 0
        yield


def expected(start: datetime, end: datetime) -> float:
    """The p95 of the 5-minute means of the whole windows in [start, end), computed here from what was written."""
    means = [rate(t + 10) for t in range(int(start.timestamp()), int(end.timestamp()), STEP)]
    return stats.percentile(means)


def p95(start: datetime, end: datetime, device: str = "s1") -> float:
    data = series.one(TRAFFIC, device, "p/1", start, end, points=300, interval_s=STEP, now=NOW)
    assert data["p95_source"] == "5-minute means"
    return next(s for s in data["series"] if s["field"] == "in_bps")["stats"]["p95"]


def test_a_sliding_range_keeps_its_p95_exact_from_kept_values(planted):
    start = FIRST + timedelta(days=1)
    end = start + timedelta(days=2)
    assert p95(start, end) == pytest.approx(expected(start, end))  # a full read, whose values are kept
    assert expected(start, end) == pytest.approx(950e6)  # the burst holds the top 5 %...

    moved = (start + SHIFT, end + SHIFT)
    plot = Plot("x", TRAFFIC, (Member("s1", "p/1", STEP),))
    found, full = sliding.slide([plot], *moved, settings.INFLUXDB_BUCKET + "_5m")
    assert ("x", "in_bps") not in full  # answered from the kept values and the windows that entered
    assert found[("x", "in_bps")] == pytest.approx(expected(*moved))
    assert expected(*moved) == pytest.approx(900e6)  # ...and has left: the new burst holds it now
    assert p95(*moved) == pytest.approx(expected(*moved))

    # Further on, past most of what was kept: answered again (from what is left, or a full read), still exact.
    farther = (start + timedelta(days=1, hours=12), end + timedelta(days=1, hours=12))
    assert p95(*farther) == pytest.approx(expected(*farther))


def test_a_range_that_moved_back_is_read_in_full(planted):
    start = FIRST + timedelta(days=1, hours=3)
    end = start + timedelta(days=1)
    assert p95(start, end) == pytest.approx(expected(start, end))
    earlier = (start - timedelta(hours=2), end - timedelta(hours=2))
    plot = Plot("x", TRAFFIC, (Member("s1", "p/1", STEP),))
    _, full = sliding.slide([plot], *earlier, settings.INFLUXDB_BUCKET + "_5m")
    assert ("x", "in_bps") in full  # what was kept says nothing of the windows before it
    assert p95(*earlier) == pytest.approx(expected(*earlier))


def test_two_switches_kept_over_different_ranges_slide_in_one_read(planted):
    """A tree page's percentiles: one switch's values kept from a range opened an hour before the other's. Both
    slide in one script (a pair of reads per kept range) whose rows must still say which switch they are."""
    start = FIRST + timedelta(days=1, hours=3)  # ranges no other test reads (their answers would come cached)
    end = start + timedelta(days=2)
    hour = timedelta(hours=1)
    assert p95(start - hour, end - hour, "s1") == pytest.approx(expected(start - hour, end - hour))
    assert p95(start, end, "s2") == pytest.approx(expected(start, end))
    moved = (start + SHIFT, end + SHIFT)
    plots = [Plot(device, TRAFFIC, (Member(device, "p/1", STEP),)) for device in ("s1", "s2")]
    found, full = sliding.slide(plots, *moved, settings.INFLUXDB_BUCKET + "_5m")
    assert not full & {("s1", "in_bps"), ("s2", "in_bps")}  # both answered from kept values
    assert found[("s1", "in_bps")] == found[("s2", "in_bps")] == pytest.approx(expected(*moved))
