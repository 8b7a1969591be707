"""A real Chromium walks the journeys: tree, branch, device, preset, drag-zoom, zoom out, pan, reload."""

from __future__ import annotations

import re
import time
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient
from tests.browser import chromium_page, log_in, scroll_until_drawn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _playwright_beside_the_orm(monkeypatch):
    """Playwright's sync API runs an event loop in this thread; allow ORM calls for this test only."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def window_of(url: str) -> tuple[float, float]:
    query = parse_qs(urlsplit(url).query)
    start, end = (datetime.fromisoformat(query[k][0].replace("Z", "+00:00")).timestamp() for k in ("start", "end"))
    return start, end


@pytest.fixture
def tree(clean_backends, django_user_model):
    viewer = django_user_model.objects.create_user("viewer", password="s3cret-pass-123")
    device = Device.objects.create(name="zoom-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    now = int(time.time())
    lines = []
    for i in (1, 2):
        Interface.objects.create(device=device, name=f"1/g{i}", if_index=i, alias=f"<b>uplink {i}</b>", speed_bps=10**9)
        Graph.objects.create(device=device, template="traffic", instance=f"1/g{i}", title=f"Traffic 1/g{i}", position=i)
        lines += [
            f"interface,device={device.pk},port=1/g{i} in_bps={i * 1e8 + k * 1e5},out_bps=2e7 {now - 60 * k}"
            for k in range(8 * 60)
        ]
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    network = Tree.objects.create(name="Network")
    core = TreeNode.objects.create(tree=network, kind="header", title="Core", position=1)
    node = place_device(device, core)
    network.read_users.add(viewer)
    return {"device": device, "tree": network, "core": core, "node": node}


def graphs_drawn(page, count: int) -> None:
    scroll_until_drawn(page, count)


def test_tree_branch_device_preset_zoom_and_reload(tree, live_server):
    with chromium_page() as page:
        log_in(page, live_server.url, "viewer", "s3cret-pass-123", "/trees/")
        assert urlsplit(page.url).path == f"/trees/{tree['tree'].pk}/"
        page.click(f"a[data-node-id='{tree['core'].pk}']")  # pick a branch: its graphs on the right
        graphs_drawn(page, 2)
        assert page.locator("#tree-pane li.selected > a").inner_text() == "Core"
        page.click("a.range[data-range='1d']")
        page.wait_for_load_state("networkidle")
        assert page.url.endswith("?range=1d")
        graphs_drawn(page, 2)
        coarse = int(page.locator("figure.graph").first.get_attribute("data-resolution"))
        assert coarse > 60  # a day over a few hundred pixels: aggregated

        page.click(f"a[data-node-id='{tree['node'].pk}']")  # the device inside the branch keeps the range
        page.wait_for_load_state("networkidle")
        graphs_drawn(page, 2)
        page.goto(f"{live_server.url}/devices/{tree['device'].pk}/?range=1d")
        graphs_drawn(page, 2)
        assert page.locator("a.range.active").inner_text() == "1d"
        assert page.locator("figure.graph b").count() == 0  # aliases are text

        box = page.locator("figure.graph canvas").first.bounding_box()
        y = box["y"] + box["height"] * 0.5
        page.mouse.move(box["x"] + box["width"] * 0.45, y)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] * 0.55, y, steps=8)
        page.mouse.up()
        page.wait_for_function("new URLSearchParams(location.search).has('start')", timeout=10000)
        start, end = window_of(page.url)
        assert 15 * 60 <= end - start <= 6 * 3600  # a slice of the day
        expected = page.evaluate("new URLSearchParams(location.search).get('start')")
        page.wait_for_function(
            "[...document.querySelectorAll('figure.graph')].every(f => f.dataset.start && "
            f"Math.abs(Date.parse(f.dataset.start) - {start * 1000}) < 1000)",
            timeout=20000,
        )
        fine = int(page.locator("figure.graph").first.get_attribute("data-resolution"))
        assert fine < coarse  # re-fetched at a finer resolution, not stretched
        # The range is written as every date of the pages is (static/js/format.js), not as the URL's ISO instants.
        label = page.locator("#range-label").inner_text()
        shown = page.evaluate(
            "(() => { const q = new URLSearchParams(location.search);"
            " return MonitorFormat.range(Date.parse(q.get('start')), Date.parse(q.get('end'))); })()"
        )
        assert expected and label == shown and not re.search(r"\d{4}-\d\d-\d\dT", label)

        before = page.evaluate("location.search")
        page.click("#zoom-out")
        page.wait_for_function(f"location.search !== {before!r}", timeout=10000)
        wide_start, wide_end = window_of(page.url)
        assert (wide_end - wide_start) == pytest.approx(2 * (end - start), abs=2)

        before = page.evaluate("location.search")
        page.click("#pan-back")
        page.wait_for_function(f"location.search !== {before!r}", timeout=10000)
        back_start, back_end = window_of(page.url)
        assert back_end < wide_end and (back_end - back_start) == pytest.approx(wide_end - wide_start, abs=2)

        shared = page.url
        page.reload()
        graphs_drawn(page, 2)
        assert page.url == shared
        for figure in page.locator("figure.graph").all():
            assert abs(datetime.fromisoformat(figure.get_attribute("data-start")).timestamp() - back_start) < 1
            assert abs(datetime.fromisoformat(figure.get_attribute("data-end")).timestamp() - back_end) < 1
        # Moving to another page keeps the zoomed range.
        page.click("header a.keep-range[href^='/trees/']")
        page.wait_for_load_state("networkidle")
        assert window_of(page.url) == (back_start, back_end)
