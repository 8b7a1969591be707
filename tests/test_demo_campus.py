"""The demo's campus (issue 42), on the demo's own agents and devices: the daily read finds its cables, the core is
the poller's side, a server is found by MAC and by IP on its edge port, and pausing the story pair's agent (what
`manage.py demo_outage` does) gives one mail, for pc6248-demo, naming the array behind it."""

from __future__ import annotations

import os
import signal

import pytest

from monitor.alerts import delivery
from monitor.alerts.models import Event
from monitor.devstack import campus, fleet
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_polls
from monitor.storage.paths import refresh_paths
from monitor.topology import dependencies, hosts
from monitor.topology.models import Link
from tests import test_alert_kit as kit
from tests.test_alert_kit import subjects

smtp = kit.smtp  # fixture


@pytest.fixture
def agents(tmp_path):
    ports = free_udp_port(), free_udp_port()
    started = campus.start_agents(tmp_path, *ports, tmp_path / "log")
    yield ports, tmp_path
    for process in started:
        os.killpg(process.popen.pid, signal.SIGCONT)
        process.stop()


@pytest.mark.django_db(transaction=True)
def test_the_campus_is_linked_searchable_and_one_switch_outage_is_one_alert(agents, clean_backends, smtp, admin_user):
    (story_port, campus_port), var = agents
    admin_user.email = "admin@example.com"
    admin_user.save()
    campus.ensure_devices(story_port, campus_port, 60, admin_user)
    campus.ensure_devices(story_port, campus_port, 60, admin_user)  # a second start changes nothing
    devices = {d.name: d for d in Device.objects.all()}
    assert set(devices) == {"pc6248-demo", "eql-demo", "core-demo", "access2-demo"}
    everyone = [d.pk for d in devices.values()]
    outcomes = run_polls(everyone)
    assert all(text.startswith("ok") for text in outcomes.values()), outcomes

    summary = refresh_paths()
    assert summary.problems == [], summary.problems
    cables = {
        tuple(sorted(((link.a.name, link.a_port), (link.b.name, link.b_port))))
        for link in Link.objects.select_related("a", "b")
    }
    assert {
        (("core-demo", "1/xg1"), ("pc6248-demo", "1/xg1")),
        (("access2-demo", "1/xg1"), ("core-demo", "1/xg2")),
    } <= cables
    assert any({a[0], b[0]} == {"pc6248-demo", "eql-demo"} for a, b in cables)
    parent_of = dependencies.parents()
    name = {d.pk: n for n, d in devices.items()}
    assert {name[c]: name.get(p) for c, p in parent_of.items()} == {
        "core-demo": None, "pc6248-demo": "core-demo", "access2-demo": "core-demo", "eql-demo": "pc6248-demo",
    }  # fmt: skip

    server = fleet.CAMPUS_HOSTS - 9  # the third server: 1/g3 of access2-demo, 10.20.0.13 in the core's ARP cache
    for text in (f"00:50:56:21:00:{server:02x}", f"10.20.0.{10 + server}"):
        found = [(p.switch.name, p.port) for p in hosts.search(text, Device.objects.all()).places]
        assert found == [("access2-demo", f"1/g{server}")], (text, found)

    story_pid = int((var / "fleet" / campus.STORY_PID).read_text())
    os.killpg(story_pid, signal.SIGSTOP)  # manage.py demo_outage
    try:
        for _ in range(4):
            outcomes = run_polls(everyone)
            assert "no SNMP response" in outcomes[devices["eql-demo"].pk], outcomes
            assert outcomes[devices["core-demo"].pk].startswith("ok"), outcomes
    finally:
        os.killpg(story_pid, signal.SIGCONT)
    assert delivery.send_due()["sent"] == 1
    assert [s.split(":")[0] for s in subjects(smtp)] == ["[FIRING] pc6248-demo"]
    text = smtp.messages[0].get_body(("plain",)).get_content()
    assert "1 device behind it does not answer either" in text and "eql-demo" in text, text
    assert not Event.objects.filter(device=devices["eql-demo"], kind="fire").exists()
