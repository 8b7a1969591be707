"""Faults injected for real: InfluxDB away, Redis restarted, a worker killed mid-poll. Nothing lost, no spike."""

import time
from datetime import UTC, datetime, timedelta

import pytest

from collectors.procs import gone
from monitor.core import services
from monitor.devstack import services as devstack
from monitor.devstack.processes import free_port, free_udp_port
from monitor.models import Device
from monitor.polling.run import RUNNING_KEY, run_poll
from monitor.timeseries import series
from monitor.timeseries.templates import TEMPLATES
from tests import influxq
from tests.conftest import start_celery, wait_for

pytestmark = pytest.mark.django_db


def in_rates(device: Device, port: str) -> list[list]:
    end = datetime.now(UTC) + timedelta(seconds=1)
    data = series.one(
        TEMPLATES["traffic"], str(device.pk), port, end - timedelta(minutes=15), end, 900, device.poll_interval_s
    )
    return next(s["points"] for s in data["series"] if s["field"] == "in_bps")


def raw_points(device: Device, port: str, field: str = "in_bps") -> list[tuple[float, float]]:
    """Every stored (time, value) of one port's field, straight from the raw bucket (no windowing)."""

    script = influxq.bind(
        'from(bucket: params.bucket) |> range(start: -1h) |> filter(fn: (r) => r._measurement == "interface"'
        " and r.device == params.device and r.port == params.port and r._field == params.field)",
        {"bucket": "monitor", "device": str(device.pk), "port": port, "field": field},
    )
    tables = influxq.query(script)
    return sorted((record.get_time().timestamp(), record.get_value()) for t in tables for record in t.records)


OUTAGE_POLLS = 40  # ten minutes of 15-second polls, run back to back


def test_influxdb_outage_buffers_samples_and_replays_them_once(
    agent, clean_backends, stack_dir, settings, admin_client
):
    """InfluxDB stops for ten minutes' worth of polls: the spool keeps every sample; each arrives once."""
    data_dir, port = stack_dir / "influx-outage", free_port()
    influxd = devstack.start_influxd(data_dir, port, stack_dir / "log")
    setup = devstack.setup_influxdb(f"http://127.0.0.1:{port}", "monitor", "monitor", data_dir / "token")
    settings.INFLUXDB_URL, settings.INFLUXDB_TOKEN = setup.url, setup.token
    settings.VAR_DIR = stack_dir / "outage-var"
    services.reset_clients()
    device = Device.objects.create(
        name="outage", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=1, timeout_s=1.0
    )
    try:
        assert run_poll(device.pk) == "ok"
        influxd.stop()
        for _ in range(OUTAGE_POLLS):
            time.sleep(0.5)
            assert run_poll(device.pk) == "ok: samples spooled, InfluxDB unavailable"
        device.refresh_from_db()
        assert "InfluxDB unavailable" in device.last_error and device.consecutive_failures == 0
        assert services.influx_writer().spooled_bytes() > 0
        page = admin_client.get(f"/devices/{device.pk}/").content.decode()
        assert "samples are buffered on disk and will be written later" in page  # the page says data is delayed
        influxd = devstack.start_influxd(data_dir, port, stack_dir / "log")
        time.sleep(0.5)
        assert run_poll(device.pk) == "ok"
        assert services.influx_writer().spooled_bytes() == 0
        points = raw_points(device, "1/g2")
        times = [t for t, _ in points]
        assert len(points) == OUTAGE_POLLS + 1  # every poll of the outage and the one after: none lost
        assert len(set(times)) == len(times)  # and none twice
        values = sorted(v for _, v in points)
        assert values[len(values) // 2] == pytest.approx(2 * 1_250_000 * 8, rel=0.02)
        assert all(0 < v < 1e9 for v in values)  # no spike across the outage, none above the port's speed
        device.refresh_from_db()
        assert device.last_error == ""
    finally:
        influxd.stop()
        services.reset_clients()


def test_redis_restart_polling_resumes_without_a_spike(agent, clean_backends, stack_dir, settings):
    port = free_port()
    redis = devstack.start_redis(stack_dir / "redis-restart", port, stack_dir / "log")
    settings.REDIS_URL = f"redis://127.0.0.1:{port}/0"
    services.reset_clients()
    device = Device.objects.create(
        name="redis", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    try:
        assert run_poll(device.pk, tick=1000) == "ok"
        assert run_poll(device.pk, tick=1000) == "skipped: tick already polled"
        time.sleep(1.5)  # Redis appends to its file every second (appendfsync everysec, as deployed)
        redis.kill()  # SIGKILL: no clean shutdown, no final save
        redis = devstack.start_redis(stack_dir / "redis-restart", port, stack_dir / "log")
        assert run_poll(device.pk, tick=1000) == "skipped: tick already polled"  # the claim outlived the restart
        assert run_poll(device.pk, tick=1005) == "ok"  # the client reconnects by itself
        time.sleep(1.2)
        assert run_poll(device.pk, tick=1010) == "ok"
        points = in_rates(device, "1/g4")
        assert len(points) == 2  # the counters outlived the restart too: no interval lost, none twice
        assert all(p[3] == pytest.approx(4 * 1_250_000 * 8, rel=0.05) for p in points)
    finally:
        redis.stop()
        services.reset_clients()


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_poll_does_not_block_the_next_poll(clean_backends, stack_dir):
    device = Device.objects.create(
        name="killed",
        host="127.0.0.1",
        port=free_udp_port(),
        community="x",
        poll_interval_s=5,
        timeout_s=4.0,
        retries=0,
    )
    log_dir = stack_dir / "log"
    worker = start_celery("worker", clean_backends, log_dir, "--concurrency", "1", "-n", "victim@%h")
    from monitor.celery import app

    try:
        wait_for(lambda: app.control.ping(timeout=0.5), 30, "the worker to start")
        app.send_task("monitor.poll_device", args=(device.pk,), kwargs={"tick": 2000})
        wait_for(lambda: services.redis_client().exists(RUNNING_KEY.format(device=device.pk)), 20, "the poll to start")
        worker.kill()  # SIGKILL in the middle of the poll: the lock stays behind
    finally:
        worker.stop()
    holder = services.redis_client().get(RUNNING_KEY.format(device=device.pk))
    assert holder is not None
    # The poll ran in the pool's child, killed with the worker's group but maybe not yet gone when the worker is
    # reaped (CI once asked while it was still exiting): a lock is taken over from a process that no longer exists.
    wait_for(lambda: gone(int(holder.decode().rpartition(":")[2])), 10, "the killed poller to exit")
    started = time.monotonic()
    assert run_poll(device.pk, tick=2005).startswith("failed: no SNMP response")  # ran, was not skipped
    assert time.monotonic() - started < 6
    device.refresh_from_db()
    assert device.consecutive_failures == 1 and "no SNMP response" in device.last_error


@pytest.mark.django_db(transaction=True)
def test_a_locked_database_gives_a_clear_error_not_an_exception(agent, clean_backends, db_file, caplog):
    import sqlite3

    from django.db import connection

    from monitor.polling import tasks

    device = Device.objects.create(
        name="locked", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    connection.close()
    connection.settings_dict["OPTIONS"]["timeout"] = 0.5
    blocker = sqlite3.connect(db_file)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        outcome = tasks.poll_device.run(device.pk)
    finally:
        blocker.rollback()
        blocker.close()
        connection.close()
        connection.settings_dict["OPTIONS"]["timeout"] = 20
    assert outcome == "failed: database unavailable (OperationalError)"
    assert "the database is unavailable: database is locked" in caplog.text
    assert run_poll(device.pk) == "ok"  # and the next poll, with the lock gone, works
