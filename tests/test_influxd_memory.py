"""InfluxDB runs with a Go memory limit (GOMEMLIMIT): without one its runtime kept what compactions' peaks took
and the kernel killed it at 2,000 switches (docs/performance.md, scenario 8); and without Go's profilers."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from monitor.devstack import services
from monitor.devstack.processes import StartError


def influxd_environment(port: int) -> dict[str, str]:
    """The environment of the influxd serving this port (found by its command line)."""
    for proc in Path("/proc").iterdir():
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if argv and argv[0].endswith(b"influxd") and f"127.0.0.1:{port}".encode() in argv:
                pairs = (item.partition(b"=") for item in (proc / "environ").read_bytes().split(b"\0") if item)
                return {key.decode(): value.decode() for key, _, value in pairs}
        except OSError:
            continue
    raise AssertionError(f"no influxd serves port {port}")


def test_the_stacks_influxd_runs_with_the_limit(influx):
    environment = influxd_environment(urlparse(influx.url).port)
    assert environment["GOMEMLIMIT"] == services.influxd_memory_limit()


def test_the_limit_is_half_the_machines_memory_by_default(monkeypatch):
    monkeypatch.delenv("INFLUXD_MEMORY_LIMIT", raising=False)
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    total_kib = int(next(line for line in meminfo if line.startswith("MemTotal:")).split()[1])
    assert services.influxd_memory_limit() == f"{total_kib // 2048}MiB"


def test_the_limit_is_set_by_influxd_memory_limit(monkeypatch):
    monkeypatch.setenv("INFLUXD_MEMORY_LIMIT", " 6GiB ")
    assert services.influxd_memory_limit() == "6GiB"


@pytest.mark.parametrize("value", ["lots", "8G", "8Gi", "1.5GiB", "-1", "8 GiB"])
def test_a_limit_go_cannot_read_is_refused_before_influxd_starts(monkeypatch, value):
    monkeypatch.setenv("INFLUXD_MEMORY_LIMIT", value)
    with pytest.raises(StartError, match=r"INFLUXD_MEMORY_LIMIT=.* is not a size Go reads.*8GiB"):
        services.influxd_memory_limit()


@pytest.mark.parametrize("value", ["8GiB", "6000MiB", "1073741824", "512KiB", "1TiB", "100B", "off"])
def test_every_form_go_reads_is_passed_as_it_is(monkeypatch, value):
    monkeypatch.setenv("INFLUXD_MEMORY_LIMIT", value)
    assert services.influxd_memory_limit() == value


def test_the_stacks_influxd_runs_without_gos_profilers(influx):
    """influxd's profilers cost a fifth of its CPU on a device page's reads, and /debug/pprof answered anyone."""
    import urllib.error
    import urllib.request

    assert influxd_environment(urlparse(influx.url).port)["INFLUXD_PPROF_DISABLED"] == "true"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{influx.url}/debug/pprof/heap", timeout=10)
    assert refused.value.code == 403  # a profile was served to anyone before (200, with the heap's contents)
    assert "profiling disabled" in refused.value.read().decode()
    with urllib.request.urlopen(f"{influx.url}/health", timeout=10) as response:
        assert response.status == 200  # the same server answers otherwise


@pytest.mark.parametrize(("value", "passed"), [("", "true"), (" TRUE ", "true"), ("false", "false")])
def test_profilers_are_kept_only_when_asked_for(monkeypatch, value, passed):
    monkeypatch.setenv("INFLUXD_PPROF_DISABLED", value)
    assert services.influxd_pprof_disabled() == passed


@pytest.mark.parametrize("value", ["yes", "0", "off"])
def test_a_profiler_setting_influxd_would_misread_is_refused(monkeypatch, value):
    monkeypatch.setenv("INFLUXD_PPROF_DISABLED", value)
    with pytest.raises(StartError, match=r"INFLUXD_PPROF_DISABLED=.* is neither true nor false"):
        services.influxd_pprof_disabled()
