"""A real Chromium: pin a graph, see it on the dashboard, mirrored outbound, exports, heatmap, custom range."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient
from tests.browser import chromium_page, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _playwright_beside_the_orm(monkeypatch):
    """Playwright's sync API runs an event loop in this thread; allow ORM calls for this test only."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


@pytest.fixture
def fleet(clean_backends, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", password="s3cret-pass-123")
    switch = Device.objects.create(name="dash-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    array = Device.objects.create(name="dash-array", host="127.0.0.2", community="x", poll_interval_s=60)
    tree = Tree.objects.create(name="Datacentre")  # the viewer reads both devices through the tree
    header = TreeNode.objects.create(tree=tree, kind="header", title="Racks")
    place_device(switch, header)
    place_device(array, header)
    tree.read_users.add(viewer)
    Interface.objects.create(device=switch, name="1/g1", if_index=1, alias="<b>core</b>", speed_bps=10**9)
    graph = Graph.objects.create(device=switch, template="traffic", instance="1/g1", title="Traffic 1/g1")
    for volume in ("vol-a", "vol<b>"):
        Graph.objects.create(device=array, template="volume_latency", instance=volume, title=f"Latency {volume}")
    now = int(time.time())
    lines = [f"interface,device={switch.pk},port=1/g1 in_bps=4e8,out_bps=2e8 {now - 60 * k}" for k in range(60)]
    lines += [
        f"volume,device={array.pk},volume={v} read_latency_ms={1 + k % 5},write_latency_ms=3 {now - 60 * k}"
        for v in ("vol-a", "vol<b>")
        for k in range(60)
    ]
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    return {"graph": graph, "array": array}


def test_pin_mirror_export_heatmap_and_custom_range(fleet, live_server):
    with chromium_page() as page:
        path = f"/graphs/{fleet['graph'].pk}/?range=1h"
        log_in(page, live_server.url, "viewer", "s3cret-pass-123", path.replace("?", "%3F"))
        page.wait_for_selector("canvas[data-points]")
        page.select_option("select.view-mode", "mirror")  # outbound drawn below the axis
        page.wait_for_function(
            "(() => { const c = Chart.getChart(document.querySelector('figure.graph canvas'));"
            " return c && c.data.datasets[1].data.every(p => p.y < 0); })()",
            timeout=10000,
        )
        assert "In" in page.locator("table.legend").inner_text()
        csv = page.locator("a.export-csv").get_attribute("href")
        assert csv.startswith(f"/api/graphs/{fleet['graph'].pk}/series.csv?") and "range=1h" in csv
        with page.expect_download() as download:
            page.click("a.export-png")
        assert download.value.suggested_filename.endswith(".png")
        page.click("form.pin button")
        page.wait_for_load_state("networkidle")
        page.goto(f"{live_server.url}/dashboard/?range=6h")
        page.wait_for_selector("canvas[data-points]")
        assert page.locator("figure.graph figcaption").inner_text().startswith("Traffic 1/g1")
        assert page.locator("a.range.active").inner_text() == "6h"

        page.goto(f"{live_server.url}/devices/{fleet['array'].pk}/?range=1h")
        page.wait_for_selector("figure.heatmap canvas[data-rows='2']", timeout=20000)
        assert int(page.locator("figure.heatmap canvas").get_attribute("data-cells")) >= 2 * 30
        page.fill("#range-start", "now-36h")
        page.fill("#range-end", "now-35h")
        page.click("#custom-range button[type=submit]")
        page.wait_for_load_state("networkidle")
        assert "start=now-36h" in page.url and page.locator("#range-label").inner_text().startswith(
            "now-36h → now-35h ("
        )
        page.wait_for_function("document.querySelector('figure.heatmap .graph-status').textContent.length > 0")
        assert "No volume latency" in page.locator("figure.heatmap .graph-status").inner_text()
        page.fill("#range-start", "now-1h")
        page.fill("#range-end", "now-2h")
        page.click("#custom-range button[type=submit]")
        page.wait_for_load_state("networkidle")
        page.wait_for_function("document.querySelector('figure.graph .graph-status').textContent.length > 0")
        assert "start must be before end" in page.locator("figure.graph .graph-status").first.inner_text()
