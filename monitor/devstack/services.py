"""Start Redis, InfluxDB 2.x and snmpsim agents on loopback, and set InfluxDB up (org, bucket, token)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from monitor.devstack.processes import Process, StartError, wait_http, wait_tcp

PROJECT = Path(__file__).resolve().parents[2]
VARIATION_DIR = Path(__file__).resolve().parent / "variation"


def start_redis(data_dir: Path, port: int, log_dir: Path) -> Process:
    binary = shutil.which("redis-server")
    if binary is None:
        raise StartError("redis-server is not installed: run `make deps` (apt-get install redis-server)")
    data_dir.mkdir(parents=True, exist_ok=True)
    argv = [
        binary,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(data_dir),
        "--save",
        "60 1",
        "--appendonly",  # as in docker-compose.yml: tick claims and counters survive a restart (at most 1 s lost)
        "yes",
        "--appendfsync",
        "everysec",
        "--protected-mode",
        "yes",
        "--daemonize",
        "no",
    ]
    process = Process("redis", argv, log_dir / "redis.log")
    wait_tcp(process, port)
    return process


def influxd_binary() -> str:
    """The influxd to run: $INFLUXD, else the one scripts/ensure-influxd.sh finds or builds."""
    if os.environ.get("INFLUXD"):
        return os.environ["INFLUXD"]
    result = subprocess.run(["bash", str(PROJECT / "scripts" / "ensure-influxd.sh")], capture_output=True, text=True)
    if result.returncode != 0:
        raise StartError(f"could not find or build influxd:\n{result.stderr[-2000:]}")
    return result.stdout.strip().splitlines()[-1]


_GO_BYTES = re.compile(r"\d+(?:B|KiB|MiB|GiB|TiB)?|off")  # GOMEMLIMIT's syntax (Go's runtime package docs)


def influxd_memory_limit() -> str:
    """GOMEMLIMIT for influxd: $INFLUXD_MEMORY_LIMIT, else half of this machine's memory. Near it the Go runtime
    collects and hands back what a peak of writes, compactions or a large read took instead of keeping it (a soft
    limit: it cannot stop one read that needs more, as the bench's fleet-wide probe did: docs/scaling.md)."""
    configured = os.environ.get("INFLUXD_MEMORY_LIMIT", "").strip()
    if configured:
        if not _GO_BYTES.fullmatch(configured):  # Go's own refusal comes from inside influxd, after a start
            raise StartError(
                f"INFLUXD_MEMORY_LIMIT={configured!r} is not a size Go reads: a whole number of bytes with an optional "
                "unit B, KiB, MiB, GiB or TiB (e.g. 8GiB, 6000MiB), or off"
            )
        return configured
    total_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal:")
    )
    return f"{total_kib // 2 // 1024}MiB"


def influxd_pprof_disabled() -> str:
    """INFLUXD_PPROF_DISABLED for influxd: "true" unless $INFLUXD_PPROF_DISABLED says "false". influxd turns Go's
    profilers on unless told not to, at rates that record a stack trace for every 4 KiB it allocates: a fifth of
    its CPU while it answers a device page (docs/performance.md), and /debug/pprof open to anyone at its port."""
    configured = os.environ.get("INFLUXD_PPROF_DISABLED", "").strip().lower() or "true"
    if configured not in ("true", "false"):
        raise StartError(f"INFLUXD_PPROF_DISABLED={configured!r} is neither true nor false")
    return configured


def start_influxd(data_dir: Path, port: int, log_dir: Path) -> Process:
    data_dir.mkdir(parents=True, exist_ok=True)
    argv = [
        influxd_binary(),
        "--bolt-path",
        str(data_dir / "influxd.bolt"),
        "--engine-path",
        str(data_dir / "engine"),
        "--http-bind-address",
        f"127.0.0.1:{port}",
        "--reporting-disabled",
        "--log-level",
        "warn",
        # Group the WAL fsyncs of writes arriving together (each is acknowledged once on disk), as compose does.
        "--storage-wal-fsync-delay",
        "100ms",
    ]
    env = {
        "INFLUXD_CONFIG_PATH": str(data_dir),
        "GOMEMLIMIT": influxd_memory_limit(),
        "INFLUXD_PPROF_DISABLED": influxd_pprof_disabled(),
    }
    process = Process("influxd", argv, log_dir / "influxd.log", env=env)
    wait_http(process, f"http://127.0.0.1:{port}/health", timeout=90)
    return process


@dataclass(frozen=True)
class InfluxSetup:
    url: str
    org: str
    bucket: str
    token: str


def setup_influxdb(url: str, org: str, bucket: str, token_file: Path) -> InfluxSetup:
    """Run InfluxDB's first-time setup once; the token is kept in token_file (mode 600)."""
    with urllib.request.urlopen(f"{url}/api/v2/setup", timeout=10) as response:
        allowed = json.load(response).get("allowed", False)
    if allowed:
        token = secrets.token_urlsafe(32)
        body = json.dumps(
            {
                "username": "monitor",
                "password": secrets.token_urlsafe(16),
                "org": org,
                "bucket": bucket,
                "token": token,
                "retentionPeriodSeconds": 0,
            }
        ).encode()
        request = urllib.request.Request(
            f"{url}/api/v2/setup", data=body, method="POST", headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(request, timeout=30).close()
        token_file.parent.mkdir(parents=True, exist_ok=True)
        token_file.write_text(token)
        token_file.chmod(0o600)
    elif not token_file.exists():
        raise StartError(f"InfluxDB at {url} is already set up but {token_file} (its token) is missing")
    setup = InfluxSetup(url, org, bucket, token_file.read_text().strip())
    ensure_rollup_buckets(setup, include_raw=allowed)
    return setup


def ensure_rollup_buckets(setup: InfluxSetup, include_raw: bool) -> None:
    """Create the rollup buckets and apply their retention (monitor/timeseries/tiers.py); the raw bucket's only
    when new.

    An existing raw bucket keeps its history until `manage.py rollup_backfill` has rolled it up.
    """
    from influxdb_client import InfluxDBClient

    from monitor.timeseries import tiers

    with InfluxDBClient(url=setup.url, token=setup.token, org=setup.org, timeout=30000) as client:
        tiers.ensure_buckets(client, setup.org, setup.bucket, include_raw=include_raw)


def snmpsim_binary() -> str:
    candidate = Path(sys.executable).parent / "snmpsim-command-responder"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("snmpsim-command-responder")
    if not found:
        raise StartError("snmpsim is not installed: run `make install`")
    return found


def start_snmpsim(
    data_dir: Path,
    port: int,
    log_dir: Path,
    control_file: Path | None = None,
    name: str = "snmpsim",
    hosts: tuple[str, ...] = ("127.0.0.1",),
) -> Process:
    """One snmpsim agent serving every recording in data_dir (community = file name) on each host's port.

    SNMPSIM_ALLOW_ROOT lets it run as root without dropping privileges: once it drops them it cannot
    import from a Python installed under /root, and a loopback port above 1024 needs no root anyway.
    """
    cache = data_dir.parent / f"{data_dir.name}-cache"
    argv = [
        snmpsim_binary(),
        f"--data-dir={data_dir}",
        *(f"--agent-udpv4-endpoint={host}:{port}" for host in hosts),
        f"--variation-modules-dir={VARIATION_DIR}",
        f"--cache-dir={cache}",
        "--log-level=error",
    ]
    env = {"SNMPSIM_ALLOW_ROOT": "true"}
    if control_file is not None:
        env["SIMDEV_CONTROL"] = str(control_file)
    process = Process(name, argv, log_dir / f"{name}.log", env=env)
    _wait_snmp(process, port, hosts[-1])
    return process


def _wait_snmp(process: Process, port: int, host: str = "127.0.0.1", timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not process.alive:
            raise process.fail("exited during start-up")
        if _udp_bound(port, host):
            return
        time.sleep(0.2)
    raise process.fail(f"did not start listening on UDP {host}:{port}")


def _udp_bound(port: int, host: str = "127.0.0.1") -> bool:
    """True once something has bound the UDP port (binding it ourselves then fails)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def influx_env(setup: InfluxSetup) -> dict[str, str]:
    return {
        "INFLUXDB_URL": setup.url,
        "INFLUXDB_ORG": setup.org,
        "INFLUXDB_BUCKET": setup.bucket,
        "INFLUXDB_TOKEN": setup.token,
    }


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False
