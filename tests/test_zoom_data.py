"""Known truth on a real InfluxDB: a year with one burst, percentiles from raw samples, rollup tiers, sums."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone

import pytest

from monitor.timeseries import aggregates, client, tiers
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window
from monitor.timeseries.series import read
from monitor.timeseries.templates import TEMPLATES
from tests.tsbuckets import own_buckets, port_polls

BASE = "yeartest"
NOW = datetime.now(timezone.utc).replace(second=0, microsecond=0)
BURST_AT = NOW - timedelta(days=200, hours=3, minutes=7)
BURST_BPS = 900e6
STEADY_BPS = 100e6
TRAFFIC = TEMPLATES["traffic"]


def steady(t: int) -> float:
    """Steady traffic with a daily swing of ±20 %, never above 120 Mbit/s."""
    return STEADY_BPS * (1 + 0.2 * math.sin(2 * math.pi * t / 86400))


def reference_p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


@pytest.fixture(scope="module")
def history(stack_env, tmp_path_factory):
    """A year of 5-minute polls of port y/1 with one 1-minute burst, a week of 1-minute noise on two ports: all
    written as polls write them, samples and rollups."""
    with own_buckets(BASE, tmp_path_factory.mktemp("spool")) as writer:
        planted = HistoryWriter(writer)
        start = int((NOW - timedelta(days=367)).timestamp())
        burst = int(BURST_AT.timestamp())
        times = [t for t in range(start - start % 300, burst - 600, 300)]
        times += list(range(burst - 600, burst + 601, 60))  # around the burst the poller ran every minute
        times += [t for t in range(burst + 900 - burst % 300, int(NOW.timestamp()), 300)]
        port_polls(planted, "901", "y/1", times, lambda t: BURST_BPS if t == burst else steady(t), 300)
        rng = random.Random(95)
        week = int((NOW - timedelta(days=7)).timestamp())
        noise = {"a": [], "b": []}
        for t in range(week, int(NOW.timestamp()), 60):
            a = rng.uniform(0, 100e6) * (1.5 + math.sin(t / 3600))
            b = rng.uniform(0, 100e6) * (1.5 - math.sin(t / 3600))  # busy when a is quiet
            noise["a"].append((t, a))
            noise["b"].append((t, b))
        port_polls(planted, "902", "n/a", [t for t, _ in noise["a"]], dict(noise["a"]).get, 60)
        port_polls(planted, "902", "n/b", [t for t, _ in noise["b"]], dict(noise["b"]).get, 60)
        planted.close(NOW.timestamp())
        assert planted.failed == 0
        yield noise


def series(selection, start, end=NOW, points=800, interval=300):
    plot = Plot("p", TRAFFIC, tuple(Member(device, port, interval) for device, port in selection))
    span = Window.of(start, end, points, NOW)
    data = aggregates.read(plot, span) if plot.summed else read([plot], span)["p"]
    return data, data["series"][0]


def Selection(members):
    return tuple(members)


YEAR_PORT = Selection((("901", "y/1"),))


def test_a_one_minute_burst_survives_the_one_year_view(history):
    data, inbound = series(YEAR_PORT, NOW - timedelta(days=366))
    assert data["tier"] == "1h" and data["aggregated"]  # a year reads hourly windows: 800 points need no finer
    assert 0 < len(inbound["points"]) <= 800
    peak = max(inbound["points"], key=lambda p: p[3])
    assert peak[3] == pytest.approx(BURST_BPS, rel=0.01)
    assert peak[0] <= BURST_AT.timestamp() * 1000 < peak[0] + data["resolution_s"] * 1000
    assert peak[2] < 0.2 * BURST_BPS  # the mean of that interval hides it: only the max envelope keeps it
    assert inbound["stats"]["maximum"] == pytest.approx(BURST_BPS, rel=0.01)
    others = [p[3] for p in inbound["points"] if p is not peak]
    assert max(others) <= STEADY_BPS * 1.2 * 1.001


def test_the_one_hour_tier_keeps_the_burst_too(history):
    data, inbound = series(YEAR_PORT, NOW - timedelta(days=400), points=400)
    assert data["tier"] == "1h" and len(inbound["points"]) <= 400
    assert max(p[3] for p in inbound["points"]) == pytest.approx(BURST_BPS, rel=0.01)
    assert inbound["stats"]["maximum"] == pytest.approx(BURST_BPS, rel=0.01)


def test_the_burst_is_at_its_height_at_every_zoom_level(history):
    for days, points, tier in ((30, 600, "1h"), (3, 600, "5m"), (0.5, 300, "5m")):
        start = BURST_AT - timedelta(days=days / 2)
        data, inbound = series(YEAR_PORT, start, BURST_AT + timedelta(days=days / 2), points=points)
        assert data["tier"] == tier  # 200 days ago: past raw retention; the coarsest tier as fine as the pixels
        assert len(inbound["points"]) <= points
        assert max(p[3] for p in inbound["points"]) == pytest.approx(BURST_BPS, rel=0.01)
    data, _ = series(YEAR_PORT, NOW - timedelta(days=3), points=600)
    assert data["tier"] == "5m"  # in raw retention too: 600 points of 3 days are 5-minute windows, max kept
    data, _ = series(YEAR_PORT, NOW - timedelta(hours=6), points=600)
    assert data["tier"] == "raw"  # a point finer than a 5-minute window: the raw samples


def test_narrow_window_returns_raw_samples(history):
    data, inbound = series(Selection((("902", "n/a"),)), NOW - timedelta(minutes=30), points=800, interval=60)
    assert data["tier"] == "raw" and not data["aggregated"] and data["resolution_s"] == 60
    assert 29 <= len(inbound["points"]) <= 30
    assert all(p[1] == p[2] == p[3] for p in inbound["points"])


def test_p95_matches_a_reference_from_the_raw_samples(history):
    values = [v for _, v in history["a"]]
    data, inbound = series(Selection((("902", "n/a"),)), NOW - timedelta(days=7), points=500, interval=60)
    assert data["tier"] == "5m" and len(inbound["points"]) <= 500  # the chart from 5-minute windows...
    assert data["p95_source"] == "raw samples"  # ...its 95th percentile from every raw sample
    assert inbound["stats"]["p95"] == pytest.approx(reference_p95(values), rel=0.005)
    assert inbound["stats"]["maximum"] == pytest.approx(max(values), rel=1e-9)
    assert inbound["stats"]["average"] == pytest.approx(sum(values) / len(values), rel=1e-6)


def test_an_aggregate_sums_per_interval_before_the_percentile(history):
    summed = [a + b for (_, a), (_, b) in zip(history["a"], history["b"], strict=True)]
    naive = reference_p95([v for _, v in history["a"]]) + reference_p95([v for _, v in history["b"]])
    pair = Selection((("902", "n/a"), ("902", "n/b")))
    _, inbound = series(pair, NOW - timedelta(days=7), points=500, interval=60)
    assert inbound["stats"]["p95"] == pytest.approx(reference_p95(summed), rel=0.005)
    assert abs(inbound["stats"]["p95"] - naive) > 0.05 * naive  # adding per-port percentiles would be wrong
    assert inbound["stats"]["maximum"] == pytest.approx(max(summed), rel=1e-6)
    assert len(inbound["points"]) <= 500


def test_tiers_follow_the_retention_settings(history, settings):
    assert tiers.finest_holding(NOW - timedelta(days=13), NOW).name == "raw"
    assert tiers.finest_holding(NOW - timedelta(days=20), NOW).name == "5m"
    assert tiers.finest_holding(NOW - timedelta(days=366, minutes=1), NOW).name == "5m"  # the 1y preset
    assert tiers.finest_holding(NOW - timedelta(days=400), NOW).name == "1h"
    settings.MONITOR_RAW_RETENTION_DAYS = 30  # the setting alone: the raw bucket still keeps 14 days
    assert tiers.finest_holding(NOW - timedelta(days=20), NOW).name == "5m"


def test_changing_a_retention_keeps_existing_data(history, settings):
    api = client.client().buckets_api()
    before = api.find_bucket_by_name(f"{BASE}_1h")
    _, inbound = series(YEAR_PORT, NOW - timedelta(days=366))
    settings.MONITOR_ROLLUP_1H_RETENTION_DAYS = 3000
    tiers.ensure_buckets(client.client(), settings.INFLUXDB_ORG, include_raw=False)
    after = api.find_bucket_by_name(f"{BASE}_1h")
    assert after.id == before.id
    assert [r.every_seconds for r in after.retention_rules] == [3000 * 86400]
    _, again = series(YEAR_PORT, NOW - timedelta(days=366))
    assert again["points"] == inbound["points"]


@pytest.mark.parametrize("points", [800, 296, 37])
def test_a_chart_never_has_more_points_than_asked_whatever_the_minute(history, points):
    """Windows cut short at both ends of the range and the raw samples around the whole windows are points too:
    at any moment of the hour, a year stays within `points` (it drew 801 of 800 at some minutes)."""
    for minutes in range(0, 60, 7):
        end = NOW - timedelta(minutes=minutes, seconds=13)
        _, inbound = series(YEAR_PORT, end - timedelta(days=366), end, points=points)
        assert 0 < len(inbound["points"]) <= points, (minutes, len(inbound["points"]))


def test_the_buckets_command_makes_the_rollup_tiers_of_a_fresh_install(clean_backends, settings):
    """`manage.py influxdb_buckets` (run by the web service at each start): a fresh install's rollup buckets made
    with their retention; the raw bucket's retention left alone unless asked (an upgrade backfills first)."""
    from io import StringIO

    from django.core.management import call_command

    api = client.client().buckets_api()
    settings.INFLUXDB_BUCKET = "fresh_install"
    api.create_bucket(bucket_name="fresh_install", org=settings.INFLUXDB_ORG)  # what InfluxDB's own setup makes
    out = StringIO()
    call_command("influxdb_buckets", stdout=out)
    assert "fresh_install_5m (366 days)" in out.getvalue() and "fresh_install_1h (1830 days)" in out.getvalue()
    assert [r.every_seconds for r in api.find_bucket_by_name("fresh_install_5m").retention_rules] == [366 * 86400]
    assert [r.every_seconds for r in api.find_bucket_by_name("fresh_install_1h").retention_rules] == [1830 * 86400]
    assert not [r.every_seconds for r in api.find_bucket_by_name("fresh_install").retention_rules if r.every_seconds]
    call_command("influxdb_buckets", "--raw", stdout=out)  # twice is harmless; --raw expires raw samples too
    raw = api.find_bucket_by_name("fresh_install").retention_rules
    assert [r.every_seconds for r in raw] == [settings.MONITOR_RAW_RETENTION_DAYS * 86400]
    for name in ("fresh_install", "fresh_install_5m", "fresh_install_1h"):
        api.delete_bucket(api.find_bucket_by_name(name))
