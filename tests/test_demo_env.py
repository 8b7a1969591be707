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
