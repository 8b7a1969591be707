"""Full disks injected for real on a small tmpfs of the test's own: the spool's, the spool's bound, the database's."""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from monitor.core import services
from monitor.devstack.processes import free_port
from monitor.models import Device
from monitor.polling.records import LOST, SPOOLED
from monitor.polling.run import run_poll, run_polls
from tests import influxq
from tests.test_admin_devices import ADD_URL, form, management_data

pytestmark = pytest.mark.django_db
SWITCH_IN_BPS = 2 * 1_250_000 * 8  # the agent's 1/g2 on community "switch"
LEGACY_IN_BPS = 2_000_000 * 8  # the agent's fa0/1 on community "legacy"


class SmallDisk:
    """A tmpfs mounted for one test: filled to the last byte, and freed again."""

    def __init__(self, path: Path):
        self.path = path
        self.filler = path / "filler"

    def fill(self) -> None:
        fd = os.open(self.filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            while True:
                os.write(fd, b"\0" * 65536)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
        finally:
            os.close(fd)
        assert os.statvfs(self.path).f_bavail == 0

    def free(self) -> None:
        self.filler.unlink()
        assert os.statvfs(self.path).f_bavail > 0


@pytest.fixture
def small_disks(tmp_path):
    """Mount small tmpfs filesystems (we run as root); each is unmounted at teardown, whatever happened."""
    mounted: list[Path] = []

    def mount(size_bytes: int = 256 * 1024) -> SmallDisk:
        path = tmp_path / f"disk{len(mounted)}"
        path.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes},mode=0755", "tmpfs", str(path)], check=True)
        mounted.append(path)
        return SmallDisk(path)

    yield mount
    for path in reversed(mounted):
        if subprocess.run(["umount", str(path)], check=False).returncode:
            subprocess.run(["umount", "-l", str(path)], check=True)  # still busy: detach it now, freed when closed


def influx_rows(device: Device, start: float, stop: float, field: str | None = None) -> list[tuple[str, float]]:
    """The device's points in InfluxDB between two epoch times, as (series and field, value)."""
    script = influxq.bind(
        "from(bucket: params.bucket) |> range(start: params.start, stop: params.stop)"
        " |> filter(fn: (r) => r.device == params.device)",
        {
            "bucket": django_settings.INFLUXDB_BUCKET,
            "start": datetime.fromtimestamp(start, UTC),
            "stop": datetime.fromtimestamp(stop, UTC),
            "device": str(device.pk),
        },
    )
    rows = []
    for table in influxq.query(script):
        for record in table.records:
            if field is None or record.get_field() == field:
                series = f"{record.get_measurement()} {record.values.get('port', '')} {record.get_field()}"
                rows.append((series, record.get_value()))
    return rows


def in_bps(device: Device, port: str, start: float, stop: float) -> list[float]:
    """The port's inbound rates written between two epoch times."""
    return [
        value for series, value in influx_rows(device, start, stop, "in_bps") if series == f"interface {port} in_bps"
    ]


Point = tuple[str, tuple[tuple[str, str], ...], str, int]  # measurement, tags, field, time (ms)


def spooled_points(data: bytes) -> dict[Point, float | int]:
    """The points a spool file's line-protocol lines hold (our tags and fields hold no spaces, commas or quotes)."""
    points: dict[Point, float | int] = {}
    for line in data.decode().splitlines():
        series, fields, ms = line.split(" ")
        measurement, *tags = series.split(",")
        tagset = tuple(sorted(tuple(tag.split("=", 1)) for tag in tags))
        for pair in fields.split(","):
            name, value = pair.split("=", 1)
            number = int(value[:-1]) if value.endswith("i") else float(value)
            points[(measurement, tagset, name, int(ms))] = number  # type: ignore[index]
    return points


def stored_points(bucket: str, device: Device, start_ms: int, stop_ms: int) -> dict[Point, float | int]:
    """The device's points in a bucket between two times (ms, the stop included), keyed as spooled_points keys them."""
    script = influxq.bind(
        "from(bucket: params.bucket) |> range(start: params.start, stop: params.stop)"
        " |> filter(fn: (r) => r.device == params.device)",
        {
            "bucket": bucket,
            "start": datetime.fromtimestamp(start_ms / 1000, UTC),
            "stop": datetime.fromtimestamp((stop_ms + 1) / 1000, UTC),
            "device": str(device.pk),
        },
    )
    points: dict[Point, float | int] = {}
    for table in influxq.query(script):
        for record in table.records:
            tags = tuple(sorted((k, v) for k, v in record.values.items() if not k.startswith("_") and k not in SKIP))
            ms = round(record.get_time().timestamp() * 1000)
            points[(record.get_measurement(), tags, record.get_field(), ms)] = record.get_value()
    return points


SKIP = ("result", "table")  # columns of a Flux record that are not tags


def test_a_full_spool_disk_loses_the_samples_says_so_and_polling_goes_on(
    agent, clean_backends, influx, small_disks, settings, caplog
):
    disk = small_disks()
    settings.VAR_DIR = disk.path  # the writer spools to VAR_DIR/spool: on the small disk
    services.reset_clients()
    switch = Device.objects.create(
        name="full-switch", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    legacy = Device.objects.create(
        name="full-legacy", host="127.0.0.1", port=agent.port, community="legacy", poll_interval_s=2, timeout_s=1.0
    )
    ids, keys = [switch.pk, legacy.pk], [str(switch.pk), str(legacy.pk)]
    try:
        assert run_polls(ids) == {switch.pk: "ok", legacy.pk: "ok"}
        before = services.counter_store().load_many(keys)
        settings.INFLUXDB_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there: InfluxDB is away
        services.reset_clients()
        (disk.path / "spool").mkdir()  # a spool used before; the disk then fills up
        disk.fill()
        time.sleep(1.2)
        started = time.time()
        outcomes = run_polls(ids)
        lost_window = (started, time.time())
        assert set(outcomes) == set(ids) and all(o.startswith("ok") for o in outcomes.values()), outcomes
        for device in (switch, legacy):
            device.refresh_from_db()
            assert device.last_error == LOST
            assert "samples of this poll are lost" in device.last_error and device.consecutive_failures == 0
        spool = disk.path / "spool"
        assert f"to {spool}: No space left on device" in caplog.text
        assert "InfluxDB write failed and the spool cannot keep them" in caplog.text
        assert sorted(p.name for p in disk.path.iterdir()) == ["filler", "spool"]
        assert list(spool.iterdir()) == []  # nothing pretends to be buffered, no half-written file left
        after = services.counter_store().load_many(keys)
        assert all(after[k].taken_at > before[k].taken_at for k in keys)  # the counters moved on regardless

        disk.free()
        settings.INFLUXDB_URL = influx.url
        services.reset_clients()
        time.sleep(1.2)
        started = time.time()
        assert run_polls(ids) == {switch.pk: "ok", legacy.pk: "ok"}
        for device in (switch, legacy):
            device.refresh_from_db()
            assert device.last_error == "" and device.last_error_at is None
        assert influx_rows(switch, *lost_window) == [] and influx_rows(legacy, *lost_window) == []
        stopped = time.time() + 1
        assert in_bps(switch, "1/g2", started, stopped) == [pytest.approx(SWITCH_IN_BPS, rel=0.05)]  # no spike
        assert in_bps(legacy, "fa0/1", started, stopped) == [pytest.approx(LEGACY_IN_BPS, rel=0.05)]
    finally:
        services.reset_clients()


def test_the_spool_bound_drops_new_lines_says_so_and_keeps_older_files_for_replay(
    agent, clean_backends, influx, tmp_path, settings, caplog
):
    settings.VAR_DIR = tmp_path / "var"
    services.reset_clients()
    device = Device.objects.create(
        name="bounded", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    windows: list[tuple[float, float]] = []

    def poll() -> str:
        started = time.time()
        outcome = run_poll(device.pk)
        windows.append((started, time.time()))
        device.refresh_from_db()
        return outcome

    try:
        assert poll() == "ok"
        settings.INFLUXDB_URL = f"http://127.0.0.1:{free_port()}"
        services.reset_clients()
        for _ in range(2):
            time.sleep(1.2)
            assert poll() == "ok: samples spooled, InfluxDB unavailable"
            assert device.last_error == SPOOLED
        writer = services.influx_writer()
        kept = {path.name: path.read_bytes() for path in sorted(writer.spool_dir.glob("*.lp"))}
        # A file per flush and tier: the polls' raw samples, and the 5-minute windows (an hour's) a poll closed
        # if it ran past a window's end, in files of their own for that tier's bucket: how many is the clock's.
        tiers = {name: name.split(".", 1)[0].rsplit("-", 1)[1] for name in kept}
        assert "raw" in tiers.values() and set(tiers.values()) <= set(writer.buckets)
        writer.spool_max_bytes = writer.spooled_bytes()  # the bound is reached: the next poll has no room
        time.sleep(1.2)
        assert poll().startswith("ok")
        assert device.last_error == LOST and device.consecutive_failures == 0
        assert f"spool {writer.spool_dir} reached its bound of {writer.spool_max_bytes} bytes: " in caplog.text
        assert "new lines dropped, the files already spooled are kept" in caplog.text
        assert {path.name: path.read_bytes() for path in writer.spool_dir.glob("*.lp")} == kept

        settings.INFLUXDB_URL = influx.url
        services.reset_clients()
        time.sleep(1.2)
        assert poll() == "ok" and device.last_error == ""
        assert list(writer.spool_dir.iterdir()) == []  # replayed and removed
        counts = [len(influx_rows(device, start, stop)) for start, stop in windows]
        assert counts[1] > 0 and counts[2] > 0 and counts[3] == 0  # the dropped poll wrote nothing
        assert counts[0] > 0 and counts[4] > 0
        for tier in set(tiers.values()):  # every point of every spooled file is back, in its tier's bucket
            spooled: dict = {}
            for name in (name for name, of in tiers.items() if of == tier):
                spooled |= spooled_points(kept[name])
            times = [point[3] for point in spooled]
            assert spooled and stored_points(writer.buckets[tier], device, min(times), max(times)) == spooled
        raw = {point for name, of in tiers.items() if of == "raw" for point in spooled_points(kept[name])}
        assert len(raw) == counts[1] + counts[2]  # the raw samples of both spooled polls, and only those
    finally:
        services.reset_clients()


@pytest.mark.django_db(transaction=True)
def test_a_database_on_a_full_disk_gives_a_clear_error_and_the_samples_still_reach_influxdb(
    agent, clean_backends, db_file, small_disks, caplog, tmp_path
):
    from django.db import connection

    from monitor.polling import tasks

    switch = Device.objects.create(
        name="db-switch", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    legacy = Device.objects.create(
        name="db-legacy", host="127.0.0.1", port=agent.port, community="legacy", poll_interval_s=2, timeout_s=1.0
    )
    ids = [switch.pk, legacy.pk]
    assert tasks.poll_devices.run(ids) == {switch.pk: "ok", legacy.pk: "ok"}  # discovered, counters kept
    connection.close()
    # SQLite's backup, not the file alone: in WAL mode the newest rows may be only in the -wal file
    staged = tmp_path / "db-copy.sqlite3"
    with closing(sqlite3.connect(db_file)) as source, closing(sqlite3.connect(staged)) as copy:
        source.backup(copy)
    disk = small_disks(staged.stat().st_size + 256 * 1024)
    full_db = disk.path / "db.sqlite3"
    shutil.copyfile(staged, full_db)  # closed, its -wal folded in: one file holds it all
    original = connection.settings_dict["NAME"]
    assert original == str(db_file)
    connection.settings_dict["NAME"] = str(full_db)
    # Other processes (the web server, the receivers) hold the file open, as in production: its -wal and -shm
    # files exist before the disk fills, so reads go on and only writes fail.
    holder = sqlite3.connect(full_db)
    assert holder.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    holder.execute("SELECT count(*) FROM monitor_device").fetchone()
    try:
        disk.fill()
        time.sleep(2.5)  # rates over 2.5 s: a loaded machine's answer delays bend them less than over 1.2 s
        started = time.time()
        outcome = tasks.poll_devices.run(ids)
        window = (started, time.time() + 1)
    finally:
        connection.close()
        holder.close()
        connection.settings_dict["NAME"] = original
    assert outcome == dict.fromkeys(ids, "failed: database unavailable (OperationalError)")
    assert "polls not run or not recorded, the database is unavailable: database or disk is full" in caplog.text
    assert f"(the disk of {disk.path} is full: " in caplog.text
    # the samples arrived, with true rates (their precision is what tests/test_counters.py checks)
    assert in_bps(switch, "1/g2", *window) == [pytest.approx(SWITCH_IN_BPS, rel=0.1)]
    assert in_bps(legacy, "fa0/1", *window) == [pytest.approx(LEGACY_IN_BPS, rel=0.1)]
    assert ("poller  ok", 1) in influx_rows(switch, *window) and ("poller  ok", 1) in influx_rows(legacy, *window)
    time.sleep(1.2)
    assert tasks.poll_devices.run(ids) == {switch.pk: "ok", legacy.pk: "ok"}  # the real database: recorded again


def test_the_device_admin_hides_posted_secrets_from_error_reports(agent, admin_client, settings):
    from django.views.debug import SafeExceptionReporterFilter

    settings.DEBUG = False  # error reports filter only when DEBUG is off (as in production)
    secrets = {"community": "switch", "v3_auth_key": "auth-Zq8mark-key", "v3_priv_key": "priv-Zq8mark-key"}
    posted = form(port=str(agent.port), timeout_s="1", **secrets)
    pages = [
        admin_client.post(ADD_URL, {**management_data(admin_client), **posted}),
        admin_client.post("/admin/monitor/device/discover/", posted),
    ]
    for response in pages:
        assert response.status_code in (200, 302, 400), response.status_code
        cleansed = SafeExceptionReporterFilter().get_post_parameters(response.wsgi_request)
        assert {key: cleansed[key] for key in secrets} == dict.fromkeys(secrets, "********************")
        assert cleansed["name"] == "core-1" and cleansed["host"] == "127.0.0.1"  # the rest is reported as posted
