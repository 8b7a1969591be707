"""A real Chromium on the storage pages: the heatmap's absolute colours at its levels, and a click on a latency
spike of the demo's heatmap that lands on the iSCSI path page with the busy switch port marked."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device, Graph
from monitor.polling.run import run_polls
from monitor.storage.models import HeatmapLevels, PathLink
from monitor.storage.paths import refresh_paths
from monitor.timeseries import client as tsclient
from tests.browser import chromium_page, log_in
from tests.conftest import Agent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
GREEN, AMBER, RED = [46, 157, 58], [240, 165, 0], [200, 40, 40]


@pytest.fixture(autouse=True)
def _playwright_beside_the_orm(monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's fleet (breathing array, switch with FDB and LLDP) on one snmpsim agent."""
    root = tmp_path_factory.mktemp("demo-fleet")
    devices = {d.community: d for d in fleet.demo_fleet()}
    for device in devices.values():
        device.write(root / "data")
    control = root / "control.json"
    control.write_text("{}")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", control_file=control, name="snmpsim-demo")
    yield Agent(port, control, devices)
    process.stop()


def cell_colours(page) -> list[list[int]]:
    """The colour of each heatmap row's last cell, as drawn."""
    return page.evaluate(
        """() => { const c = document.querySelector('figure.heatmap canvas'); const h = c._heatmap;
        const ctx = c.getContext('2d'), ratio = c.width / c.clientWidth, last = h.data.times.length - 1;
        return h.data.volumes.map((v, r) => { const s = h.spot(r, last);
          const x = Math.round(s.x * ratio), y = Math.round(s.y * ratio);
          return Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3)); }); }"""
    )


def test_heatmap_colours_on_the_absolute_scale_at_its_levels(clean_backends, live_server, admin_user):
    device = Device.objects.create(name="levels", host="127.0.0.1", community="x", poll_interval_s=60)
    latencies = {"a-19.9": 19.9, "b-20": 20.0, "c-49.9": 49.9, "d-50": 50.0, "e-1.5": 1.5}
    now = int(time.time())
    lines = []
    for volume, ms in latencies.items():
        Graph.objects.create(device=device, template="volume_latency", instance=volume, title=f"Latency {volume}")
        lines += [f"volume,device={device.pk},volume={volume} read_latency_ms={ms} {now - 60 * k}" for k in range(30)]
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")
        page.goto(f"{live_server.url}/devices/{device.pk}/?range=1h")
        page.wait_for_function("document.querySelector('figure.heatmap canvas').dataset.rows === '5'", timeout=30_000)
        assert cell_colours(page) == [GREEN, AMBER, AMBER, RED, GREEN]  # 1.5 ms is green: no relative scale
        legend = page.locator("figure.heatmap .heatmap-legend").inner_text()
        assert legend == "green below 20 ms, amber to 50 ms, red from 50 ms"
        assert page.evaluate("window.MonitorHeatmap.colour(19.99, 20, 50)") == "rgb(46, 157, 58)"
        HeatmapLevels.objects.create(device=device, warning_ms=1, problem_ms=20)  # settable per device
        page.reload()
        page.wait_for_function("document.querySelector('figure.heatmap canvas').dataset.rows === '5'", timeout=30_000)
        assert cell_colours(page) == [AMBER, RED, RED, RED, AMBER]
        assert "red from 20 ms" in page.locator("figure.heatmap .heatmap-legend").inner_text()


def test_a_click_on_the_demo_heatmap_spike_opens_the_path_with_the_busy_port_marked(
    demo, clean_backends, live_server, admin_user
):
    start = time.time()
    demo.control(pulse={"period": 3600, "offset": (start + 10) % 3600, "duration": 14})  # the hourly spike, now
    switch = Device.objects.create(
        name="pc6248-demo", host="127.0.0.1", port=demo.port, community="pc6248", poll_interval_s=2, timeout_s=2
    )
    array = Device.objects.create(
        name="eql-demo", host="127.0.0.1", port=demo.port, community="eql", poll_interval_s=2, timeout_s=2
    )
    while time.time() < start + 34:  # before, during and after the spike, one poll every 2 s
        began = time.time()
        outcomes = run_polls([switch.pk, array.pk])
        assert all(o.startswith("ok") for o in outcomes.values()), outcomes
        time.sleep(max(0.0, 2.0 - (time.time() - began)))
    summary = refresh_paths()
    assert summary.links == 4
    assert set(PathLink.objects.filter(array=array).values_list("switch_port", flat=True)) == {
        "1/g7",
        "1/g8",
        "1/g9",
        "1/g10",
    }
    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")
        page.goto(f"{live_server.url}/devices/{array.pk}/?start=now-3m&end=now")
        assert "reached through" in page.locator("#path-reached").inner_text()
        assert "microseconds" in page.locator("dd.latency-unit").first.inner_text()
        page.wait_for_function(
            "Number(document.querySelector('figure.heatmap canvas').dataset.red) > 0", timeout=30_000
        )
        page.wait_for_function("document.documentElement.dataset.allData", timeout=30_000)  # the page settled
        # The spike's cell as an offset in the canvas's box: the click then finds the box where it is at that
        # moment (content above the heatmap may still move the page between this read and the click).
        spot = page.evaluate(
            """() => { const c = document.querySelector('figure.heatmap canvas'); const h = c._heatmap;
            for (let r = 0; r < h.data.volumes.length; r++) for (let k = 0; k < h.data.times.length; k++)
              if (h.data.values[r][k] !== null && h.data.values[r][k] >= 50)
                return {...h.spot(r, k), volume: h.data.volumes[r]};
            return null; }"""
        )
        assert spot is not None and spot["volume"] == "vmfs-datastore-1"  # 65 ms during the spike
        page.locator("figure.heatmap canvas").click(position={"x": spot["x"], "y": spot["y"]})
        page.wait_for_url(f"**/storage/arrays/{array.pk}/path/**", timeout=20_000)
        page.wait_for_selector("#path[data-loaded='1']", timeout=30_000)
        assert "volume=vmfs-datastore-1" in page.url
        busy = page.locator("#path-ports tr[data-port='1/g7']")
        marks = busy.get_attribute("data-marks").split(",")
        assert "near line rate" in marks and "discarding" in marks
        for quiet in ("1/g8", "1/g9", "1/g10"):
            assert page.locator(f"#path-ports tr[data-port='{quiet}']").get_attribute("data-marks") == ""
        assert "pc6248-demo 1/g7" in busy.inner_text()
        keys = page.evaluate("[...document.querySelectorAll('figure.path-chart')].map(f => f.dataset.key)")
        assert keys == ["latency", "iops", "array_ports", "utilisation", "counts"]
        points = int(page.locator("figure.path-chart[data-key='latency'] canvas").get_attribute("data-points"))
        assert points >= 10
        # The switch's own page says which of its ports carry the array's traffic.
        page.goto(f"{live_server.url}/devices/{switch.pk}/")
        assert "1/g7 carries iSCSI of eql-demo (eth0)" in page.locator("#path-carried").inner_text()
        # The volume's latency graph: a click on the spike opens the same path page, for that volume and moment.
        page.goto(f"{live_server.url}/devices/{array.pk}/?start=now-3m&end=now")
        graph = "figure.graph[data-volume='vmfs-datastore-1'][data-path-url]"
        page.locator(graph).scroll_into_view_if_needed()
        page.wait_for_selector(graph + " canvas[data-points]", timeout=30_000)
        spot = page.evaluate(
            """(sel) => { const c = document.querySelector(sel + ' canvas'); const chart = Chart.getChart(c);
            let top = null;
            chart.data.datasets[0].data.forEach(p => { if (p.y !== null && (!top || p.y > top.y)) top = p; });
            const box = c.getBoundingClientRect(), x = chart.scales.x.getPixelForValue(top.x);
            return {x: box.left + x, y: box.top + chart.chartArea.top + 20, ms: top.y};
            }""",
            graph,
        )
        assert spot["ms"] >= 50  # the spike, drawn
        page.mouse.click(spot["x"], spot["y"])
        page.wait_for_url(f"**/storage/arrays/{array.pk}/path/**", timeout=20_000)
        page.wait_for_selector("#path[data-loaded='1']", timeout=30_000)
        assert "volume=vmfs-datastore-1" in page.url and "mark_start=" in page.url
        marks = page.locator("#path-ports tr[data-port='1/g7']").get_attribute("data-marks").split(",")
        assert "near line rate" in marks
