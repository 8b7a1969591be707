"""The demo's own switch page in Chromium, as a newcomer opens it after `make demo`: every graph's data within
1,000 ms and the first screen within 300 ms, at 1 day and 1 year, cold and warm (issue 41's page targets).

Starts `manage.py demo` in a fresh folder on free ports, waits for its 30 days of history and two polls of the
switch, then times the switch's page with bench/s5_browser.py (cold: the first load after the demo's Redis is
emptied; warm: the median of three loads after it) and the bytes of JSON each range's data moved. Prints the figures
and writes them to bench/results/demo-page-<UTC time>.json. Run: `.venv/bin/python bench/demo_page.py`."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.s5_browser import page_times  # noqa: E402
from monitor.devstack.processes import free_port, free_udp_port  # noqa: E402

FIRST_SCREEN_MS, EVERY_GRAPH_MS = 300, 1000
RANGES = ("1d", "1y")


def wait(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(1)


def switch_polled(db: Path) -> tuple[int, str] | None:
    """The demo switch's id and name once it has answered a poll (the first device: the PowerConnect)."""
    if not db.exists():
        return None
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute(
                "SELECT id, name FROM monitor_device WHERE last_success_at IS NOT NULL ORDER BY id LIMIT 1"
            ).fetchone()
    except sqlite3.Error:
        return None
    return (row[0], row[1]) if row else None


def flush_redis(port: int) -> None:
    """Empty the demo's cache (a cold page), as `redis-cli FLUSHDB` would."""
    import redis

    redis.Redis(host="127.0.0.1", port=port).flushdb()


def main() -> int:
    var = Path(tempfile.mkdtemp(prefix="demo-page-"))
    ports = {"web": free_port(), "redis": free_port(), "influxdb": free_port()}
    udp = {"snmp": free_udp_port(), "campus-snmp": free_udp_port(), "trap": free_udp_port(), "syslog": free_udp_port()}
    argv = [sys.executable, "manage.py", "demo"] + [f"--{k}-port={v}" for k, v in {**ports, **udp}.items()]
    log = open(var / "demo.out", "w")  # noqa: SIM115 (open for the demo's lifetime)
    demo = subprocess.Popen(
        argv, cwd=REPO, env={**os.environ, "MONITOR_VAR_DIR": str(var)}, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{ports['web']}"
    try:
        wait(lambda: (var / "history-written").exists(), 900, "the demo's history (see demo.out)")
        wait(lambda: switch_polled(var / "db.sqlite3") is not None, 300, "the switch's first poll")
        time.sleep(70)  # a second poll: the page's raw tail as a user sees it a minute later
        device_id, name = switch_polled(var / "db.sqlite3")
        password = (var / "admin-password").read_text().strip()
        found = {}
        for preset in RANGES:
            flush_redis(ports["redis"])
            found[preset] = page_times(base, "admin", password, f"/devices/{device_id}/", [preset])[preset]
            found[preset]["json_bytes"] = _json_bytes(base, password, device_id, preset)
    finally:
        demo.send_signal(signal.SIGINT)
        try:
            demo.wait(60)
        except subprocess.TimeoutExpired:
            demo.kill()
        log.close()
    met = all(
        found[p][k]["first_screen_ms"] <= FIRST_SCREEN_MS
        and found[p][k]["every_graph_ms"] <= EVERY_GRAPH_MS
        and found[p][k]["graphs_in_view"] > 0  # else the first screen's mark times no graph
        for p in RANGES
        for k in ("cold", "warm")
    )
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = {"device": name, "ranges": found, "targets_met": met, "at": stamp}
    path = REPO / "bench" / "results" / f"demo-page-{stamp}.json"
    path.write_text(json.dumps(out, indent=1))
    for preset in RANGES:
        for kind in ("cold", "warm"):
            t = found[preset][kind]
            print(
                f"{preset} {kind}: first screen {t['first_screen_ms']:.0f} ms,"
                f" every graph {t['every_graph_ms']:.0f} ms, percentiles {t['p95_ms']:.0f} ms,"
                f" failed graphs {t['failed_graphs']}, graphs in the first screen {t['graphs_in_view']}"
            )
        print(f"{preset}: {found[preset]['graphs']} graphs, {found[preset]['json_bytes']} bytes of JSON a load")
    print(f"targets met: {met}; written to {path}")
    return 0 if met else 1


def _json_bytes(base: str, password: str, device_id: int, preset: str) -> int:
    """How many bytes of series JSON a load of the page asks for (its batch requests, as the page makes them)."""
    from playwright.sync_api import sync_playwright

    from bench.s5_browser import CHROMIUM_ARGS

    sizes: list[int] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            page.goto(f"{base}/login/?next=/")
            page.fill("input[name=username]", "admin")
            page.fill("input[name=password]", password)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            page.on("response", lambda r: "/api/series" in r.url and sizes.append(len(r.body())))
            page.goto(f"{base}/devices/{device_id}/?range={preset}")
            page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(2000)
        finally:
            browser.close()
    return sum(sizes)


def _chromium() -> str:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"


if __name__ == "__main__":
    sys.exit(main())
