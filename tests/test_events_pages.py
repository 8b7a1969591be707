"""The events pages and API: what a user may read, filters, the page's range, the markers of a page's graphs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from monitor.events.models import Event, Receiver, ReceiverCount
from monitor.events.record import make, store
from monitor.graphs.trees.models import AggregateGraph, Tree, TreeNode, place_device
from monitor.models import Device, Graph

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(stack_env, django_user_model):
    now = timezone.now()
    seen = Device.objects.create(name="seen-switch", host="127.0.0.1", community="a")
    hidden = Device.objects.create(name="hidden-switch", host="127.0.0.2", community="b")
    viewer = django_user_model.objects.create_user("viewer", password="pw-123456789")
    tree = Tree.objects.create(name="Net")
    place_device(seen, TreeNode.objects.create(tree=tree, kind="header", title="Switches"))
    tree.read_users.add(viewer)
    Event.objects.all().delete()  # "device added" events of the fixtures
    store(
        [
            make(seen.pk, "link_down", "Link down on 1/g1 <b>x</b>", port="1/g1", time=now - timedelta(minutes=30)),
            make(seen.pk, "syslog", "iscsid: session lost", severity=3, facility=16, time=now - timedelta(minutes=20)),
            make(seen.pk, "link_up", "Link up on 1/g2", port="1/g2", time=now - timedelta(minutes=10)),
            make(seen.pk, "syslog", "old news", time=now - timedelta(days=3)),
            make(hidden.pk, "syslog", "secret device's news", time=now - timedelta(minutes=5)),
        ]
    )
    traffic1 = Graph.objects.create(device=seen, template="traffic", instance="1/g1", title="Traffic 1/g1")
    traffic2 = Graph.objects.create(device=seen, template="traffic", instance="1/g2", title="Traffic 1/g2")
    cpu = Graph.objects.create(device=seen, template="cpu", instance="", title="CPU")
    other = Graph.objects.create(device=hidden, template="cpu", instance="", title="CPU")
    return {"seen": seen, "hidden": hidden, "viewer": viewer, "graphs": (traffic1, traffic2, cpu, other)}


def test_the_events_page_shows_only_readable_devices_filtered_and_escaped(client, world):
    client.force_login(world["viewer"])
    page = client.get("/events/?range=1d").content.decode()
    assert "Link down on 1/g1 &lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "secret device" not in page and "old news" not in page
    assert "3 events from" in page and 'id="receivers"' not in page  # receivers: staff only
    assert "<th>Time <small>(UTC)</small></th>" in page  # the server's time zone, named (markers use the reader's)
    page = client.get("/events/?range=1w&severity=4").content.decode()
    assert "old news" not in page and "iscsid: session lost" in page and "Link down" in page and "Link up" not in page
    page = client.get("/events/?range=1w&q=NEWS").content.decode()
    assert "old news" in page and "1 event from" in page
    assert "start must be before end" in client.get("/events/?start=now&end=now-1h").content.decode()
    device_page = client.get(f"/devices/{world['seen'].pk}/events/?range=1d&port=1/g2").content.decode()
    assert "Link up on 1/g2" in device_page and "Link down" not in device_page
    assert client.get(f"/devices/{world['hidden'].pk}/events/").status_code == 404


def test_the_api_lists_and_filters_with_the_users_grants(client, world):
    client.force_login(world["viewer"])
    body = client.get("/api/events/?range=1w").json()
    assert [e["text"] for e in body["results"]] == [
        "Link up on 1/g2",
        "iscsid: session lost",
        "Link down on 1/g1 <b>x</b>",
        "old news",
    ]
    assert body["results"][1] | {"time": None, "id": None} == {
        "id": None, "time": None, "device": world["seen"].pk, "device_name": "seen-switch", "port": "",
        "source": "syslog", "kind": "syslog", "severity": 3, "severity_name": "error", "facility": 16, "name": "",
        "text": "iscsid: session lost", "ends_at": None, "detail": {},
    }  # fmt: skip
    assert client.get("/api/events/?kind=nonsense").status_code == 400
    assert client.get(f"/api/events/?device={world['hidden'].pk}").status_code == 400  # not a choice for this user


def test_markers_map_each_graph_to_its_device_and_port(client, world, settings):
    client.force_login(world["viewer"])
    traffic1, traffic2, cpu, other = world["graphs"]
    query = f"range=1d&graph={traffic1.pk}&graph={traffic2.pk}&graph={cpu.pk}&graph={other.pk}"
    body = client.get(f"/api/events/markers?{query}").json()
    seen = world["seen"].pk
    assert body["graphs"] == {
        str(traffic1.pk): {"device": seen, "port": "1/g1"},
        str(traffic2.pk): {"device": seen, "port": "1/g2"},
        str(cpu.pk): {"device": seen, "port": None},
    }  # the hidden device's graph is not named, nor its events sent
    assert [(e["port"], e["kind"], e["severity"], e["colour"]) for e in body["events"]] == [
        ("1/g1", "link_down", 4, "#d68910"),
        ("", "syslog", 3, "#e0661b"),
        ("1/g2", "link_up", 5, "#1f5fbf"),
    ]
    first = Event.objects.get(kind="link_down")
    assert body["events"][0]["t"] == int(first.time.timestamp() * 1000) and body["truncated"] is False
    settings.EVENTS_MARKERS_MAX = 2  # the most severe first when there are too many
    body = client.get(f"/api/events/markers?{query}").json()
    assert [e["severity"] for e in body["events"]] == [4, 3] and body["truncated"] is True
    assert client.get("/api/events/markers?graph=x").status_code == 400
    assert client.get(f"/api/events/markers?graph={cpu.pk}&start=now&end=now-1d").status_code == 400


def test_an_aggregate_graph_gets_its_members_markers(client, world):
    """An aggregate names its readable members' devices and ports; a hidden member is not named, nor its events sent."""
    client.force_login(world["viewer"])
    traffic1, traffic2, _, other = world["graphs"]
    lag = AggregateGraph.objects.create(title="LAG", template="traffic")
    lag.members.add(traffic1, traffic2)
    mixed = AggregateGraph.objects.create(title="mixed", template="cpu")
    mixed.members.add(other)
    hidden = AggregateGraph.objects.create(title="not placed", template="traffic")
    hidden.members.add(traffic1)
    header = TreeNode.objects.get(kind="header")
    for aggregate in (lag, mixed):
        TreeNode.objects.create(tree=header.tree, parent=header, kind="aggregate", aggregate=aggregate)
    body = client.get(f"/api/events/markers?range=1d&aggregate={lag.pk}&aggregate={mixed.pk}"
                      f"&aggregate={hidden.pk}").json()  # fmt: skip
    seen = world["seen"].pk
    assert body["graphs"] == {}
    assert sorted(body["aggregates"][str(lag.pk)]["members"], key=str) == [
        {"device": seen, "port": "1/g1"},
        {"device": seen, "port": "1/g2"},
    ]
    assert body["aggregates"][str(mixed.pk)] == {"members": []}  # its member's device is hidden: not named
    assert str(hidden.pk) not in body["aggregates"]
    assert [(e["device"], e["port"], e["kind"]) for e in body["events"]] == [
        (seen, "1/g1", "link_down"),
        (seen, "", "syslog"),
        (seen, "1/g2", "link_up"),
    ]  # the hidden device's event stays hidden though an aggregate names it
    assert client.get("/api/events/markers?aggregate=x").status_code == 400


def test_a_syslog_facility_is_shown_by_its_name(client, world):
    """RFC 5424's table: 16 is local0, 23 local7; a number past the table is said as such."""
    store([make(world["seen"].pk, "syslog", "from local7", severity=5, facility=23),
           make(world["seen"].pk, "syslog", "from nowhere", severity=5, facility=30)])  # fmt: skip
    client.force_login(world["viewer"])
    page = client.get("/events/?range=1d").content.decode()
    assert '<span class="muted facility" title="syslog facility 16">local0</span>' in page
    assert '<span class="muted facility" title="syslog facility 23">local7</span>' in page
    assert '<span class="muted facility" title="syslog facility 30">facility 30</span>' in page
    assert '<span class="muted">23</span>' not in page


def test_staff_see_the_receivers_and_their_counts_by_reason(client, world, admin_user):
    now = timezone.now()
    receiver = Receiver.objects.create(name="trap@box:162", kind="trap", started_at=now, last_seen=now)
    ReceiverCount.objects.create(receiver=receiver, reason="stored", count=12, last_at=now)
    ReceiverCount.objects.create(
        receiver=receiver, reason="unknown_source", count=3, last_at=now, note="last from 10.9.9.9"
    )
    client.force_login(admin_user)
    page = client.get("/events/").content.decode()
    assert "trap@box:162" in page and "running" in page
    assert 'from an address no device has</th><td>3</td><td class="muted">last from 10.9.9.9' in page
