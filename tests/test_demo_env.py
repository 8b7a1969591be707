"""What `make demo` tells the processes it starts (and the commands a user runs beside it in another shell)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from monitor.devstack import demoenv
from monitor.management.commands.demo import Command

ROOT = Path(__file__).resolve().parents[1]


def demo_options(*argv: str):
    return Command().create_parser("manage.py", "demo").parse_args(list(argv))


def setting_in_a_child(env: dict[str, str], name: str, var: Path) -> str:
    """A setting as a process the demo starts (web, worker, beat) reads it from the environment it is given."""
    child = {k: v for k, v in os.environ.items() if k != "MONITOR_BASE_URL"} | env | {"MONITOR_VAR_DIR": str(var)}
    code = f"import django; django.setup(); from django.conf import settings; print(settings.{name})"
    result = subprocess.run([sys.executable, "-c", code], env=child | {"DJANGO_SETTINGS_MODULE": "monitor.settings"},
                            cwd=ROOT, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_the_demo_on_another_web_port_links_its_mails_to_that_port(monkeypatch, tmp_path):
    monkeypatch.setenv("DEMO_WEB_PORT", "28000")
    monkeypatch.delenv("MONITOR_BASE_URL", raising=False)
    env = demoenv.web_env(demo_options().web_port)
    assert env == {"MONITOR_BASE_URL": "http://127.0.0.1:28000"}
    assert setting_in_a_child(env, "MONITOR_BASE_URL", tmp_path) == "http://127.0.0.1:28000"
    assert demoenv.web_env(demo_options("--web-port", "28001").web_port)["MONITOR_BASE_URL"].endswith(":28001")


def test_a_base_url_the_user_set_is_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("DEMO_WEB_PORT", "28000")
    monkeypatch.setenv("MONITOR_BASE_URL", "https://monitor.example.com")
    env = demoenv.web_env(demo_options().web_port)
    assert setting_in_a_child(env, "MONITOR_BASE_URL", tmp_path) == "https://monitor.example.com"


def second_shell(var: Path, *argv: str, **extra: str) -> subprocess.CompletedProcess:
    """A manage.py command run as a user runs it beside the demo: another shell, none of the demo's environment."""
    unset = ("REDIS_URL", "CELERY_BROKER_URL", "INFLUXDB_URL", "MONITOR_BASE_URL", "DATABASE_URL")
    env = {k: v for k, v in os.environ.items() if k not in unset} | {"MONITOR_VAR_DIR": str(var)} | extra
    return subprocess.run([sys.executable, "manage.py", *argv], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_import_devices_in_a_second_shell_finds_the_demos_redis(redis_url, tmp_path):
    """The demo writes where it listens in its var directory; a command run from the same directory uses it."""
    import redis

    demo_redis = redis_url.rsplit("/", 1)[0] + "/7"  # the session's Redis, on a port that is not 6379
    demoenv.write(tmp_path, {"REDIS_URL": demo_redis, "INFLUXDB_URL": "http://127.0.0.1:1", "MONITOR_BASE_URL": "x"})
    assert second_shell(tmp_path, "migrate", "-v0").returncode == 0
    seen = redis.Redis.from_url(demo_redis)
    seen.set("monitor:inventory:1", "1")  # the mark an edit of device 1 clears
    (tmp_path / "devices.csv").write_text("name,host,port,community\nsw,127.0.0.1,161,public\n")
    result = second_shell(tmp_path, "import_devices", "--skip-test", str(tmp_path / "devices.csv"))
    assert result.returncode == 0 and "1 imported, 0 refused" in result.stdout, result.stderr
    assert "WARNING" not in result.stderr and not seen.exists("monitor:inventory:1")


def test_without_a_demo_the_warning_says_which_redis_and_what_to_set(tmp_path):
    from monitor.devstack.processes import free_port

    nobody = free_port()
    assert second_shell(tmp_path, "migrate", "-v0").returncode == 0
    (tmp_path / "devices.csv").write_text("name,host,port,community\nsw,127.0.0.1,161,public\n")
    result = second_shell(tmp_path, "import_devices", "--skip-test", str(tmp_path / "devices.csv"),
                          REDIS_URL=f"redis://:hunter2@127.0.0.1:{nobody}/0")  # fmt: skip
    assert "1 imported, 0 refused" in result.stdout, result.stderr
    assert f"could not reach Redis at 127.0.0.1:{nobody}/0 (ConnectionError)" in result.stderr
    assert "set REDIS_URL to the monitor's Redis" in result.stderr and "hunter2" not in result.stderr
