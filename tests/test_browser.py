"""A real Chromium logs in, opens a device page and finds traffic charts drawn with data points."""

import time

import pytest

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph
from monitor.polling.run import run_poll
from tests.browser import chromium_page, log_in, scroll_until_drawn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_device_page_draws_traffic_charts(agent, clean_backends, live_server, django_user_model, monkeypatch):
    # Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test are still safe.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    viewer = django_user_model.objects.create_user("viewer", password="s3cret-pass-123")
    device = Device.objects.create(
        name="browser-switch", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    tree = Tree.objects.create(name="Network")  # the viewer reads the device through the tree it sits in
    place_device(device, TreeNode.objects.create(tree=tree, kind="header", title="Switches"))
    tree.read_users.add(viewer)
    for _ in range(3):
        assert run_poll(device.pk) == "ok"
        time.sleep(2.1)  # one poll per poll interval, as the scheduler does
    graph_count = Graph.objects.filter(device=device).count()
    traffic = list(Graph.objects.filter(device=device, template="traffic").values_list("pk", flat=True))
    assert len(traffic) == 8 and graph_count == 24  # traffic, errors and packets for each of 8 ports

    with chromium_page() as page:
        # Five minutes over a ~600 px chart (a point per two pixels) is finer than the poll interval: raw samples.
        path = f"/devices/{device.pk}/?start=now-5m&end=now"
        log_in(page, live_server.url, "viewer", "s3cret-pass-123", path.replace("&", "%26").replace("?", "%3F"))
        assert page.url.endswith(path)
        scroll_until_drawn(page, graph_count)
        for graph_id in traffic:
            count = int(page.locator(f"figure[data-graph-id='{graph_id}'] canvas").get_attribute("data-points"))
            assert count >= 4, (graph_id, count)  # two series, at least two rates each
        assert page.locator("#range-label").inner_text().startswith("now-5m → now (")
        legend = page.locator("figure.graph").first.locator("table.legend").inner_text()
        assert "In" in legend and "Out" in legend and "Mbit/s" in legend
        # The page marks when its first screen was drawn and every graph's data was in (the browser's own clock).
        marks = page.evaluate("performance.getEntriesByType('mark').map(m => [m.name, m.startTime])")
        found = dict(marks)
        assert 0 < found["monitor:first-screen"] <= found["monitor:all-data"], marks
        # A legend row's name hides its line, and shows it again.
        first = page.locator("figure.graph").first
        hidden = "Chart.getChart(document.querySelector('figure.graph canvas')).data.datasets.filter(d => d.hidden)"
        first.locator("table.legend th.series").first.click()
        assert page.evaluate(hidden + ".map(d => d.label)") == ["In"]
        assert first.locator("table.legend tr.hidden").count() == 1
        first.locator("table.legend th.series").first.click()
        assert page.evaluate(hidden + ".length") == 0
        # Each drawn chart got its tools: the way out is drawn, the unit, CSV and PNG, pinning.
        assert page.locator("figure.graph .graph-tools select.view-mode").count() == graph_count
        assert page.locator("figure.graph .graph-tools form.pin").count() == graph_count
        # The alias comes from the device: it must render as text, never as markup.
        assert page.locator("figure.graph b").count() == 0
        assert "<b>port 1</b>" in page.locator("figure.graph figcaption").first.inner_text()
        # A preset click keeps the range in the URL.
        page.click("a.range[data-range='6h']")
        page.wait_for_load_state("networkidle")
        assert page.url.endswith("?range=6h")
        page.wait_for_selector("canvas[data-points]")
        assert page.locator("a.range.active").inner_text() == "6h"


def test_graphs_that_arrive_before_the_chart_scripts_wait_for_them(
    agent, clean_backends, live_server, admin_user, monkeypatch
):
    """The first screen's data is preloaded while the page is read: when it lands after Chart.js but before its
    date adapter has run (a slow script), the charts are drawn once every script is there, not failed."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    device = Device.objects.create(
        name="slow-scripts", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    for _ in range(2):
        assert run_poll(device.pk) == "ok"
        time.sleep(2.1)
    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")

        def slow_adapter(route):
            time.sleep(1.5)  # the date adapter arrives long after the preloaded answer
            route.continue_()

        page.route("**/chartjs-adapter-date-fns*.js", slow_adapter)
        page.goto(f"{live_server.url}/devices/{device.pk}/?start=now-5m&end=now")
        page.wait_for_selector("figure.graph canvas[data-points]", timeout=30_000)
        first = page.locator("figure.graph").first
        assert first.get_attribute("data-loaded") == "1"
        assert int(first.locator("canvas").get_attribute("data-points")) >= 2
        assert page.locator("figure.graph[data-loaded='error']").count() == 0
        assert "Could not load" not in page.locator("#graphs").inner_text()
