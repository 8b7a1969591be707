"""Every main page is served with a Content-Security-Policy that forbids inline and foreign scripts, and Chromium
draws each page under it without a single violation (a page that needed an inline script would break here)."""

from __future__ import annotations

import time

import pytest

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph
from monitor.polling.run import run_poll
from tests.browser import chromium_page, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation',
  e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
"""


def polled(agent, name: str, community: str) -> Device:
    device = Device.objects.create(
        name=name, host="127.0.0.1", port=agent.port, community=community, poll_interval_s=2, timeout_s=1.0
    )
    for _ in range(2):
        assert run_poll(device.pk) == "ok"
        time.sleep(2.1)  # one poll per poll interval, as the scheduler does
    return device


def test_every_main_page_runs_under_the_policy_without_a_violation(
    agent, clean_backends, live_server, django_user_model, monkeypatch
):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    django_user_model.objects.create_superuser("chief", password="s3cret-pass-123")
    switch, array = polled(agent, "csp-switch", "switch"), polled(agent, "csp-eql", "eql")
    tree = Tree.objects.create(name="Network")
    place_device(switch, TreeNode.objects.create(tree=tree, kind="header", title="Switches"))
    graph = Graph.objects.filter(device=switch, template="traffic").first()
    pages = [
        "/",
        f"/devices/{switch.pk}/?range=1d",
        f"/graphs/{graph.pk}/",
        "/trees/",
        f"/trees/{tree.pk}/",
        "/dashboard/",
        "/events/",
        "/pollers/",
        "/alerts/",
        f"/storage/arrays/{array.pk}/",
        f"/storage/arrays/{array.pk}/path/",
        "/search/?q=csp",
        "/map/",
        f"/map/?tree={tree.pk}",
        "/admin/",
        "/admin/monitor/device/add/",
        f"/admin/monitor/device/{switch.pk}/change/",
    ]
    with chromium_page(enforce_csp=True) as page:
        page.add_init_script(WATCH)
        refused: list[str] = []
        page.on("console", lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None)
        log_in(page, live_server.url, "chief", "s3cret-pass-123")
        for path in pages:
            response = page.goto(live_server.url + path)
            assert response.status == 200, path
            policy = response.headers.get("content-security-policy", "")
            assert "script-src 'self'" in policy and "object-src 'none'" in policy, (path, policy)
            assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0], policy
            page.wait_for_load_state("networkidle")
            assert page.evaluate("window.__violations") == [], path
        assert refused == []
        # The policy is enforced: an inline script injected into a page does not run.
        page.evaluate(
            "() => { const s = document.createElement('script'); s.textContent = 'window.__ran = 1';"
            " document.body.appendChild(s); }"
        )
        assert page.evaluate("window.__ran") is None
        assert any("script-src" in v for v in page.evaluate("window.__violations"))
