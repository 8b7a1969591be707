"""The storage pages' series read the tier that holds their range, as at the request's moment, and a step's mean is
that of every sample in it.

History of one volume is planted through the poll path's own window accumulator and writer: a day and a half of
300-s polls 380 days back, which only the hourly tier holds (its 5-minute windows are past the 5-minute bucket's
366 days and are not written), some polls of its second hour unanswered, and the same a few hours back (raw samples
kept). Every figure is worked out here from the planted samples."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from collectors.samples import Sample
from monitor.timeseries import storage
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.templates import ROLLUP_TOTALS
from tests.tsbuckets import own_buckets

DAY, HOUR, POLL = 86400, 3600, 300
OLD = (int(time.time()) // 7200 - 380 * 12) * 7200  # the start of a two-hour step (on the epoch grid) 380 days back
RECENT = (int(time.time()) // HOUR - 8) * HOUR  # eight hours back
SILENT = range(HOUR + 600, 2 * HOUR - 600)  # of the second hour only its first two and last two polls answer


def latency(t: float) -> float:
    """A latency that differs at every poll, higher in the second hour."""
    return 1.0 + (int(t) // POLL * 7919) % 97 / 10.0 + (5.0 if (int(t) - OLD) % DAY // HOUR == 1 else 0.0)


def polls(first: int, hours: int) -> list[int]:
    return [t for t in range(first + 30, first + hours * HOUR, POLL) if (t - first) % DAY not in SILENT]


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    with own_buckets("storage_windows", tmp_path_factory.mktemp("spool")) as writer:
        old, recent = HistoryWriter(writer), HistoryWriter(writer)
        for t in polls(OLD, 36):
            sample = Sample("volume", {"device": "501", "volume": "v1"}, {"read_latency_ms": latency(t)}, t)
            old.poll("501", t, [sample], POLL, raw=False)
            old.lines["5m"].clear()  # past the 5-minute bucket's retention: only the hours are kept
        closed: dict[str, list[str]] = {}
        old.windows["501"].close_due(OLD + 37 * HOUR, closed, ROLLUP_TOTALS)
        old.lines["1h"] += closed["1h"]
        old.flush()
        for t in polls(RECENT, 6):
            sample = Sample("volume", {"device": "501", "volume": "v1"}, {"read_latency_ms": latency(t)}, t)
            recent.poll("501", t, [sample], POLL)
        recent.close(RECENT + 6 * HOUR + POLL)
        assert old.failed == recent.failed == 0
        yield


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def mean_of(times: list[int]) -> float:
    return sum(latency(t) for t in times) / len(times)


def test_steps_of_the_hourly_tier_are_means_of_every_sample_in_them(planted):
    """Two-hour steps over history only the hourly tier holds: the first step holds 12 + 4 samples, so the mean of
    the two hourly means (their mean was read, and hourly windows keep none: the series came back empty) is not it."""
    found, step = storage.windows(
        "volume", "501", "volume", ["v1"], ["read_latency_ms"], at(OLD), at(OLD + 6 * HOUR), 7200
    )
    assert step == 7200
    got = dict(found[("v1", "read_latency_ms")])
    sampled = polls(OLD, 36)
    want = {
        (OLD + k * 7200) * 1000: mean_of([t for t in sampled if OLD + k * 7200 <= t < OLD + (k + 1) * 7200])
        for k in range(3)
    }
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=1e-12)
    first_hours = [mean_of([t for t in sampled if OLD + h * HOUR <= t < OLD + (h + 1) * HOUR]) for h in (0, 1)]
    assert got[OLD * 1000] != pytest.approx(sum(first_hours) / 2, rel=1e-6)


def test_peaks_of_the_hourly_tier_are_the_largest_samples(planted):
    found, _ = storage.windows(
        "volume", "501", "volume", ["v1"], ["read_latency_ms"], at(OLD), at(OLD + 2 * HOUR), 3600, peaks=True
    )
    sampled = polls(OLD, 36)
    want = [(OLD + h * HOUR) * 1000 for h in (0, 1)]
    assert [t for t, _ in found[("v1", "read_latency_ms")]] == want
    for (_, value), h in zip(found[("v1", "read_latency_ms")], (0, 1), strict=True):
        assert value == max(latency(t) for t in sampled if OLD + h * HOUR <= t < OLD + (h + 1) * HOUR)


def test_a_range_is_read_from_the_tier_that_holds_it_at_the_requests_moment(planted):
    """Six recent hours are raw samples as at now; the same range read as at a moment 20 days on is past raw
    retention, and its mean comes from the hourly windows (the 5-minute ones were kept too): both are the mean of
    every sample of the whole hours, whichever tier answers."""
    start, end = at(RECENT), at(RECENT + 6 * HOUR)
    sampled = polls(RECENT, 6)
    now = storage.means("volume", "501", "volume", ["read_latency_ms"], start, end)
    later = storage.means("volume", "501", "volume", ["read_latency_ms"], start, end, now=end + timedelta(days=20))
    assert now[("v1", "read_latency_ms")] == pytest.approx(mean_of(sampled), rel=1e-12)
    assert later[("v1", "read_latency_ms")] == pytest.approx(mean_of(sampled), rel=1e-12)
    found, step = storage.windows(
        "volume", "501", "volume", ["v1"], ["read_latency_ms"], start, end, 60, now=end + timedelta(days=20)
    )
    assert step == 300  # as at that moment the raw samples are gone: 5-minute windows, no finer
    assert len(found[("v1", "read_latency_ms")]) == len({t // 300 for t in sampled})
