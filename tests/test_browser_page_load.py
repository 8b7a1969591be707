"""A device page in Chromium: charts drawn in view first, the rest as they come near, and the 95th percentiles that
need a read of their own asked for the charts drawn only (a year's of 160 graphs cost the server seconds)."""

from __future__ import annotations

import pytest

from tests.browser import chromium_page, log_in, scroll_until_drawn
from tests.test_page_series import page as history  # noqa: F401 -- the fixture: a 16-port switch, 40 days

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
STATES = (
    "[...document.querySelectorAll('figure.graph')].map(f => [!!f.querySelector('canvas[data-points]'), "
    "f.dataset.p95, f.querySelector('table.legend') ? f.querySelector('table.legend').textContent : ''])"
)
HEIGHTS = "[...document.querySelectorAll('figure.graph')].map(f => f.getBoundingClientRect().height)"


def test_percentiles_are_asked_for_the_charts_drawn(history, live_server, admin_user, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    device = history["device"]
    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")
        page.goto(f"{live_server.url}/devices/{device.pk}/?range=1y")
        page.wait_for_function("performance.getEntriesByName('monitor:percentiles').length > 0", timeout=60_000)
        states = page.evaluate(STATES)
        drawn = [s for s in states if s[0]]
        undrawn = [s for s in states if not s[0]]
        assert drawn and undrawn, states  # the page is longer than a screen and a half
        traffic = [s for s in drawn if "95th" in s[2]]
        assert traffic and all(s[1] == "ready" and "…" not in s[2] and "bit/s" in s[2] for s in traffic), traffic
        # Traffic graphs far below were never drawn: their percentiles were not asked for.
        assert any(s[1] == "pending" for s in undrawn), undrawn
        marks = dict(page.evaluate("performance.getEntriesByType('mark').map(m => [m.name, m.startTime])"))
        assert marks["monitor:first-screen"] <= marks["monitor:all-data"] <= marks["monitor:percentiles"]
        # Scrolled to, a chart is drawn and its percentile asked for and shown; it takes the room its figure stood
        # for before it was laid out, so scrolling past moves nothing under the pointer.
        heights = page.evaluate(HEIGHTS)
        scroll_until_drawn(page, len(states))
        assert page.evaluate(HEIGHTS) == pytest.approx(heights, abs=0.5)
        page.wait_for_function(
            "[...document.querySelectorAll('figure.graph')].every(f => f.dataset.p95 === 'ready')", timeout=60_000
        )
        last = page.evaluate(STATES)[-2]  # the last port's traffic graph (each port: traffic, errors)
        assert last[0] and "…" not in last[2] and "bit/s" in last[2], last


def test_the_rest_of_the_page_is_fetched_a_kind_of_graph_a_request(history, live_server, admin_user, monkeypatch):  # noqa: F811
    """After the first screen, graphs of one device and template are asked for together (InfluxDB reads a switch's
    ports of one kind as one set: a request of every kind of a few ports each cost it half as much again)."""
    from urllib.parse import parse_qs, urlsplit

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    device = history["device"]
    kind = {str(g.pk): g.template for g in history["graphs"]}
    asked: list[list[str]] = []

    def seen(request):
        query = parse_qs(urlsplit(request.url).query)
        if urlsplit(request.url).path == "/api/series" and query.get("p95") == ["later"]:
            asked.append(query.get("graph", []))

    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")
        page.on("request", seen)
        page.goto(f"{live_server.url}/devices/{device.pk}/?range=1y")
        page.wait_for_function("performance.getEntriesByName('monitor:all-data').length > 0", timeout=60_000)
    rest = asked[1:]  # the first screen's request names the graphs in view, of every kind
    assert rest and sorted(g for ids in asked for g in ids) == sorted(kind), asked
    for template in ("traffic", "errors"):
        holding = [ids for ids in rest if any(kind[g] == template for g in ids)]
        assert len(holding) == 1, (template, asked)  # 13 graphs of each left after the first screen: one request
    assert all(len(ids) > 1 for ids in rest), asked
