"""The map page in a real Chromium under the Content-Security-Policy (issue 42): the reader's devices and links are
drawn (none to a device they may not read), coloured by utilisation and dashed when gone; a click on a link shows
the planted utilisation both ways and links to its port's graph at the page's range; a device dragged stays where it
was put after a reload (kept on the server for the user)."""

from __future__ import annotations

import pytest

from tests.browser import chromium_page, log_in
from tests.test_browser_csp import WATCH
from tests.test_map_api import network  # noqa: F401 - the planted scenario (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _playwright_beside_the_orm(monkeypatch):
    """Playwright's sync API runs an event loop in this thread; allow ORM calls for this test only."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def edge(page, link_id: int, what: str):
    return page.evaluate(f"window.MonitorMap.cy().getElementById('link-{link_id}').{what}")


def test_the_map_draws_the_readers_network_and_a_click_on_a_link_shows_its_utilisation(network, live_server):  # noqa: F811
    uplink, gone, eql = network["uplink"], network["gone"], network["eql"]
    with chromium_page(enforce_csp=True) as page:
        page.add_init_script(WATCH)
        log_in(page, live_server.url, "reader", "s3cret-pass-123", "/map/%3Frange=1h")
        page.wait_for_selector("#map[data-drawn]", timeout=30000)
        assert (page.get_attribute("#map", "data-nodes"), page.get_attribute("#map", "data-edges")) == ("3", "3")
        assert "3 devices, 3 links (1 gone)" in page.inner_text("#map-status")
        assert edge(page, uplink.pk, "data('colour')") == "rgb(200, 40, 40)"  # 92 % one way: red
        assert edge(page, network["storage"].pk, "data('colour')") == "rgb(240, 165, 0)"  # 85 %: amber
        assert edge(page, network["storage"].pk, "data('mark')") == "⚠"  # it discarded
        assert edge(page, uplink.pk, "data('mark')") == "2 events"  # on sw-a's 1/xg1 in the range
        assert edge(page, gone.pk, "style('line-style')") == "dashed"
        assert edge(page, uplink.pk, "data('width')") > edge(page, network["storage"].pk, "data('width')")  # 10G, 1G

        page.locator("#map").scroll_into_view_if_needed()
        where = page.evaluate(f"window.MonitorMap.edgeAt({uplink.pk})")
        page.mouse.click(where["x"], where["y"])
        page.wait_for_selector(f"#map-detail[data-edge='{uplink.pk}']", timeout=5000)
        said = page.inner_text("#map-detail")
        assert "sw-a 1/xg1 — sw-b 1/xg2" in said
        ab = page.inner_text("#map-detail tr.a-to-b")
        assert "sw-a 1/xg1 → sw-b 1/xg2" in ab and "4.00 Gbit/s (40.0 %)" in ab and "5.00 Gbit/s (50.0 %)" in ab
        assert "9.20 Gbit/s (92.0 %)" in page.inner_text("#map-detail tr.b-to-a")
        assert "2 on sw-a 1/xg1" in page.inner_text("#map-detail p.map-events")
        href = page.get_attribute("#map-detail a.map-graph", "href")
        assert href.startswith(f"/graphs/{network['graph'].pk}/?") and "range=1h" in href

        start = page.evaluate(f"window.MonitorMap.nodeAt({eql.pk})")  # drag the array 120 px right
        page.mouse.move(start["x"], start["y"])
        page.mouse.down()
        page.mouse.move(start["x"] + 60, start["y"] + 10, steps=5)
        page.mouse.move(start["x"] + 120, start["y"] + 20, steps=5)
        with page.expect_response(lambda r: "/api/map/places/" in r.url and r.request.method == "POST") as kept:
            page.mouse.up()
        assert kept.value.status == 204  # kept on the server, with the page's CSRF token
        moved = page.evaluate(f"window.MonitorMap.cy().getElementById('{eql.pk}').position()")
        assert page.url.split("?")[0].endswith("/map/")  # a drag is not a click: still on the map
        page.reload()
        page.wait_for_selector("#map[data-drawn]", timeout=30000)
        kept = page.evaluate(f"window.MonitorMap.cy().getElementById('{eql.pk}').position()")
        assert kept == pytest.approx(moved, abs=1)
        assert page.evaluate("window.__violations") == []
