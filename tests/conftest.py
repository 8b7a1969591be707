"""Real parts for tests: Redis, InfluxDB 2.x and snmpsim agents on loopback, started once per session."""

from __future__ import annotations

import json
import os
import sys
import time
import urllib.request
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from monitor.devstack import fleet, services
from monitor.devstack.processes import Process, free_port, free_udp_port

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def no_name_lookups():
    """Tests send traffic to loopback only: a host name typed into a search (the fuzzer's, a hostile string's) is not
    sent to this machine's DNS server; the test of name lookups turns them on and asks /etc/hosts' localhost alone."""
    from django.conf import settings

    settings.MONITOR_HOSTS_DNS = False


@pytest.fixture(scope="session")
def stack_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("stack")


@pytest.fixture(scope="session")
def redis_url(stack_dir):
    port = free_port()
    process = services.start_redis(stack_dir / "redis", port, stack_dir / "log")
    yield f"redis://127.0.0.1:{port}/0"
    process.stop()


@pytest.fixture(scope="session")
def influx(stack_dir):
    port = free_port()
    process = services.start_influxd(stack_dir / "influxdb", port, stack_dir / "log")
    setup = services.setup_influxdb(f"http://127.0.0.1:{port}", "monitor", "monitor", stack_dir / "influxdb" / "token")
    yield setup
    process.stop()


@pytest.fixture(scope="session")
def db_file(stack_dir) -> Path:
    return stack_dir / "test-db.sqlite3"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(db_file):
    """A file-backed test database, so worker and beat subprocesses see the rows tests create."""
    from django.conf import settings

    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = str(db_file)


@pytest.fixture(scope="session")
def stack_env(redis_url, influx, db_file, stack_dir) -> dict[str, str]:
    """Point this process's settings and cached clients at the test services; return the env for children."""
    from django.conf import settings

    from monitor.celery import app
    from monitor.core import services as monitor_services

    var = stack_dir / "var"
    var.mkdir(exist_ok=True)
    settings.REDIS_URL = settings.CELERY_BROKER_URL = redis_url
    settings.INFLUXDB_URL, settings.INFLUXDB_TOKEN = influx.url, influx.token
    settings.INFLUXDB_ORG, settings.INFLUXDB_BUCKET = influx.org, influx.bucket
    settings.VAR_DIR = var
    app.conf.broker_url = redis_url
    from django.test.signals import setting_changed

    settings.CACHES["default"]["LOCATION"] = redis_url
    setting_changed.send(sender=None, setting="CACHES", value=settings.CACHES, enter=True)
    monitor_services.reset_clients()
    return {
        **services.influx_env(influx),
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "DATABASE_URL": f"sqlite:///{db_file}",
        "MONITOR_VAR_DIR": str(var),
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "MONITOR_SCHEDULE_REFRESH_S": "1",
        "MONITOR_HOSTS_DNS": "0",
    }


class Agent:
    """A running snmpsim agent with a control file for rates, gauges and reboots."""

    def __init__(self, port: int, control: Path, devices: dict[str, fleet.SimDevice]):
        self.port = port
        self.control_file = control
        self.devices = devices
        self._control: dict = {}

    def control(self, **changes) -> None:
        self._control.update(changes)
        tmp = self.control_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(self._control))
        tmp.replace(self.control_file)
        time.sleep(0.05)

    def reboot(self) -> None:
        self.control(epoch=time.time())

    def set_rate(self, key: str, bytes_per_s: float) -> None:
        rates = self._control.setdefault("rates", {})
        rates.setdefault(key, []).append([time.time(), bytes_per_s])
        self.control()


def known_rate_fleet() -> dict[str, fleet.SimDevice]:
    """Agents with constant, known rates (no sine), for exact assertions."""
    switch = fleet.SimDevice(
        "switch",
        "PowerConnect 6248, 3.3.7.3, VxWorks 6.5",
        "1.3.6.1.4.1.674.10895.3011",
        "test-switch",
        [
            fleet.SimPort(
                index=i, name=f"1/g{i}", in_rate=1_250_000.0 * i, out_rate=625_000.0 * i, alias=f"<b>port {i}</b>"
            )
            for i in range(1, 9)
        ],
    )
    legacy = fleet.SimDevice(
        "legacy",
        "Old 100M switch",
        "1.3.6.1.4.1.9999.1",
        "test-legacy",
        [
            fleet.SimPort(
                index=i, name=f"fa0/{i}", speed_bps=100_000_000, in_rate=2_000_000.0, out_rate=1_000_000.0, hc=False
            )
            for i in range(1, 4)
        ],
    )
    bare = fleet.SimDevice("bare", "Mystery box", "1.3.6.1.4.1.99999.1", "bare-box", [])
    return {"switch": switch, "legacy": legacy, "eql": fleet.equallogic_array("eql", "test-eql"), "bare": bare}


@pytest.fixture(scope="session")
def agent(stack_dir):
    data = stack_dir / "agent" / "data"
    devices = known_rate_fleet()
    for device in devices.values():
        device.write(data)
    port = free_udp_port()
    control = stack_dir / "agent" / "control.json"
    control.write_text("{}")
    process = services.start_snmpsim(data, port, stack_dir / "log", control_file=control, name="snmpsim-test")
    yield Agent(port, control, devices)
    process.stop()


@pytest.fixture
def clean_backends(stack_env, influx):
    """Empty Redis and the InfluxDB buckets (raw and rollup tiers) before a test (device ids repeat across tests)."""
    from monitor.core import services as monitor_services
    from monitor.timeseries import tiers

    monitor_services.redis_client().flushdb()
    body = json.dumps(
        {
            "start": "1970-01-01T00:00:00Z",
            "stop": (datetime.now(timezone.utc) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    )
    for bucket in (influx.bucket, *tiers.rollup_buckets(influx.bucket).values()):
        request = urllib.request.Request(
            f"{influx.url}/api/v2/delete?org={influx.org}&bucket={bucket}",
            data=body.encode(),
            method="POST",
            headers={"Authorization": f"Token {influx.token}", "Content-Type": "application/json"},
        )
        urllib.request.urlopen(request, timeout=30).close()
    return stack_env


def start_celery(kind: str, env: dict[str, str], log_dir: Path, *extra: str) -> Process:
    """A real Celery worker or beat subprocess on the test services."""
    argv = [sys.executable, "-m", "celery", "-A", "monitor", kind, "-l", "info", *extra]
    return Process(
        f"celery-{kind}", argv, log_dir / f"celery-{kind}-{os.getpid()}-{time.time_ns()}.log", env=env, cwd=REPO
    )


def wait_for(predicate, timeout: float, what: str, interval: float = 0.25):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


@pytest.fixture(params=["pysnmp", "fast"])
def snmp_engine(request, settings) -> str:
    """Run a test once per SNMP engine behind the session interface (MONITOR_SNMP_ENGINE)."""
    settings.MONITOR_SNMP_ENGINE = request.param
    return request.param
