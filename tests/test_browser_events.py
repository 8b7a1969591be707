"""A real Chromium shows the events that real senders (snmptrap, logger) sent, as markers on the right graphs at
the right time (a syslog line naming a port on that port's graphs only; events at one moment as one marker that
counts and lists them); one request for the page's markers; the Events box hides them and the URL keeps it."""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta

import pytest

from monitor.events.models import Event
from monitor.events.syslogd import SyslogReceiver
from monitor.events.traps import TrapReceiver
from monitor.graphs.trees.models import AggregateGraph, Tree, TreeNode
from monitor.models import Device, Graph
from monitor.polling.run import run_poll
from tests import eventkit as kit
from tests.browser import chromium_page, log_in, scroll_until_drawn

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANNOTATIONS = """(id) => {
  const figure = document.querySelector(typeof id === "string" ? id : `figure[data-graph-id='${id}']`);
  const chart = Chart.getChart(figure.querySelector("canvas"));
  const found = (chart.options.plugins.annotation || {}).annotations || {};
  return Object.values(found).map((a) => [a.xMin, a.borderColor, a.label.content.slice(1).sort()]).sort();
}"""

PIXEL = """(args) => {
  const x = Chart.getChart(document.querySelector(`figure[data-graph-id='${args[0]}'] canvas`)).scales.x;
  return [x.min <= args[1] && args[1] <= x.max, Math.round(x.getPixelForValue(args[1]))];
}"""


def test_trap_and_syslog_markers_on_the_right_graphs(agent, clean_backends, live_server, admin_user, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    device = Device.objects.create(
        name="marked-switch", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    for _ in range(3):
        assert run_poll(device.pk) == "ok"
        time.sleep(2.1)
    traps = TrapReceiver("127.0.0.1", 0, name="trap@browser").start()
    syslog = SyslogReceiver("127.0.0.1", 0, name="syslog@browser").start()
    try:
        kit.snmptrap(*kit.link_trap_args(traps.port, 3, version=("-v", "2c", "-c", "switch")))
        result = subprocess.run(
            ["logger", "-n", "127.0.0.1", "-P", str(syslog.port), "-d", "-p", "daemon.err", "-t", "stp",
             "Topology change on <vlan 10>"],
            capture_output=True, timeout=20,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        result = subprocess.run(
            ["logger", "-n", "127.0.0.1", "-P", str(syslog.port), "-d", "-p", "daemon.warning", "-t", "link",
             "Interface 1/g1, changed state to down"],
            capture_output=True, timeout=20,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        (down,) = kit.events_of(device, 1, kind="link_down")
        line, named = sorted(kit.events_of(device, 2, kind="syslog"), key=lambda e: e.port)
    finally:
        traps.stop()
        syslog.stop()
    assert (down.port, line.port, line.severity, named.port) == ("1/g3", "", 3, "1/g1")
    # the device was added minutes before the messages came (its marker stands apart from theirs)
    Event.objects.filter(device=device, kind="device_added").update(time=down.time - timedelta(minutes=4))
    traffic = dict(Graph.objects.filter(device=device, template="traffic").values_list("instance", "pk"))
    errors = Graph.objects.get(device=device, template="errors", instance="1/g3").pk
    count = Graph.objects.filter(device=device).count()

    with chromium_page() as page:
        requests, errors_seen = [], []
        page.on("console", lambda m: errors_seen.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors_seen.append(str(e)))
        page.on("request", lambda r: requests.append(r.url) if "/api/events/markers" in r.url else None)
        log_in(page, live_server.url, "admin", "password")
        page.goto(f"{live_server.url}/devices/{device.pk}/?start=now-10m&end=now")
        scroll_until_drawn(page, count)
        page.wait_for_function(
            f"document.querySelectorAll('figure.graph[data-markers]').length >= {count}", timeout=30_000
        )
        trap_text, line_text = "Link down on 1/g3 (admin up, oper down)", "stp: Topology change on <vlan 10>"
        named_text = "link: Interface 1/g1, changed state to down"
        added = Event.objects.get(device=device, kind="device_added")
        added_marker = [int(added.time.timestamp() * 1000), "#5d6d7e", ["Device marked-switch added (127.0.0.1)"]]

        # The port's graphs: its linkDown and the device-wide syslog line, sent together: one marker listing both,
        # coloured by the worse (the line's error); another port's: the device-wide line and the line naming it.
        def ms(*events) -> int:  # a marker of several events sits at the first
            return int(min(e.time for e in events).timestamp() * 1000)

        at = ms(down, line, named)
        trap_g3 = [ms(down, line), "#e0661b", sorted(["error · " + line_text, "warning · " + trap_text])]
        on_g1 = [ms(line, named), "#e0661b", sorted(["error · " + line_text, "warning · " + named_text])]
        assert page.evaluate(ANNOTATIONS, traffic["1/g3"]) == sorted([added_marker, trap_g3])
        assert page.evaluate(ANNOTATIONS, errors) == sorted([added_marker, trap_g3])
        assert page.evaluate(ANNOTATIONS, traffic["1/g1"]) == sorted([added_marker, on_g1])
        g3 = page.locator(f"figure[data-graph-id='{traffic['1/g3']}']")
        assert (g3.get_attribute("data-markers"), g3.get_attribute("data-marker-lines")) == ("3", "2")
        assert len(requests) == 1, requests  # one request for the whole page, not one per graph
        # The marker sits at the event's time on the chart's own axis (inside the drawn range).
        inside = page.evaluate(PIXEL, [traffic["1/g3"], at])
        assert inside[0] is True and inside[1] > 0
        page.locator(f"figure[data-graph-id='{traffic['1/g3']}']").scroll_into_view_if_needed()
        box = page.locator(f"figure[data-graph-id='{traffic['1/g3']}'] canvas").bounding_box()
        page.mouse.move(box["x"] + inside[1], box["y"] + box["height"] / 2)  # hover: the label shows the text
        page.wait_for_timeout(200)
        page.screenshot(path="/tmp/events-markers.png")
        # The Events box hides them, and the URL keeps the choice (links and reloads too).
        page.evaluate("window.scrollTo(0, 0)")
        page.click("#events-toggle")
        assert "events=0" in page.url
        page.wait_for_function(
            f"document.querySelector(`figure[data-graph-id='{traffic['1/g3']}']`).dataset.markers === '0'"
        )
        assert page.evaluate(ANNOTATIONS, traffic["1/g3"]) == []
        assert "events=0" in page.locator("a.range[data-range='6h']").get_attribute("href")
        page.reload()
        scroll_until_drawn(page, 2)
        assert page.locator("#events-toggle").is_checked() is False
        assert len(requests) == 1  # hidden: not even asked for
        # An aggregate of two ports shows what its members would: the linkDown of one, the device-wide ones.
        lag = AggregateGraph.objects.create(title="LAG 1/g1+1/g3", template="traffic")
        lag.members.add(traffic["1/g1"], traffic["1/g3"])
        tree = Tree.objects.create(name="Events tree")
        header = TreeNode.objects.create(tree=tree, kind="header", title="Uplinks")
        TreeNode.objects.create(tree=tree, parent=header, kind="aggregate", aggregate=lag)
        page.goto(f"{live_server.url}/trees/{tree.pk}/nodes/{header.pk}/?start=now-10m&end=now")
        selector = f"figure[data-aggregate-id='{lag.pk}']"
        page.wait_for_function(f"(document.querySelector(`{selector}`) || {{dataset: {{}}}}).dataset.markers === '4'",
                               timeout=30_000)  # fmt: skip
        listed = sorted(["error · " + line_text, "warning · " + trap_text, "warning · " + named_text])
        assert page.evaluate(ANNOTATIONS, selector) == sorted([added_marker, [at, "#e0661b", listed]])
        assert len(requests) == 2 and "aggregate=" in requests[-1]
        assert [e for e in errors_seen if "favicon" not in e and "404" not in e] == []
    assert Event.objects.filter(device=device, source__in=["trap", "syslog"]).count() == 3
    assert traps.counts.totals["write_failed"] == syslog.counts.totals["write_failed"] == 0
