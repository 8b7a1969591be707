"""The event markers of an aggregate graph a reader may read although some of its members are on devices they may
not read: the answer names only the members they may read, and carries only those members' events."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from monitor.events.models import Event
from monitor.events.record import make, store
from monitor.graphs.trees.models import AggregateGraph, ApiToken, Tree, TreeNode, place_device
from monitor.models import Device, Graph

pytestmark = pytest.mark.django_db


@pytest.fixture
def planted(stack_env, django_user_model):
    """A reader's tree holds one switch and two aggregates; one aggregate sums a port of a vault switch too, the
    other only the vault's ports. The vault sits in a tree the reader may not read."""
    now = timezone.now()
    seen = Device.objects.create(name="seen-sw", host="127.0.0.1", community="a")
    vault = Device.objects.create(name="vault-sw", host="127.0.0.2", community="b")
    graphs = {
        port: Graph.objects.create(device=device, template="traffic", instance=port, title=f"Traffic {port}")
        for device, port in ((seen, "1/g1"), (vault, "9/9"), (vault, "9/8"))
    }
    uplinks = AggregateGraph.objects.create(title="Uplinks", template="traffic")
    uplinks.members.set([graphs["1/g1"], graphs["9/9"]])
    vault_lag = AggregateGraph.objects.create(title="Vault LAG", template="traffic")
    vault_lag.members.set([graphs["9/9"], graphs["9/8"]])
    tree = Tree.objects.create(name="Reader's")
    header = TreeNode.objects.create(tree=tree, kind="header", title="Site")
    place_device(seen, header)
    for aggregate in (uplinks, vault_lag):
        TreeNode.objects.create(tree=tree, parent=header, kind="aggregate", aggregate=aggregate)
    secret = Tree.objects.create(name="Vault")
    place_device(vault, TreeNode.objects.create(tree=secret, kind="header", title="Vault"))
    reader = django_user_model.objects.create_user("reader", password="r3ader-pass-123")
    tree.read_users.add(reader)
    Event.objects.all().delete()
    store(
        [
            make(seen.pk, "link_down", "Link down on 1/g1", port="1/g1", time=now - timedelta(minutes=9)),
            make(vault.pk, "link_down", "vault-port-9/9 down", port="9/9", time=now - timedelta(minutes=8)),
            make(vault.pk, "syslog", "vault-wide news", time=now - timedelta(minutes=7)),
        ]
    )
    return {"seen": seen, "vault": vault, "uplinks": uplinks, "vault_lag": vault_lag, "reader": reader}


def markers(client: Client, planted: dict, **headers) -> dict:
    query = f"range=1d&aggregate={planted['uplinks'].pk}&aggregate={planted['vault_lag'].pk}"
    response = client.get(f"/api/events/markers?{query}", **headers)
    assert response.status_code == 200, response.content
    return response.json()


def test_an_aggregates_markers_name_only_the_members_the_reader_may_read(client, planted, admin_user):
    seen, vault = planted["seen"].pk, planted["vault"].pk
    client.force_login(planted["reader"])
    body = markers(client, planted)
    assert body["aggregates"] == {
        str(planted["uplinks"].pk): {"members": [{"device": seen, "port": "1/g1"}]},
        str(planted["vault_lag"].pk): {"members": []},
    }
    assert [(e["device"], e["port"], e["text"]) for e in body["events"]] == [(seen, "1/g1", "Link down on 1/g1")]
    text = str(body)
    assert "9/9" not in text and "9/8" not in text and "vault" not in text
    _, raw = ApiToken.issue(planted["reader"], "script")
    by_token = markers(Client(), planted, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert (by_token["aggregates"], by_token["events"]) == (body["aggregates"], body["events"])  # as the session
    client.force_login(admin_user)  # who reads everything sees every member and its events
    everything = markers(client, planted)
    members = everything["aggregates"][str(planted["vault_lag"].pk)]["members"]
    assert sorted(m["port"] for m in members) == ["9/8", "9/9"]
    assert {e["device"] for e in everything["events"]} == {seen, vault}


def test_an_event_naming_several_ports_says_which(planted):
    """A line about two ports is stored on the first with both listed; the markers carry the list, so each port's
    graph can draw it (static/js/markers.js), and an event naming none carries an empty one."""
    seen, now = planted["seen"], timezone.now()
    lag = make(seen.pk, "syslog", "lacp: 1/g1 and 1/g2 left", port="1/g1", time=now - timedelta(minutes=3))
    lag.detail = {"ports": ["1/g1", "1/g2"]}
    store([lag])
    graph = Graph.objects.get(device=seen, instance="1/g1")
    client = Client()
    client.force_login(planted["reader"])
    response = client.get(f"/api/events/markers?range=1d&graph={graph.pk}")
    assert response.status_code == 200, response.content
    by_text = {e["text"]: (e["port"], e["ports"]) for e in response.json()["events"]}
    assert by_text["lacp: 1/g1 and 1/g2 left"] == ("1/g1", ["1/g1", "1/g2"])
    assert by_text["Link down on 1/g1"] == ("1/g1", [])
