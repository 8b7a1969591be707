"""A device page in Chromium as a user opens it: gunicorn as deployed, a real browser, the page's own loading.

Times are in the browser's own clock from the navigation's start (performance.timeOrigin): the page marks the
moment every graph in view has its chart (`monitor:first-screen`), every figure of the page has its data
(`monitor:all-data`; charts below the fold are drawn as they are scrolled to), and no drawn chart's legend waits
for its 95th any more (`monitor:percentiles`: a chart's percentile is asked for once it is drawn). The same moments
seen from outside (Playwright's clock, from the navigation's request) are kept beside them: they add the
navigation's start and the polling of the page (about 10 ms)."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

from bench.common import REPO
from monitor.devstack.processes import Process, free_port, wait_http

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
IN_VIEW = (  # drawn, or showing why it could not be (counted apart as failed graphs)
    "[...document.querySelectorAll('figure.graph')].filter(f => { const b = f.getBoundingClientRect(); "
    "return b.bottom > 0 && b.top < innerHeight; }).every(f => f.querySelector('canvas[data-points]') "
    "|| f.dataset.loaded === 'error')"
)
FAILED = "document.querySelectorAll('figure.graph[data-loaded=\"error\"]').length"
COUNT_IN_VIEW = (  # the graphs of the first screen (at the top of the page, before any scroll)
    "[...document.querySelectorAll('figure.graph')].filter(f => { const b = f.getBoundingClientRect(); "
    "return b.bottom > 0 && b.top < innerHeight; }).length"
)
ALL_DATA = (
    "document.querySelectorAll('figure.graph[data-loaded]').length === document.querySelectorAll('figure.graph').length"
)
# The page's own marks (static/js/graphs.js), in ms from the navigation's start, and when its HTML had arrived.
MARKS = (
    "Object.fromEntries(performance.getEntriesByType('mark').filter(m => m.name.startsWith('monitor:'))"
    ".map(m => [m.name.slice(8), m.startTime]).concat([['html', "
    "performance.getEntriesByType('navigation')[0].responseEnd]]))"
)
# Every drawn graph's (a chart's percentile is asked for when it is drawn: those below the fold when scrolled to).
PERCENTILES = (
    "[...document.querySelectorAll('figure.graph')].filter(f => f.querySelector('canvas[data-points]'))"
    ".every(f => f.dataset.p95 === 'ready')"
)


def web_server(env: dict[str, str], log_dir: Path, workers: int = 4) -> tuple[Process, str]:
    """gunicorn serving monitor.wsgi as docker-compose.yml runs it."""
    port = free_port()
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "monitor.wsgi",
        "-b",
        f"127.0.0.1:{port}",
        "-w",
        str(workers),
        "--threads",
        "4",
    ]
    process = Process("gunicorn", argv, log_dir / "bench-s5-gunicorn.log", env=env, cwd=REPO)
    wait_http(process, f"http://127.0.0.1:{port}/healthz")
    return process, f"http://127.0.0.1:{port}"


def page_times(base: str, username: str, password: str, path: str, ranges: list[str], warm: int = 3) -> dict:
    """{range: {cold, warm}} of first screen, every graph's data and percentiles, in milliseconds. Cold: the first
    load after the server's cache is emptied (by the caller); warm: the median of `warm` loads after it."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        raise RuntimeError("chromium is not installed: run `make deps`")
    found: dict = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            # The pages' Content-Security-Policy forbids eval, which Playwright's polling wait_for_function uses.
            page = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
            page.goto(f"{base}/login/?next=/")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", password)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            for preset in ranges:
                loads = [_load(page, f"{base}{path}?range={preset}") for _ in range(1 + warm)]
                found[preset] = {
                    "cold": loads[0],
                    "warm": {k: sorted(x[k] for x in loads[1:])[warm // 2] for k in loads[0]},
                }
                found[preset]["graphs"] = page.evaluate("document.querySelectorAll('figure.graph').length")
        finally:
            browser.close()
    return found


def _load(page, url: str) -> dict[str, float]:
    started = time.perf_counter()
    page.goto(url, wait_until="commit")
    marks = {}
    for name, condition in (("first_screen_ms", IN_VIEW), ("every_graph_ms", ALL_DATA), ("p95_ms", PERCENTILES)):
        page.wait_for_function(condition, timeout=120_000, polling=10)
        marks["outside_" + name] = (time.perf_counter() - started) * 1000
    own = page.evaluate(MARKS)
    for name, mark in (("first_screen_ms", "first-screen"), ("every_graph_ms", "all-data"), ("p95_ms", "percentiles")):
        marks[name] = own.get(mark, marks["outside_" + name])
    marks["html_ms"] = own.get("html", 0.0)
    marks["failed_graphs"] = page.evaluate(FAILED)
    marks["graphs_in_view"] = page.evaluate(COUNT_IN_VIEW)  # 0 would make the first screen's mark say nothing
    return marks
