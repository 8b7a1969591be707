"""What the demo's processes are told besides where its services listen: the address its mails link to."""

from __future__ import annotations

from monitor.core.config import env


def web_env(web_port: int) -> dict[str, str]:
    """Links in the demo's mails go to the demo's own web port (DEMO_WEB_PORT), unless MONITOR_BASE_URL is set."""
    return {"MONITOR_BASE_URL": env("MONITOR_BASE_URL") or f"http://127.0.0.1:{web_port}"}
