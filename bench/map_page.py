"""The live map (issue 42) at 500 devices and 1,000 links, in Chromium, served as deployed (gunicorn), its data from
InfluxDB: does it open, and does it stay responsive?

The network: 4 core switches meshed, 40 distribution switches each cabled to two cores, 376 access switches each to
two distribution switches, 80 arrays each to two access switches (500 devices, 1,000 links, 20 of them gone), every
linked port with an hour of samples at 5-minute steps. Measured in the browser's own clock: from the navigation's
start to the map drawn (its data answered, laid out by dagre and painted: two animation frames after the page says
drawn), cold (Redis emptied) and warm (the median of three); the data request alone; then, on the drawn map, the
frames while the mouse wheel zooms in and out 20 times and a drag pans it 400 px, and the time from a click on a link
to its figures shown. Prints the figures and writes bench/results/map-page-<UTC time>.json.
Run: `.venv/bin/python bench/map_page.py` (about two minutes)."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import stack  # noqa: E402
from bench.common import git_revision, start_backends  # noqa: E402
from bench.s5_browser import CHROMIUM_ARGS, web_server  # noqa: E402

PASSWORD = "bench-map-pass-123"  # noqa: S105 - a throwaway account of a throwaway database
CORE, DIST, ACCESS, ARRAYS = 4, 40, 376, 80
GONE = 20
DRAWN = """() => new Promise(done => {
  const wait = () => document.querySelector('#map[data-drawn]') ? requestAnimationFrame(() => requestAnimationFrame(
    () => done({drawn_ms: performance.now(), said_ms: Number(document.querySelector('#map').dataset.drawn)
      - performance.timeOrigin, nodes: Number(document.querySelector('#map').dataset.nodes),
      edges: Number(document.querySelector('#map').dataset.edges)}))) : setTimeout(wait, 5);
  wait();
})"""
API_MS = """() => { const r = performance.getEntriesByType('resource').filter(e => e.name.includes('/api/map/'));
  return r.length ? r[r.length - 1].responseEnd - r[r.length - 1].startTime : null; }"""
RECORD = """() => { window.__frames = []; const tick = t => { window.__frames.push(t);
  if (!window.__stop) requestAnimationFrame(tick); }; window.__stop = false; requestAnimationFrame(tick); }"""
STOP = """() => { window.__stop = true; const f = window.__frames;
  return f.slice(1).map((t, i) => t - f[i]); }"""


def network() -> tuple[list[tuple[str, str]], list[tuple[int, int]]]:
    """(devices as (name, profile), links as index pairs): the tiers of the docstring, each link to another device."""
    devices = [(f"core-{n}", "") for n in range(CORE)] + [(f"dist-{n:02d}", "") for n in range(DIST)]
    devices += [(f"access-{n:03d}", "") for n in range(ACCESS)] + [
        (f"eql-{n:02d}", "dell-equallogic") for n in range(ARRAYS)
    ]
    links = [(a, b) for a in range(CORE) for b in range(a + 1, CORE)]  # 6
    links += [(CORE + d, (d + k) % CORE) for d in range(DIST) for k in (0, 1)]  # 80
    first_access = CORE + DIST
    links += [(first_access + n, CORE + (n + k) % DIST) for n in range(ACCESS) for k in (0, 7)]  # 752
    first_array = first_access + ACCESS
    links += [(first_array + n, first_access + (5 * n + k) % ACCESS) for n in range(ARRAYS) for k in (0, 1)]  # 160
    links += [(CORE + d, CORE + d + 1) for d in (0, 2)]  # 2: 1,000 in all
    return devices, links


def build(rng: random.Random) -> None:
    """The devices, their linked ports (10G among switches, 1G to arrays) and the links; an hour of samples each."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.utils import timezone as dj_timezone
    from influxdb_client.client.write_api import SYNCHRONOUS

    from monitor.models import Device, Graph, Interface
    from monitor.timeseries import client as tsclient
    from monitor.topology.models import Link

    get_user_model().objects.create_superuser("bench", password=PASSWORD)
    names, pairs = network()
    devices = [
        Device.objects.create(name=name, host="127.0.0.1", community="x", profile=profile) for name, profile in names
    ]
    used: dict[int, int] = {}
    ports, graphs, links, lines = [], [], [], []
    now = dj_timezone.now()
    t = int(time.time())
    for number, (x, y) in enumerate(pairs):
        a, b = sorted((devices[x], devices[y]), key=lambda d: d.pk)
        speed = 1_000_000_000 if a.profile or b.profile else 10_000_000_000
        ends = []
        for device in (a, b):
            used[device.pk] = used.get(device.pk, 0) + 1
            name = f"{'eth' if device.profile else 'te1/0/'}{used[device.pk]}"
            ports.append(Interface(device=device, name=name, if_index=used[device.pk], speed_bps=speed))
            graphs.append(Graph(device=device, template="traffic", instance=name, title=f"Traffic {name}"))
            ends.append(name)
        seen = now - timedelta(days=2) if number % (len(pairs) // GONE) == 0 else now
        links.append(
            Link(a=a, a_port=ends[0], b=b, b_port=ends[1], via_lldp=True, first_seen=now - timedelta(days=9),
                 last_seen=seen, checked_at=now)
        )  # fmt: skip
        load = rng.uniform(0.05, 0.97) * speed
        for k in range(12):
            out_bps, in_bps = load * rng.uniform(0.7, 1.0), load * rng.uniform(0.3, 0.8)
            lines.append(f"interface,device={a.pk},port={ends[0]} in_bps={in_bps:.0f},out_bps={out_bps:.0f},"
                         f"in_discards={rng.choice([0.0] * 30 + [2.5])},in_errors=0.0 {t - 300 * k - 60}")  # fmt: skip
    Interface.objects.bulk_create(ports)
    Graph.objects.bulk_create(graphs)
    Link.objects.bulk_create(links)
    writer = tsclient.client().write_api(write_options=SYNCHRONOUS)
    for start in range(0, len(lines), 5000):
        writer.write(
            bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines[start : start + 5000],
            write_precision="s",
        )  # fmt: skip


def load_map(page, base: str) -> dict:
    page.goto(f"{base}/map/?range=1h", wait_until="commit")
    found = page.evaluate(DRAWN)
    found["data_ms"] = page.evaluate(API_MS)
    marks = page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('mark').filter(m => m.name.startsWith('monitor:map'))"
        ".map(m => [m.name.slice(12), m.startTime]))"
    )
    found["data_in_ms"] = marks.get("data")  # the answer parsed, from the navigation's start
    found["laid_out_ms"] = marks.get("drawn", 0) - marks.get("data", 0)  # cytoscape built, laid out and fitted
    return found


def frames(page) -> dict:
    """Frame intervals (ms) while the wheel zooms in and out over the map and a drag pans it."""
    box = page.locator("#map").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.evaluate(RECORD)
    for step in range(20):
        page.mouse.wheel(0, -120 if step < 10 else 120)
        page.wait_for_timeout(30)
    page.mouse.move(x + 5, y + 5)  # a blank spot is likely at the centre's side; a drag there pans
    page.mouse.down()
    page.mouse.move(x + 405, y + 5, steps=30)
    page.mouse.up()
    page.wait_for_timeout(200)
    gaps = page.evaluate(STOP)
    ordered = sorted(gaps)
    return {
        "frames": len(gaps),
        "median_ms": round(statistics.median(gaps), 1),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
        "longest_ms": round(ordered[-1], 1),
    }


def click_link(page) -> float:
    """Milliseconds from a click on a link's middle (zoomed to its two devices) to its figures in the panel."""
    link = page.evaluate(
        "() => { const e = window.MonitorMap.cy().edges()[500]; window.MonitorMap.cy().fit(e.connectedNodes(), 150);"
        " return e.id().slice(5); }"
    )
    page.wait_for_timeout(100)
    where = page.evaluate(f"() => window.MonitorMap.edgeAt({link})")
    started = page.evaluate("() => performance.now()")
    page.mouse.click(where["x"], where["y"])
    page.wait_for_selector("#map-detail[data-edge]", timeout=10000)  # this link, or one drawn across its middle
    return round(page.evaluate("() => performance.now()") - started, 1)


def main() -> int:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="map-page-"))
    os.environ.update(stack.bench_environment(work))  # before anything reads settings: the bench's own database
    redis, influxd, influx, redis_url = start_backends(work)
    web = None
    try:
        env = stack.configure(work, redis_url, influx)
        build(random.Random(42))
        web, base = web_server(env, work / "log", workers=2)
        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        if executable is None:
            raise RuntimeError("chromium is not installed: run `make deps`")
        from monitor.core import services

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"{base}/login/?next=/")
            page.fill("input[name=username]", "bench")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            services.redis_client().flushdb()
            cold = load_map(page, base)
            if os.environ.get("MAP_BENCH_SHOT"):  # a picture of the drawn map, to look at
                page.screenshot(path=os.environ["MAP_BENCH_SHOT"])
            warm = [load_map(page, base) for _ in range(3)]
            moving = frames(page)
            clicked = click_link(page)
            browser.close()
    finally:
        for process in (web, influxd, redis):
            if process is not None:
                process.stop()
    middle = sorted(warm, key=lambda w: w["drawn_ms"])[1]
    result = {
        "when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "revision": git_revision(),
        "devices": cold["nodes"],
        "links": cold["edges"],
        "cold": {k: round(v, 1) for k, v in cold.items() if k.endswith("_ms") and v is not None},
        "warm": {k: round(v, 1) for k, v in middle.items() if k.endswith("_ms") and v is not None},
        "pan_zoom": moving,
        "click_to_figures_ms": clicked,
    }
    print(json.dumps(result, indent=2))
    out = REPO / "bench" / "results" / f"map-page-{datetime.now(timezone.utc):%Y%m%dT%H%M%SZ}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
