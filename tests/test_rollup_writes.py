"""Rollups written by the polls that close their windows (no rescan of raw data): through real polls of a real
agent, through InfluxDB outages (spooled with their samples), for devices no longer polled, and for old history."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from django.conf import settings
from django.core.management import call_command

from collectors.influx import InfluxWriter, WriteResult
from collectors.rollup import SPREAD_S, Windows
from collectors.samples import CounterState
from collectors.state import OPEN_KEY
from monitor.core import services
from monitor.models import Device
from monitor.polling import sweep
from monitor.polling.run import run_poll
from monitor.timeseries import client, tiers
from monitor.timeseries.history import HistoryWriter
from tests import influxq
from tests.tsbuckets import own_buckets, port_polls

pytestmark = pytest.mark.django_db


def points(bucket: str, device: str, start: str = "-3h") -> dict[tuple[str, str, int], float]:
    """{(measurement and port, field, epoch s): value} of a device in a bucket."""
    found = influxq.records(
        f"from(bucket: params.bucket) |> range(start: {start}) |> filter(fn: (r) => r.device == params.device)",
        {"bucket": bucket, "device": device},
    )
    return {
        (f"{r.get_measurement()} {r.values.get('port', '')}".strip(), r.get_field(), int(r.get_time().timestamp())): (
            r.get_value()
        )
        for r in found
    }


def test_a_poll_writes_the_windows_that_ended_before_it(agent, clean_backends):
    """The state says a window opened 65 minutes ago: the next poll writes it, and its hour, with exact stats."""
    device = Device.objects.create(
        name="windows", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    begun = time.time()
    assert run_poll(device.pk) == "ok"
    read = time.time()  # the first poll's readings lie between `begun` and this
    time.sleep(1.5)
    reading = time.time()
    assert run_poll(device.pk) == "ok"  # the first rates, in the current window
    spans = (reading - read, time.time() - begun)  # the time between the two polls' readings lies between these
    store = services.counter_store()
    state = store.load(str(device.pk))
    now = time.time()
    five = now - now % 300 - 3900  # 65 minutes back: the window and its hour are over
    key = next(k for k in state.windows.series if k.startswith("interface,") and k.endswith("port=1/g3"))
    kept = state.windows.series[key][2]["in_bps"]
    assert kept[3] == 1  # one rate sample in the open window so far (min, max, sum, count, total, last)
    for entry in state.windows.series.values():
        entry[0], entry[1] = five, five - five % 3600
    store.save(str(device.pk), state)
    assert run_poll(device.pk) == "ok"
    rate = 3 * 1_250_000 * 8  # the agent's known rate for 1/g3
    five_m = points(f"{settings.INFLUXDB_BUCKET}_5m", str(device.pk))
    assert five_m[("interface 1/g3", "in_bps_count", int(five))] == 1
    for stat in ("min", "max", "mean", "sum"):
        assert five_m[("interface 1/g3", f"in_bps_{stat}", int(five))] == pytest.approx(rate, rel=0.03)
    total = five_m[("interface 1/g3", "in_bps_total", int(five))]  # the one rate for the time its delta covers
    assert rate * spans[0] * 0.97 <= total <= rate * spans[1] * 1.03
    hourly = points(f"{settings.INFLUXDB_BUCKET}_1h", str(device.pk))
    assert hourly[("interface 1/g3", "in_bps_max", int(five - five % 3600))] == pytest.approx(rate, rel=0.03)
    assert ("interface 1/g3", "speed_bps_max", int(five)) not in five_m  # integers are states: raw only
    assert ("poller", "duration_s_count", int(five)) in five_m  # the poller's own figures are rolled up too
    assert not any(stat.endswith("_mean") for _, stat, _ in hourly)  # hourly windows keep sum and count


def test_windows_closed_while_influxdb_is_away_are_spooled_and_replayed(influx, clean_backends, tmp_path):
    spool = tmp_path / "spool"
    buckets = tiers.rollup_buckets(influx.bucket)
    away = InfluxWriter("http://127.0.0.1:9", influx.token, influx.org, influx.bucket, spool, rollup_buckets=buckets)
    start = int(time.time()) // 300 * 300 - 600
    line = f"interface,device=901,port=s/1 in_bps_min=1.0,in_bps_max=3.0,in_bps_sum=4.0,in_bps_count=2i {start}000"
    assert away.write_lines([line], "5m") is WriteResult.SPOOLED
    (spooled,) = spool.glob("*.lp")
    assert spooled.name.endswith("-5m.lp")
    back = InfluxWriter(influx.url, influx.token, influx.org, influx.bucket, spool, rollup_buckets=buckets)
    assert back.write_lines([f"interface,device=901,port=s/1 in_bps=2.0 {start}000"]) is WriteResult.WRITTEN
    assert list(spool.glob("*.lp")) == []  # replayed with the next write, into its own tier's bucket
    assert points(f"{influx.bucket}_5m", "901")[("interface s/1", "in_bps_max", start)] == 3.0
    assert ("interface s/1", "in_bps_max", start) not in points(influx.bucket, "901")


def test_the_sweep_closes_the_windows_of_devices_no_longer_polled(clean_backends):
    store = services.counter_store()
    state = CounterState()
    ended = time.time() - 3 * 3600
    state.windows.add("interface,device=902,port=s/2", "interface", ended, {"in_bps": 5.0}, 60, {})
    store.save("902", state)
    assert services.redis_client().zscore(OPEN_KEY, "902") is not None
    assert sweep.close_idle_windows() == 1
    five = int(ended - ended % 300)
    assert points(f"{settings.INFLUXDB_BUCKET}_5m", "902", "-4h")[("interface s/2", "in_bps_mean", five)] == 5.0
    assert points(f"{settings.INFLUXDB_BUCKET}_1h", "902", "-4h")[("interface s/2", "in_bps_min", five - five % 3600)]
    assert services.redis_client().zscore(OPEN_KEY, "902") is None  # nothing open any more
    assert sweep.close_idle_windows() == 0
    assert "sweep" in settings.CELERY_BEAT_SCHEDULE["rollups-sweep"]["task"]


def test_the_sweep_writes_a_window_left_waiting_by_a_device_no_longer_polled(clean_backends):
    store = services.counter_store()
    state = CounterState()
    hour = (time.time() - 3 * 3600) // 3600 * 3600
    five = hour + 3300  # the hour's last window
    closed: dict[str, list[str]] = {}
    state.windows.add("interface,device=904,port=s/4", "interface", five + 100, {"in_bps": 7.0}, 60, closed)
    state.windows.close_due(five + 310, closed, delay_s=SPREAD_S)  # its last poll: the hour is due, the window waits
    assert list(closed) == ["1h"] and not state.windows.series and len(state.windows.pending) == 1
    store.save("904", state)
    assert services.redis_client().zscore(OPEN_KEY, "904") == five + 300 + SPREAD_S  # when the line was due
    assert sweep.close_idle_windows() == 1
    assert points(f"{settings.INFLUXDB_BUCKET}_5m", "904", "-4h")[("interface s/4", "in_bps_mean", int(five))] == 7.0
    assert services.redis_client().zscore(OPEN_KEY, "904") is None
    assert store.load("904").windows.pending == []


def test_a_window_still_open_is_not_swept(clean_backends):
    store = services.counter_store()
    state = CounterState(windows=Windows())
    state.windows.add("interface,device=903,port=s/3", "interface", time.time(), {"in_bps": 5.0}, 60, {})
    store.save("903", state)
    assert sweep.close_idle_windows() == 0
    assert store.load("903").windows.series  # left for the device's next poll


def test_rollup_backfill_rolls_up_old_raw_samples_like_the_pollers(stack_env, tmp_path):
    """Raw samples written without rollups (an upgrade) get the same windows the poll path writes."""
    hour = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    first = hour.timestamp()
    times = [first + 60 * i for i in range(120)]  # two hours, one sample a minute

    def rate(t: float) -> float:
        return 1000.0 + (t - first)

    with own_buckets("backfilled", tmp_path / "a") as writer:
        device = Device.objects.create(name="old", host="127.0.0.1", community="x", poll_interval_s=60)
        raw_only = HistoryWriter(writer, rollups=False)  # as written before the pollers kept rollups
        port_polls(raw_only, str(device.pk), "o/1", times, rate, 60)
        raw_only.flush()
        assert points("backfilled_5m", str(device.pk), "-1d") == {}
        call_command("rollup_backfill", "--days", "1")
        five = points("backfilled_5m", str(device.pk), "-1d")
        hourly = points("backfilled_1h", str(device.pk), "-1d")
    assert len({t for _, _, t in five}) == 24 and len({t for _, _, t in hourly}) == 2
    first_window = [rate(first + 60 * i) for i in range(5)]
    assert five[("interface o/1", "in_bps_min", int(first))] == min(first_window)
    assert five[("interface o/1", "in_bps_sum", int(first))] == sum(first_window)
    assert five[("interface o/1", "in_bps_count", int(first))] == 5
    assert hourly[("interface o/1", "in_bps_max", int(first))] == rate(first + 60 * 59)
    assert hourly[("interface o/1", "in_bps_count", int(first) + 3600)] == 60
    with own_buckets("live", tmp_path / "b") as writer:  # the same samples through the poll path's writer
        live = HistoryWriter(writer)
        port_polls(live, str(device.pk), "o/1", times, rate, 60)
        live.close(times[-1] + 3600)
        assert points("live_5m", str(device.pk), "-1d") == five
        assert points("live_1h", str(device.pk), "-1d") == hourly


def test_rollup_buckets_get_long_shards_and_their_retention(stack_env):
    api = client.client().buckets_api()
    for tier in tiers.tiers():
        bucket = api.find_bucket_by_name(tier.bucket)
        (rule,) = bucket.retention_rules
        assert rule.every_seconds == tier.retention_days * 86400
        if tier.step_s:
            assert rule.shard_group_duration_seconds == tiers.SHARD_S[tier.name]  # a year reads few shards
