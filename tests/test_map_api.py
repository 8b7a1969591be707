"""GET /api/map/ (issue 42's map) against planted InfluxDB samples: each link's utilisation both ways, mean and peak
over the range as the scenario's arithmetic says, from the sender's port or (no data there) the receiver's; its
discards, its colour level, gone links; a reader sees only the devices of the trees granted and no link to a device
they may not see; a tree's map; bad parameters refused with what is wrong."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.events.record import make, store
from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient
from monitor.topology.models import Link

pytestmark = pytest.mark.django_db
TEN_G, ONE_G = 10_000_000_000, 1_000_000_000
SAMPLES = 30  # one a minute over the last half hour


def plant(lines: list[str]) -> None:
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )


@pytest.fixture
def network(clean_backends, django_user_model) -> dict:
    """sw-a 1/xg1 = sw-b 1/xg2 (10G), sw-b 1/g7 = eql eth0 (1G), sw-a 1/xg3 = sw-b 1/xg3 gone, sw-a 1/xg4 = sw-hidden
    1/xg1; the reader reads the tree "Site" (sw-a, sw-b, eql), not sw-hidden; the tree "Core" holds sw-a and sw-b.

    Samples (bit/s), 30 a minute apart: sw-a 1/xg1 sends 3e9 and 5e9 in turn (mean 4e9 = 40 %, peak 50 %) and
    receives 9.2e9 (92 %); sw-b 1/xg2 has none. sw-b 1/g7 sends 8.5e8 (85 %), receives 1e8 and 3e8 in turn (mean
    20 %, peak 30 %) and discarded 4 frames/s once; eql eth0 has none."""
    reader = django_user_model.objects.create_user("reader", password="s3cret-pass-123")
    a = Device.objects.create(name="sw-a", host="127.0.0.1", community="x")
    b = Device.objects.create(name="sw-b", host="127.0.0.1", community="x")
    eql = Device.objects.create(name="eql", host="127.0.0.1", community="x", profile="dell-equallogic")
    hidden = Device.objects.create(name="sw-hidden", host="127.0.0.1", community="x")
    site = Tree.objects.create(name="Site")
    racks = TreeNode.objects.create(tree=site, kind="header", title="Racks")
    for device in (a, b, eql):
        place_device(device, racks)
    site.read_users.add(reader)
    core = Tree.objects.create(name="Core")
    spine = TreeNode.objects.create(tree=core, kind="header", title="Spine")
    place_device(a, spine)
    place_device(b, spine)
    core.read_users.add(reader)
    secret = Tree.objects.create(name="Secret")
    place_device(hidden, TreeNode.objects.create(tree=secret, kind="header", title="Hidden"))
    for device, name, index, speed in ((a, "1/xg1", 49, TEN_G), (b, "1/xg2", 50, TEN_G), (b, "1/g7", 7, ONE_G),
                                       (eql, "eth0", 1, ONE_G)):  # fmt: skip
        Interface.objects.create(device=device, name=name, if_index=index, speed_bps=speed)
    graph = Graph.objects.create(device=a, template="traffic", instance="1/xg1", title="Traffic 1/xg1")
    now = timezone.now()
    long_ago = now - timedelta(days=3)
    common = {"first_seen": long_ago, "last_seen": now, "checked_at": now, "via_lldp": True}
    uplink = Link.objects.create(a=a, a_port="1/xg1", b=b, b_port="1/xg2", **common)
    storage = Link.objects.create(a=b, a_port="1/g7", b=eql, b_port="eth0", **common | {"via_fdb": True})
    gone = Link.objects.create(
        a=a, a_port="1/xg3", b=b, b_port="1/xg3", first_seen=long_ago, last_seen=now - timedelta(days=2),
        checked_at=now - timedelta(days=1), via_lldp=True,
    )  # fmt: skip
    Link.objects.create(a=a, a_port="1/xg4", b=hidden, b_port="1/xg1", **common)
    t = int(time.time())
    lines = []
    for k in range(1, SAMPLES + 1):
        lines.append(f"interface,device={a.pk},port=1/xg1 in_bps=9.2e9,out_bps={3e9 if k % 2 else 5e9} {t - 60 * k}")
        lines.append(
            f"interface,device={b.pk},port=1/g7 in_bps={1e8 if k % 2 else 3e8},out_bps=8.5e8,"
            f"in_discards={4.0 if k == 7 else 0.0},out_discards=0.0,in_errors=0.0,out_errors=0.0 {t - 60 * k}"
        )
    plant(lines)
    store([make(a.pk, "link_down", "1/xg1 went down", port="1/xg1"), make(a.pk, "link_up", "1/xg1 up", port="1/xg1")])
    store([make(hidden.pk, "link_down", "1/xg1 went down", port="1/xg1")])  # counted for staff only
    return {"influx_url": settings.INFLUXDB_URL, "reader": reader, "a": a, "b": b, "eql": eql, "hidden": hidden,
            "core": core, "secret": secret,
            "uplink": uplink, "storage": storage, "gone": gone, "graph": graph}  # fmt: skip


def get(user, **params):
    client = Client()
    client.force_login(user)
    return client.get("/api/map/", params)


def test_each_link_carries_both_directions_mean_and_peak_against_its_speed(network, admin_user):
    answer = get(admin_user, range="1h")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["figures_error"] == ""
    assert {n["name"]: n["kind"] for n in body["nodes"]} == {
        "eql": "array", "sw-a": "switch", "sw-b": "switch", "sw-hidden": "switch"
    }  # fmt: skip
    assert body["levels"] == {"warning_pct": 80.0, "problem_pct": 90.0}
    edges = {e["id"]: e for e in body["edges"]}
    assert len(edges) == 4
    uplink = edges[network["uplink"].pk]
    assert (uplink["source"], uplink["target"]) == (str(network["a"].pk), str(network["b"].pk))
    assert (uplink["a_port"], uplink["b_port"], uplink["speed_bps"]) == ("1/xg1", "1/xg2", TEN_G)
    assert uplink["a_to_b"] == pytest.approx({"mean_bps": 4e9, "peak_bps": 5e9, "mean_pct": 40.0, "peak_pct": 50.0})
    # sw-b 1/xg2 has no samples: what sw-b sent is what sw-a's 1/xg1 received
    assert uplink["b_to_a"] == pytest.approx({"mean_bps": 9.2e9, "peak_bps": 9.2e9, "mean_pct": 92.0, "peak_pct": 92.0})
    assert (uplink["peak_pct"], uplink["level"], uplink["gone"]) == (pytest.approx(92.0), "problem", False)
    assert (uplink["discards_per_s"], uplink["errors_per_s"]) == (None, None)  # sw-a serves neither here
    assert uplink["a_graph"] == f"/graphs/{network['graph'].pk}/" and uplink["b_graph"] is None
    assert (uplink["a_events"], uplink["b_events"]) == (2, 0)  # the two events on sw-a's 1/xg1 in the range
    assert uplink["a_events_url"] == f"/devices/{network['a'].pk}/events/?port=1%2Fxg1"

    storage = edges[network["storage"].pk]
    assert storage["a_to_b"] == pytest.approx(
        {"mean_bps": 8.5e8, "peak_bps": 8.5e8, "mean_pct": 85.0, "peak_pct": 85.0}
    )
    assert storage["b_to_a"] == pytest.approx({"mean_bps": 2e8, "peak_bps": 3e8, "mean_pct": 20.0, "peak_pct": 30.0})
    assert (storage["level"], storage["discards_per_s"], storage["errors_per_s"]) == ("warning", 4.0, 0.0)
    assert storage["via"] == ["lldp", "fdb"]

    gone = edges[network["gone"].pk]
    assert (gone["gone"], gone["level"], gone["speed_bps"], gone["a_to_b"]["mean_bps"]) == (True, "unknown", None, None)
    assert gone["last_seen"] == network["gone"].last_seen.isoformat()
    # the map at a past moment draws the cables of that moment: before the read that found it missing, it was there
    then = network["gone"].last_seen + timedelta(hours=1)
    past = get(admin_user, start=int((then - timedelta(hours=6)).timestamp()), end=int(then.timestamp())).json()
    edge = {e["id"]: e for e in past["edges"]}[network["gone"].pk]
    assert (edge["gone"], edge["seen_after_range"]) == (False, False)
    long_before = network["gone"].first_seen - timedelta(hours=1)
    early = get(admin_user, start=int((long_before - timedelta(hours=6)).timestamp()), end=int(long_before.timestamp()))
    assert all(e["seen_after_range"] for e in early.json()["edges"])


def test_a_reader_sees_only_granted_devices_and_no_link_to_a_hidden_one(network):
    body = get(network["reader"], range="1h").json()
    assert sorted(n["name"] for n in body["nodes"]) == ["eql", "sw-a", "sw-b"]
    assert {e["id"] for e in body["edges"]} == {network[k].pk for k in ("uplink", "storage", "gone")}
    assert "sw-hidden" not in str(body) and str(network["hidden"].pk) not in {e["target"] for e in body["edges"]}
    core = get(network["reader"], range="1h", tree=network["core"].pk).json()  # one tree's map
    assert sorted(n["name"] for n in core["nodes"]) == ["sw-a", "sw-b"]
    assert {e["id"] for e in core["edges"]} == {network["uplink"].pk, network["gone"].pk}
    assert get(network["reader"], tree=network["secret"].pk).status_code == 404  # a tree not granted


def test_without_influxdb_the_links_are_still_drawn_and_the_answer_says_why(network, admin_user, settings):
    from monitor.core import services
    from monitor.devstack.processes import free_port

    settings.INFLUXDB_URL = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    services.reset_clients()
    try:
        answer = get(admin_user, range="1h")
    finally:
        settings.INFLUXDB_URL = network["influx_url"]
        services.reset_clients()
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert "not answering" in body["figures_error"] and len(body["edges"]) == 4
    assert {e["level"] for e in body["edges"]} == {"unknown"} and body["edges"][0]["a_to_b"]["mean_bps"] is None


@pytest.mark.parametrize(
    ("params", "field", "said"),
    [
        ({"range": "2d"}, "range", "is not one of"),
        ({"start": "yesterday"}, "range", "is not a date"),
        ({"start": "now-1h", "end": "now-2h"}, "range", "start must be before end"),
        ({"tree": "core"}, "tree", "a graph tree's id"),
    ],
)
def test_bad_parameters_are_refused_with_what_is_wrong(admin_user, params, field, said):
    answer = get(admin_user, **params)
    assert answer.status_code == 400
    assert said in str(answer.json()[field])


@pytest.mark.parametrize("tree", ["core", "\u00b2", "\uff11", " 1", "9" * 30])
def test_the_map_page_refuses_a_tree_that_is_no_id_with_a_400(admin_user, tree):
    """'²' passes str.isdigit() and int() raises on it: the page answered 500 (now parse_id, as every view)."""
    client = Client()
    client.force_login(admin_user)
    answer = client.get("/map/", {"tree": tree})
    assert answer.status_code == 400 and b"a graph tree's id" in answer.content


def test_the_map_needs_a_signed_in_user():
    assert Client().get("/api/map/").status_code in (401, 403)
    assert Client().get("/map/").status_code == 302


def csrf_client(user) -> tuple[Client, str]:
    """A signed-in browser as Django sees one: CSRF checked, its token from the map page's cookie."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/map/").status_code == 200
    return client, client.cookies["csrftoken"].value


def test_places_are_kept_per_user_and_map_with_the_csrf_token_and_only_for_devices_of_that_map(network, admin_user):
    reader, a, eql, hidden = network["reader"], network["a"], network["eql"], network["hidden"]
    client, token = csrf_client(reader)
    body = {"places": [{"device": a.pk, "x": 120.5, "y": -40}]}
    assert client.post("/api/map/places/", body, content_type="application/json").status_code == 403  # no token
    sent = client.post("/api/map/places/", body, content_type="application/json", headers={"X-CSRFToken": token})
    assert sent.status_code == 204, sent.content
    core = {"tree": network["core"].pk, "places": [{"device": a.pk, "x": 7, "y": 8}]}
    assert client.post("/api/map/places/", core, content_type="application/json",
                       headers={"X-CSRFToken": token}).status_code == 204  # fmt: skip
    assert get(reader, range="1h").json()["places"] == {str(a.pk): {"x": 120.5, "y": -40.0}}
    assert get(reader, range="1h", tree=network["core"].pk).json()["places"] == {str(a.pk): {"x": 7.0, "y": 8.0}}
    assert get(admin_user, range="1h").json()["places"] == {}  # nobody else's

    for refused in (
        {"places": [{"device": hidden.pk, "x": 1, "y": 1}]},  # a device the reader may not read
        {"places": [{"device": 10**9, "x": 1, "y": 1}]},  # no such device: the same answer
        {"tree": network["core"].pk, "places": [{"device": eql.pk, "x": 1, "y": 1}]},  # not on that tree's map
        {"places": [{"device": a.pk, "x": 1e9, "y": 1}]},
        {"places": [{"device": a.pk, "x": 1, "y": 1}] * 101},
        {"places": []},
    ):
        answer = client.post(
            "/api/map/places/", refused, content_type="application/json", headers={"X-CSRFToken": token}
        )
        assert answer.status_code == 400, (refused, answer.content)
    assert "not devices of this map" in str(client.post(
        "/api/map/places/", {"places": [{"device": hidden.pk, "x": 1, "y": 1}]}, content_type="application/json",
        headers={"X-CSRFToken": token}).json())  # fmt: skip
    secret = {"tree": network["secret"].pk, "places": [{"device": a.pk, "x": 1, "y": 1}]}
    assert client.post("/api/map/places/", secret, content_type="application/json",
                       headers={"X-CSRFToken": token}).status_code == 404  # fmt: skip
    assert get(reader, range="1h").json()["places"] == {str(a.pk): {"x": 120.5, "y": -40.0}}  # nothing refused kept

    assert client.delete("/api/map/places/", headers={"X-CSRFToken": token}).status_code == 204  # laid out again
    assert get(reader, range="1h").json()["places"] == {}
    assert get(reader, range="1h", tree=network["core"].pk).json()["places"] == {str(a.pk): {"x": 7.0, "y": 8.0}}


def test_a_device_the_reader_lost_keeps_no_place_on_their_map(network):
    reader, a, b = network["reader"], network["a"], network["b"]
    from monitor.topology import places

    places.keep(reader, None, {a.pk: (1.0, 2.0), b.pk: (3.0, 4.0)})
    network["core"].read_users.remove(reader)
    TreeNode.objects.filter(device=b).exclude(tree=network["core"]).delete()  # sw-b now only in a tree not granted
    assert get(reader, range="1h").json()["places"] == {str(a.pk): {"x": 1.0, "y": 2.0}}
