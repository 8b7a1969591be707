"""The product for scenarios 4-6: Django on a bench database, real Celery worker and beat, the series API."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from bench.common import REPO
from monitor.devstack.processes import Process
from monitor.devstack.services import InfluxSetup, influx_env


def bench_environment(work: Path) -> dict[str, str]:
    """Settings that keep the bench off the project's own database and var/ (set before Django is imported)."""
    (work / "var").mkdir(parents=True, exist_ok=True)
    return {
        "DATABASE_URL": f"sqlite:///{work / 'bench.sqlite3'}",
        "MONITOR_VAR_DIR": str(work / "var"),
        "DJANGO_SECRET_KEY": "bench-only-secret-key-not-for-production-0123456789",
        "DJANGO_ALLOWED_HOSTS": "testserver,127.0.0.1,localhost",
        "MONITOR_SCHEDULE_REFRESH_S": "1",
        "MONITOR_RAW_RETENTION_DAYS": "0",  # scenario 5 keeps its year of data in the raw tier
        "DJANGO_SETTINGS_MODULE": "monitor.settings",
    }


def configure(
    work: Path,
    redis_url: str,
    influx: InfluxSetup,
    engine: str = "fast",
    fresh: bool = True,
    database_url: str | None = None,
) -> dict[str, str]:
    """Point this process (and the children it starts) at the bench services, migrate a new database unless
    `fresh` is off (a child joining its parent's), return the env. `database_url`: a bench PostgreSQL
    (bench/pgserver.py) instead of the SQLite file under `work`."""
    if fresh:  # a spool left by an earlier run (its InfluxDB killed) would be replayed into this run's
        shutil.rmtree(work / "var" / "spool", ignore_errors=True)
    env = {
        **bench_environment(work),
        **influx_env(influx),
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "MONITOR_SNMP_ENGINE": engine,
    }
    if database_url:
        env["DATABASE_URL"] = database_url
    os.environ.update(env)
    import django
    from django.conf import settings

    django.setup()
    database = Path(str(settings.DATABASES["default"]["NAME"])).resolve()
    if database_url:
        host = settings.DATABASES["default"].get("HOST")
        if host != "127.0.0.1":
            raise RuntimeError(f"refusing to run the bench on a database at {host!r}, not the bench's own (127.0.0.1)")
    elif not database.is_relative_to(work.resolve()):
        raise RuntimeError(f"refusing to run the bench on {database}: settings were loaded before the bench's own")
    settings.REDIS_URL = settings.CELERY_BROKER_URL = redis_url
    settings.INFLUXDB_URL, settings.INFLUXDB_TOKEN = influx.url, influx.token
    settings.INFLUXDB_ORG, settings.INFLUXDB_BUCKET = influx.org, influx.bucket
    settings.MONITOR_SNMP_ENGINE = engine
    settings.CACHES["default"]["LOCATION"] = redis_url  # settings may have been read before the bench's env
    from django.test.signals import setting_changed

    setting_changed.send(sender=None, setting="CACHES", value=settings.CACHES, enter=True)
    from monitor.core import services

    services.reset_clients()
    if fresh:
        if not database_url:
            for suffix in ("", "-wal", "-shm"):  # a -wal file left beside a new file would be replayed into it
                (work / f"bench.sqlite3{suffix}").unlink(missing_ok=True)
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
    return env


def client():
    """A logged-in Django test client (the series API needs a login)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(
        username="bench", defaults={"is_staff": True, "is_superuser": True}
    )
    result = Client()
    result.force_login(user)
    return result


def add_switches(devices: list[tuple[str, int, str]], interval: int, **extra) -> list:
    """Device rows for (host, port, community) triples, polled every `interval` seconds."""
    from monitor.models import Device

    return [
        Device.objects.create(
            name=f"bench-{community}-{n}",
            host=host,
            port=port,
            community=community,
            poll_interval_s=interval,
            **{"timeout_s": 2.0, "retries": 1, **extra},
        )
        for n, (host, port, community) in enumerate(devices)
    ]


def celery(kind: str, env: dict[str, str], log_dir: Path, *extra: str) -> Process:
    argv = [sys.executable, "-m", "celery", "-A", "monitor", kind, "-l", "warning", *extra]
    return Process(f"celery-{kind}", argv, log_dir / f"bench-celery-{kind}.log", env=env, cwd=REPO)


def clear_devices() -> None:
    from monitor.models import Device

    Device.objects.all().delete()


def flux_rows(influx: InfluxSetup, flux: str) -> list[dict[str, str]]:
    """Run a Flux query; rows of the annotated CSV as dicts."""
    import json
    import urllib.request

    request = urllib.request.Request(
        f"{influx.url}/api/v2/query?org={influx.org}",
        data=json.dumps({"query": flux, "type": "flux", "dialect": {"annotations": []}}).encode(),
        headers={"Authorization": f"Token {influx.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        lines = [line.split(",") for line in response.read().decode().splitlines() if line.strip()]
    rows, header = [], None
    for line in lines:
        if "_value" in line or "_time" in line:
            header = line
        elif header and len(line) == len(header):
            rows.append(dict(zip(header, line, strict=True)))
    return rows


def _per_device(
    influx: InfluxSetup, measurement: str, field: str, start: float, stop: float, column: str
) -> dict[str, list[str]]:
    """One column (_time or _value) of one field's points per device between start and stop."""
    flux = (
        f'from(bucket:"{influx.bucket}") |> range(start:{int(start)}, stop:{int(stop) + 1})'
        f' |> filter(fn:(r) => r._measurement == "{measurement}" and r._field == "{field}")'
        f' |> keep(columns:["{column}","device"])'
    )
    found: dict[str, list[str]] = {}
    for row in flux_rows(influx, flux):
        found.setdefault(row["device"], []).append(row[column])
    return found


def sample_times(
    influx: InfluxSetup, measurement: str, field: str, start: float, stop: float
) -> dict[str, list[float]]:
    """Times (epoch s) of one field's points per device between start and stop."""
    from datetime import datetime

    rows = _per_device(influx, measurement, field, start, stop, "_time")
    return {
        device: [datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() for at in times]
        for device, times in rows.items()
    }


def field_values(
    influx: InfluxSetup, measurement: str, field: str, start: float, stop: float
) -> dict[str, list[float]]:
    """Values of one field per device between start and stop (for the poller's `tick` and `skipped_tick`)."""
    rows = _per_device(influx, measurement, field, start, stop, "_value")
    return {device: [float(value) for value in values] for device, values in rows.items()}


def tick_of(device_id: int, interval: int, at: float) -> int:
    """The scheduled tick a sample taken at `at` belongs to."""
    from monitor.polling.scheduler import aligned_every, device_phase

    return aligned_every(interval, device_phase(device_id, interval)).current_tick(at)
