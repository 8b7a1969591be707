"""What the demo's processes are told besides where its services listen (the address its mails link to), and
where it listens written down for the commands a user runs in another shell."""

from __future__ import annotations

from pathlib import Path

from monitor.core.config import DEMO_FILE, env

SHARED = ("REDIS_URL", "INFLUXDB_URL", "MONITOR_BASE_URL")  # addresses only: no token


def web_env(web_port: int) -> dict[str, str]:
    """Links in the demo's mails go to the demo's own web port (DEMO_WEB_PORT), unless MONITOR_BASE_URL is set."""
    return {"MONITOR_BASE_URL": env("MONITOR_BASE_URL") or f"http://127.0.0.1:{web_port}"}


def write(var: Path, demo_env: dict[str, str]) -> Path:
    """var/demo-services.env: the demo's addresses, read by settings as the defaults (monitor.core.config)."""
    path = var / DEMO_FILE
    lines = ["# written by `manage.py demo`: where its services listen; the environment overrides each"]
    lines += [f"{name}={demo_env[name]}" for name in SHARED if demo_env.get(name)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
