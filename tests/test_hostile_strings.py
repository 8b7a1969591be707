"""Device strings carrying markup and script, polled from a real agent, render as text everywhere a user meets
them: every page in a real Chromium (no script runs, no element is injected; the map's link panel too) and the alert
mail."""

from __future__ import annotations

import time

import pytest
from django.core import mail

from monitor.alerts import delivery
from monitor.alerts.models import Event, Rule
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.graphs.trees.models import DashboardItem, Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.polling.run import run_poll
from tests.browser import chromium_page, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SYS_NAME = '<img src=x onerror="window.__xss=1">core-sw'
SYS_DESCR = "PowerConnect 6248 <script>window.__xss=2</script>"
PORT_NAME = "1/g1<svg onload=window.__xss=3>"
ALIAS = '"><script>window.__xss=4</script><b>bold</b>'
FORMULA_ALIAS = '=HYPERLINK("http://evil.example/","click")'
INJECTED_ELEMENTS = """() =>
    [...document.querySelectorAll('script')].some((s) => s.textContent.includes('__xss'))
    || document.querySelectorAll('svg[onload], img[onerror]').length > 0
    || [...document.querySelectorAll('b')].some((b) => b.textContent === 'bold')"""


@pytest.fixture(scope="module")
def hostile_agent(stack_dir):
    device = fleet.SimDevice(
        "hostile",
        SYS_DESCR,
        "1.3.6.1.4.1.674.10895.3011",
        SYS_NAME,
        [
            fleet.SimPort(index=1, name=PORT_NAME, in_rate=5_000_000.0, out_rate=1_000_000.0, alias=ALIAS),
            fleet.SimPort(index=2, name="1/g2", in_rate=2_000_000.0, out_rate=500_000.0, alias=FORMULA_ALIAS),
        ],
    )
    data = stack_dir / "hostile" / "data"
    device.write(data)
    port = free_udp_port()
    process = services.start_snmpsim(data, port, stack_dir / "log", name="snmpsim-hostile")
    yield port
    process.stop()


def test_device_strings_render_as_text_everywhere(hostile_agent, clean_backends, live_server, django_user_model):
    import os

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's sync API runs a loop in this thread
    django_user_model.objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    device = Device.objects.create(
        name="hostile", host="127.0.0.1", port=hostile_agent, community="hostile", poll_interval_s=2, timeout_s=1.0
    )
    rule = Rule.objects.create(
        name="any traffic",
        metric="port_util",
        scope=Rule.Scope.DEVICE,
        device=device,
        unit=Rule.Unit.PERCENT,
        fire_level=0.001,
        clear_level=0.0001,
        for_polls=1,
        recipient_emails="ops@example.com",
    )
    for _ in range(3):
        assert run_poll(device.pk) == "ok"
        time.sleep(1.2)
    device.refresh_from_db()
    assert device.sys_name == SYS_NAME and device.sys_descr == SYS_DESCR  # kept as the agent sent them
    assert Interface.objects.get(device=device, if_index=1).alias == ALIAS
    traffic = Graph.objects.get(device=device, template="traffic", instance=PORT_NAME)
    tree = Tree.objects.create(name="Hostile")
    place_device(device, TreeNode.objects.create(tree=tree, kind="header", title="Edge"))
    from django.contrib.auth import get_user_model

    DashboardItem.objects.create(user=get_user_model().objects.get(username="root"), graph=traffic, position=0)
    assert Event.objects.filter(rule=rule, kind="fire").exists()

    pages = [
        "/",
        f"/devices/{device.pk}/",
        f"/graphs/{traffic.pk}/",
        "/search/?q=g1",
        "/search/?q=script",
        f"/trees/{tree.pk}/",
        "/dashboard/",
        "/alerts/",
        f"/alerts/history/?device={device.pk}",
        f"/admin/monitor/device/{device.pk}/change/",
        "/admin/monitor/device/",
        "/admin/monitor/graph/",
        "/admin/alerts/alertstate/",
    ]
    dialogs: list[str] = []
    with chromium_page() as page:
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        log_in(page, live_server.url, "root", "pw-for-tests-1")
        for path in pages:
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, path
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(300)  # charts drawn, tooltips and legends built by the page's scripts
            assert page.evaluate("window.__xss") is None, f"device-supplied script ran on {path}"
            assert page.evaluate(INJECTED_ELEMENTS) is False, f"device-supplied markup became elements on {path}"
        page.goto(f"{live_server.url}/devices/{device.pk}/")
        page.wait_for_selector("canvas[data-points]")
        text = page.locator("body").inner_text()
        assert SYS_NAME in text and SYS_DESCR in text  # shown, as text
        assert ALIAS in text and PORT_NAME in text
        chart = page.locator(f"figure[data-graph-id='{traffic.pk}'] canvas")
        box = chart.bounding_box()
        page.mouse.move(box["x"] + box["width"] * 0.9, box["y"] + box["height"] / 2)  # a tooltip with the names
        page.wait_for_timeout(300)
        assert page.evaluate("window.__xss") is None

        from django.utils import timezone

        from monitor.topology.models import Link

        now = timezone.now()
        peer = Device.objects.create(name="peer", host="127.0.0.1", community="x")
        link = Link.objects.create(a=device, a_port=PORT_NAME, b=peer, b_port=ALIAS, first_seen=now, last_seen=now,
                                   checked_at=now, via_lldp=True)  # fmt: skip
        page.goto(f"{live_server.url}/map/?range=1h")  # the link's panel names both ports, as text
        page.wait_for_selector("#map[data-drawn]")
        where = page.evaluate(f"window.MonitorMap.edgeAt({link.pk})")
        page.mouse.click(where["x"], where["y"])
        page.wait_for_selector(f"#map-detail[data-edge='{link.pk}']")
        assert PORT_NAME in page.inner_text("#map-detail") and ALIAS in page.inner_text("#map-detail")
        assert page.evaluate("window.__xss") is None and page.evaluate(INJECTED_ELEMENTS) is False
    assert dialogs == []

    mail.outbox.clear()
    delivery.send_due()
    assert mail.outbox, "the alert mail was sent"
    pages = [next(body for body, kind in message.alternatives if kind == "text/html") for message in mail.outbox]
    for html in pages:
        for raw in ("<script", "<svg", "<img", "<b>bold"):
            assert raw not in html, raw
    assert any("1/g1&lt;svg onload=window.__xss=3&gt;" in html for html in pages)  # the port's mail, escaped
    assert all("\n" not in message.subject and "\r" not in message.subject for message in mail.outbox)
