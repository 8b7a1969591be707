"""Known truth on a real InfluxDB: a year with one burst, percentiles from raw samples, rollup tiers, sums."""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta, timezone

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor import queries, rollups
from monitor.graphtemplates import TEMPLATES
from monitor.queries import Selection

BASE = "yeartest"
NOW = datetime.now(timezone.utc).replace(second=0, microsecond=0)
BURST_AT = NOW - timedelta(days=200, hours=3, minutes=7)
BURST_BPS = 900e6
STEADY_BPS = 100e6
TRAFFIC = TEMPLATES["traffic"]


def steady(t: int) -> float:
    """Steady traffic with a daily swing of ±20 %, never above 120 Mbit/s."""
    return STEADY_BPS * (1 + 0.2 * math.sin(2 * math.pi * t / 86400))


def write(lines: list[str]) -> None:
    api = queries.client().write_api(write_options=SYNCHRONOUS)
    for i in range(0, len(lines), 50_000):
        api.write(bucket=BASE, org=settings.INFLUXDB_ORG, record=lines[i : i + 50_000], write_precision="s")


def reference_p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


@pytest.fixture(scope="module")
def history(stack_env):
    """A year of 5-minute samples for port y/1 with one 1-minute burst, a week of 1-minute noise, both rolled up."""
    old_bucket = settings.INFLUXDB_BUCKET
    settings.INFLUXDB_BUCKET = BASE
    api = queries.client().buckets_api()
    for name in (BASE, f"{BASE}_5m", f"{BASE}_1h"):
        found = api.find_bucket_by_name(name)
        if found:
            api.delete_bucket(found)
    api.create_bucket(bucket_name=BASE, org=settings.INFLUXDB_ORG)  # raw kept forever here, so old points load
    rollups.ensure_buckets(queries.client(), settings.INFLUXDB_ORG, include_raw=False)

    start = int((NOW - timedelta(days=367)).timestamp())
    burst = int(BURST_AT.timestamp())
    lines = [
        f"interface,device=901,port=y/1 in_bps={steady(t)} {t}"
        for t in range(start - start % 300, int(NOW.timestamp()), 300)
        if abs(t - burst) > 600
    ]
    # Around the burst the poller ran every minute: the burst is one sample, one minute long.
    lines += [
        f"interface,device=901,port=y/1 in_bps={BURST_BPS if t == burst else steady(t)} {t}"
        for t in range(burst - 600, burst + 601, 60)
    ]
    rng = random.Random(95)
    week = int((NOW - timedelta(days=7)).timestamp())
    noise = {"a": [], "b": []}
    for t in range(week, int(NOW.timestamp()), 60):
        a = rng.uniform(0, 100e6) * (1.5 + math.sin(t / 3600))
        b = rng.uniform(0, 100e6) * (1.5 - math.sin(t / 3600))  # busy when a is quiet
        noise["a"].append((t, a))
        noise["b"].append((t, b))
        lines.append(f"interface,device=902,port=n/a in_bps={a} {t}")
        lines.append(f"interface,device=902,port=n/b in_bps={b} {t}")
    write(lines)
    with rollups.batch_client() as client:
        chunks = rollups.backfill(client, NOW - timedelta(days=368), NOW + timedelta(minutes=5), timedelta(days=14))
    assert chunks > 20
    yield noise
    settings.INFLUXDB_BUCKET = old_bucket


def series(selection, start, end=NOW, points=800, interval=300):
    data = queries.series(TRAFFIC, selection, start, end, points, interval, now=NOW)
    return data, data["series"][0]


YEAR_PORT = Selection((("901", "y/1"),))


def test_a_one_minute_burst_survives_the_one_year_view(history):
    data, inbound = series(YEAR_PORT, NOW - timedelta(days=366))
    assert data["tier"] == "5m" and data["aggregated"]  # the 5-minute tier keeps 366 days by default
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
    for days, points in ((30, 600), (3, 600), (0.5, 300)):
        start = BURST_AT - timedelta(days=days / 2)
        data, inbound = series(YEAR_PORT, start, BURST_AT + timedelta(days=days / 2), points=points)
        assert data["tier"] == "5m"  # 200 days ago: past raw retention, inside the 5-minute tier's
        assert len(inbound["points"]) <= points
        assert max(p[3] for p in inbound["points"]) == pytest.approx(BURST_BPS, rel=0.01)
    data, _ = series(YEAR_PORT, NOW - timedelta(days=3), points=600)
    assert data["tier"] == "raw"  # within raw retention the raw samples are read


def test_narrow_window_returns_raw_samples(history):
    data, inbound = series(Selection((("902", "n/a"),)), NOW - timedelta(minutes=30), points=800, interval=60)
    assert data["tier"] == "raw" and not data["aggregated"] and data["resolution_s"] == 60
    assert 29 <= len(inbound["points"]) <= 30
    assert all(p[1] == p[2] == p[3] for p in inbound["points"])


def test_p95_matches_a_reference_from_the_raw_samples(history):
    values = [v for _, v in history["a"]]
    data, inbound = series(Selection((("902", "n/a"),)), NOW - timedelta(days=7), points=500, interval=60)
    assert data["tier"] == "raw" and len(inbound["points"]) <= 500
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
    assert rollups.pick_tier(NOW - timedelta(days=13), NOW).name == "raw"
    assert rollups.pick_tier(NOW - timedelta(days=20), NOW).name == "5m"
    assert rollups.pick_tier(NOW - timedelta(days=400), NOW).name == "1h"
    settings.MONITOR_RAW_RETENTION_DAYS = 30
    assert rollups.pick_tier(NOW - timedelta(days=20), NOW).name == "raw"


def test_changing_a_retention_keeps_existing_data(history, settings):
    api = queries.client().buckets_api()
    before = api.find_bucket_by_name(f"{BASE}_1h")
    _, inbound = series(YEAR_PORT, NOW - timedelta(days=366))
    settings.MONITOR_ROLLUP_1H_RETENTION_DAYS = 3000
    rollups.ensure_buckets(queries.client(), settings.INFLUXDB_ORG, include_raw=False)
    after = api.find_bucket_by_name(f"{BASE}_1h")
    assert after.id == before.id
    assert [r.every_seconds for r in after.retention_rules] == [3000 * 86400]
    _, again = series(YEAR_PORT, NOW - timedelta(days=366))
    assert again["points"] == inbound["points"]
