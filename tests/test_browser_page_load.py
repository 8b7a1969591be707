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
