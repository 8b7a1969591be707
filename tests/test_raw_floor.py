"""The raw tier is trusted only as far back as InfluxDB still holds it.

The raw bucket is made as deployed (`influxdb_buckets --raw`), with a retention of one day here
(MONITOR_RAW_RETENTION_DAYS=1: InfluxDB then cuts it in shard groups of an hour, so it holds 24 to 25 hours, where
it was claimed to hold two days). History of two ports is planted through the poll path's own window accumulator
and writer, the raw samples as far back as the bucket takes them, the rollups for three days. Ranges that start
past what the bucket holds must take their 95th percentile from 5-minute means and say so, and an aggregate over
them must be drawn from its first whole window on, every value from the planted samples' arithmetic; a retention
raised later (in the settings only, then in the bucket) does not bring back what had expired.
"""

from __future__ import annotations

import math
import time
from datetime import datetime, timezone

import pytest

from collectors.samples import Sample
from monitor.timeseries import aggregates, series, tiers
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets, raw_kept_from

TRAFFIC = TEMPLATES["traffic"]
DAY, HOUR, FIVE, POLL = 86400, 3600, 300, 60
NOW_S = (int(time.time()) // FIVE - 1) * FIVE + 150  # 2.5 minutes past a window's end, a few minutes ago
FIRST = NOW_S - 3 * DAY
PORTS = ("p/1", "p/2")
SEEN_S = 180  # docs/graphs.md: a 5-minute window of devices polled every minute is counted 3 minutes after its end


def rate(port: str, t: float) -> float:
    """Uneven rates (a 95th of raw samples differs from one of 5-minute means), port 2 busier."""
    return 1e6 * (1 + (int(t) // POLL * 245489) % 991) * (2 if port == "p/2" else 1)


def times() -> list[int]:
    return list(range(FIRST + 11, NOW_S, POLL))


def plant(writer, device: str) -> None:
    history, kept_from = HistoryWriter(writer), raw_kept_from()
    for t in times():
        samples = [Sample("interface", {"device": device, "port": p}, {"in_bps": rate(p, t)}, t) for p in PORTS]
        history.poll(device, t, samples, POLL, raw=t >= kept_from)
    history.close(NOW_S)
    assert history.failed == 0


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    from django.conf import settings

    from monitor.core import services

    services.redis_client().flushdb()
    old, settings.MONITOR_RAW_RETENTION_DAYS = settings.MONITOR_RAW_RETENTION_DAYS, 1
    try:
        with own_buckets("raw_floor", tmp_path_factory.mktemp("spool")) as writer:
            plant(writer, "801")
            yield writer
    finally:
        settings.MONITOR_RAW_RETENTION_DAYS = old


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def window_means(port: str, start: float) -> dict[int, float]:
    """The 5-minute means of the whole windows of [start, now) counted as written, by window start."""
    first, last = math.ceil(start / FIVE) * FIVE, (NOW_S - SEEN_S) // FIVE * FIVE
    found: dict[int, list[float]] = {}
    for t in times():
        if first <= t < last:
            found.setdefault(t - t % FIVE, []).append(rate(port, t))
    return {w: sum(v) / len(v) for w, v in found.items()}


def p95(values) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def single(device: str, start: float) -> dict:
    return series.one(TRAFFIC, device, "p/1", at(start), at(NOW_S), 300, POLL, now=at(NOW_S))


# Ranges the old rule (retention + a day) said raw samples held: 36 hours, and two days and a minute (whose first
# whole window is within that day: its 95th was read from raw samples, labelled as 5-minute means).
PAST_RAW = {"36h": NOW_S - 36 * HOUR, "2d+1min": NOW_S - 2 * DAY - 60}


@pytest.mark.parametrize("name", list(PAST_RAW))
def test_a_range_past_what_the_raw_bucket_holds_takes_its_95th_from_5_minute_means(planted, name):
    start = PAST_RAW[name]
    data = single("801", start)
    assert data["p95_source"] == "5-minute means"
    got = next(s for s in data["series"] if s["field"] == "in_bps")["stats"]["p95"]
    assert got == pytest.approx(p95(window_means("p/1", start).values()), rel=1e-12)
    only = series.read(
        [Plot("one", TRAFFIC, (Member("801", "p/1", POLL),))], Window(at(start), at(NOW_S), 300, at(NOW_S)), "only"
    )["one"]
    assert only["p95_source"] == "5-minute means" and only["series"][0]["stats"]["p95"] == pytest.approx(got)


def test_a_range_the_raw_bucket_holds_takes_its_95th_from_raw_samples(planted):
    start = NOW_S - 20 * HOUR
    data = single("801", start)
    assert data["p95_source"] == "raw samples"
    got = next(s for s in data["series"] if s["field"] == "in_bps")["stats"]["p95"]
    assert got == pytest.approx(p95([rate("p/1", t) for t in times() if t >= start]), rel=1e-12)


def test_ranges_sharing_cached_windows_each_say_what_their_95th_is_of(planted):
    """InfluxDB cuts a bucket kept one day in shard groups of an hour and drops each once all of it is a day old: the
    bucket holds every sample from the start of the hour that holds `now` less a day. A range starting there and one
    a minute earlier share their windows (cached by the first read), not the source of their 95th percentile."""
    from monitor.timeseries import client

    (rule,) = client.client().buckets_api().find_bucket_by_name("raw_floor").retention_rules
    assert (rule.every_seconds, rule.shard_group_duration_seconds) == (DAY, HOUR)
    held_from = (NOW_S - DAY) // HOUR * HOUR
    assert single("801", held_from)["p95_source"] == "raw samples"
    data = single("801", held_from - 60)
    assert data["p95_source"] == "5-minute means"
    got = next(s for s in data["series"] if s["field"] == "in_bps")["stats"]["p95"]
    assert got == pytest.approx(p95(window_means("p/1", held_from - 60).values()), rel=1e-12)


def test_an_aggregate_past_what_the_raw_bucket_holds_is_drawn_from_its_first_window(planted):
    """Its members' 5-minute windows summed (both polled every minute, so every window has both), from the range's
    first whole window; before, its first 13 hours were read from raw samples the bucket no longer held: blank."""
    start = PAST_RAW["36h"]
    plot = Plot("lag", TRAFFIC, tuple(Member("801", p, POLL) for p in PORTS))
    data = aggregates.read(plot, Window(at(start), at(NOW_S), 300, at(NOW_S)))
    assert data["tier"] == "5m" and data["p95_source"] == "5-minute means"
    summed = {w: sum(window_means(p, start)[w] for p in PORTS) for w in window_means("p/1", start)}
    # after the newest window counted, the raw samples are more steps, a window each, the last cut at the range's end
    # (docs/graphs.md "Aggregate graphs"), and join the grid interval of the newest windows' point
    tail = {}
    for w in range((NOW_S - SEEN_S) // FIVE * FIVE, NOW_S, FIVE):
        inside = [t for t in times() if w <= t < min(w + FIVE, NOW_S)]
        tail[w] = sum(sum(rate(p, t) for t in inside) / len(inside) for p in PORTS)
    every = data["resolution_s"]  # each point the mean of its steps (5-minute windows, then the tail's)
    steps: dict[int, list[float]] = {}
    for window, value in (summed | tail).items():
        steps.setdefault(window - window % every, []).append(value)
    drawn = {t // 1000: mean for t, _, mean, _ in next(s for s in data["series"] if s["field"] == "in_bps")["points"]}
    first = math.ceil(start / FIVE) * FIVE
    assert min(drawn) == first - first % every  # from the first whole window, not 13 hours later
    for slot, values in steps.items():
        assert drawn.get(slot) == pytest.approx(sum(values) / len(values), rel=1e-12), slot
    stats = next(s for s in data["series"] if s["field"] == "in_bps")["stats"]
    assert stats["p95"] == pytest.approx(p95(summed.values()), rel=1e-12)


def test_a_raised_retention_does_not_bring_back_what_had_expired(stack_env, tmp_path, settings):
    """Raising MONITOR_RAW_RETENTION_DAYS changes nothing until the bucket keeps more (`influxdb_buckets --raw`),
    and then only from then on: the samples that had expired stay gone, and ranges reaching them stay on rollups."""
    from monitor.timeseries import client

    settings.MONITOR_RAW_RETENTION_DAYS = 1
    with own_buckets("raw_raised", tmp_path) as writer:
        plant(writer, "802")
        start = NOW_S - 36 * HOUR
        assert single("802", start)["p95_source"] == "5-minute means"
        settings.MONITOR_RAW_RETENTION_DAYS = 3  # the settings only: the bucket still keeps a day
        assert single("802", start)["p95_source"] == "5-minute means"
        assert tiers.finest_holding(at(start), at(NOW_S)).name == "5m"
        tiers.ensure_buckets(client.client(), settings.INFLUXDB_ORG, include_raw=True)  # now it keeps 3 days
        (rule,) = client.client().buckets_api().find_bucket_by_name("raw_raised").retention_rules
        assert rule.every_seconds == 3 * DAY
        assert single("802", start)["p95_source"] == "5-minute means"
        assert single("802", NOW_S - 20 * HOUR)["p95_source"] == "raw samples"  # what it held, it holds
        # three days after the raise, the bucket holds every sample of the three days before (a day's move)
        later = NOW_S + 3 * DAY + HOUR
        assert tiers.finest_holding(at(later - 2 * DAY), at(later)).name == "raw"
        assert tiers.finest_holding(at(later - 4 * DAY), at(later)).name == "5m"


def test_shard_groups_start_where_influxdb_starts_them():
    """InfluxDB starts a shard group at a multiple of its length from Go's zero time (Monday 1 January of year 1):
    days at midnight UTC, weeks on Mondays, and drops one once all of it is older than the retention."""
    from monitor.timeseries.retention import Kept

    now = datetime(2026, 11, 28, 7, 30, tzinfo=timezone.utc).timestamp()  # a Saturday
    assert Kept(14 * DAY, DAY).floor(now) == datetime(2026, 11, 14, tzinfo=timezone.utc).timestamp()
    assert Kept(14 * DAY, 7 * DAY).floor(now) == datetime(2026, 11, 9, tzinfo=timezone.utc).timestamp()  # Monday
    assert Kept(DAY, HOUR).floor(now) == datetime(2026, 11, 27, 7, tzinfo=timezone.utc).timestamp()
    assert Kept(0, 0).floor(now) is None  # kept forever
    raised = Kept(3 * DAY, HOUR, complete_from=now - DAY)
    assert raised.floor(now) == now - DAY  # what had expired before the raise stays gone
    assert raised.floor(now + 3 * DAY) == now // HOUR * HOUR  # until the new retention reaches past it
