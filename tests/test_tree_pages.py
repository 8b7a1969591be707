"""Trees, device, graph, search, home and dashboard pages on real data; device strings stay text."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.graphs.trees.models import DashboardItem, Tree, TreeNode, place_device
from monitor.graphs.views import alerts_panel
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db
EVIL = "<b>port 3</b>"


@pytest.fixture
def fleet(clean_backends):
    switch = Device.objects.create(name="sw<i>1</i>", host="127.0.0.1", community="x", poll_interval_s=60)
    array = Device.objects.create(name="array-1", host="127.0.0.2", community="x", poll_interval_s=60)
    for i in range(1, 15):
        Interface.objects.create(
            device=switch, name=f"1/g{i}", if_index=i, alias=EVIL if i == 3 else "", speed_bps=10**9
        )
        Graph.objects.create(device=switch, template="traffic", instance=f"1/g{i}", title=f"Traffic 1/g{i}", position=i)
    Graph.objects.create(device=array, template="volume_latency", instance="vol<script>", title="Latency vol")
    now = int(time.time())
    lines = [f"interface,device={switch.pk},port=1/g3 in_bps=800e6,out_bps=1e6 {now - 60 * k}" for k in range(10)]
    lines += [f"interface,device={switch.pk},port=1/g5 in_bps=100e6,out_bps=1e6 {now - 60 * k}" for k in range(10)]
    lines += [f"sensor,device={switch.pk},kind=temperature,name=CPU\\ temp value=71.5 {now - 60 * k}" for k in range(3)]
    lines += [
        f"volume,device={array.pk},volume=vol<script> read_latency_ms={2 + k},write_latency_ms=9 {now - 60 * k}"
        for k in range(10)
    ]
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")
    tree = Tree.objects.create(name="Network")
    core = TreeNode.objects.create(tree=tree, kind="header", title="Core", position=1)
    racks = TreeNode.objects.create(tree=tree, parent=core, kind="header", title="Rack <A>", position=1)
    storage = TreeNode.objects.create(tree=tree, kind="header", title="Storage", position=2)
    place_device(switch, racks)
    place_device(array, storage)
    one = Graph.objects.get(device=switch, instance="1/g1")
    TreeNode.objects.create(tree=tree, parent=storage, kind="graph", graph=one, position=5)
    return {"switch": switch, "array": array, "tree": tree, "core": core, "racks": racks, "storage": storage}


@pytest.fixture
def viewer(client, django_user_model, fleet):
    """A non-staff user granted read on the fleet's tree (tests/test_tree_permissions.py covers the rest)."""
    user = django_user_model.objects.create_user("viewer", password="s3cret-pass-123")
    fleet["tree"].read_users.add(user)
    client.force_login(user)
    return user


def test_pages_need_a_login_but_healthz_and_login_do_not(client, fleet):
    for path in (
        "/",
        "/trees/",
        f"/trees/{fleet['tree'].pk}/",
        f"/devices/{fleet['switch'].pk}/",
        "/search/?q=a",
        "/dashboard/",
        f"/graphs/{Graph.objects.first().pk}/",
    ):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), path
    assert client.get("/healthz").status_code == 200
    assert client.get("/login/").status_code == 200


def test_tree_page_nests_branches_and_shows_the_branch_graphs(client, viewer, fleet):
    page = client.get(f"/trees/{fleet['tree'].pk}/nodes/{fleet['core'].pk}/?range=1w").content.decode()
    assert "Rack &lt;A&gt;" in page and "<A>" not in page
    assert page.index("Core") < page.index("Rack &lt;A&gt;") < page.index("Storage")
    assert page.count('class="graph thumb"') == 14  # 14 graphs under Core, via the device under Rack: thumbnails
    storage = client.get(f"/trees/{fleet['tree'].pk}/nodes/{fleet['storage'].pk}/").content.decode()
    assert storage.count('<figure class="graph"') == 2  # the array's graph and the single graph placed here
    assert 'class="graph thumb"' not in storage
    assert client.get(f"/trees/{fleet['tree'].pk}/nodes/999999/").status_code == 404
    assert client.get("/trees/?range=6h")["Location"] == f"/trees/{fleet['tree'].pk}/?range=6h"


def test_place_device_is_idempotent_and_a_device_can_be_in_several_places(fleet):
    first = place_device(fleet["switch"], fleet["racks"])
    assert place_device(fleet["switch"], fleet["racks"]) == first
    other = place_device(fleet["switch"], fleet["storage"])
    assert other != first and fleet["switch"].tree_nodes.count() == 2
    assert place_device(fleet["switch"], None) is None


def test_tree_nodes_refuse_cycles_and_children_of_leaves(fleet):
    core, racks = fleet["core"], fleet["racks"]
    core.parent = racks
    with pytest.raises(ValidationError, match="inside itself"):
        core.full_clean()
    device_node = TreeNode.objects.get(device=fleet["switch"])
    child = TreeNode(tree=fleet["tree"], parent=device_node, kind="header", title="x")
    with pytest.raises(ValidationError, match="only a header"):
        child.full_clean()
    with pytest.raises(ValidationError, match="needs a device"):
        TreeNode(tree=fleet["tree"], kind="device").full_clean()


def test_device_page_groups_graphs_and_escapes_device_strings(client, viewer, fleet):
    page = client.get(f"/devices/{fleet['switch'].pk}/").content.decode()
    assert 'id="group-ports"' in page and page.count('<figure class="graph"') == 14
    assert "sw&lt;i&gt;1&lt;/i&gt;" in page and "<i>1</i>" not in page
    assert "&lt;b&gt;port 3&lt;/b&gt;" in page and EVIL not in page
    assert "Rack &lt;A&gt;" in page  # where the device sits in the trees
    array = client.get(f"/devices/{fleet['array'].pk}/").content.decode()
    assert 'id="group-storage"' in array and "data-heatmap-url" in array


def test_search_finds_devices_ports_by_alias_and_volumes(client, viewer, fleet):
    page = client.get("/search/?q=port 3").content.decode()
    assert "1/g3" in page and "&lt;b&gt;port 3&lt;/b&gt;" in page and EVIL not in page
    volumes = client.get("/search/?q=script").content.decode()
    assert "vol&lt;script&gt;" in volumes and "<script>" not in volumes.split("<main>")[1].split("</main>")[0]
    assert "array-1" in client.get("/search/?q=ARRAY").content.decode()


def test_home_ranks_busiest_ports_hottest_sensors_and_slowest_volumes(client, viewer, fleet):
    page = client.get("/?range=1h").content.decode()
    busiest = page.split('id="busiest-ports"')[1].split("</section>")[0]
    assert busiest.index("1/g3") < busiest.index("1/g5")
    assert "80.0 %" in busiest and "&lt;b&gt;port 3&lt;/b&gt;" in busiest
    assert ">800 Mbit/s</td>" in busiest and ">100 Mbit/s</td>" in busiest and "800000000 bit/s" not in busiest
    assert "CPU temp" in page.split('id="hottest-sensors"')[1] and "71.5" in page
    assert "vol&lt;script&gt;" in page.split('id="slowest-volumes"')[1]
    assert ('id="current-alerts"' in page) == alerts_panel()  # shown only when the alerts app offers it
    assert client.get("/?start=now&end=now-1h").status_code == 400


def test_home_ranks_two_controllers_sensors_of_one_name_by_the_hotter(client, viewer, fleet):
    """A Dell SC names a sensor "CPU One" on each controller (tags controller=...): the ranking's one line for the
    name shows the hotter, whichever controller InfluxDB lists first (A sorts before B)."""
    now, switch = int(time.time()), fleet["switch"].pk
    lines = [
        f"sensor,device={switch},kind=temperature,controller={ctlr},name=CPU\\ One value={value} {now - 60 * k}"
        for ctlr, value in (("A", 61.0), ("B", 74.5))
        for k in range(3)
    ]
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")
    hottest = client.get("/?range=1h").content.decode().split('id="hottest-sensors"')[1].split("</section>")[0]
    row = hottest.split("CPU One")[1].split("</tr>")[0]
    assert "74.5" in row and "61" not in row


def test_home_rankings_are_read_once_per_window_for_every_viewer(client, viewer, fleet, influx):
    from tests.influxq import influx_queries

    first = client.get("/?range=1d").content.decode()
    before = influx_queries(influx)
    again = client.get("/?range=1d").content.decode()
    assert influx_queries(influx) == before  # every port of every device is read once a window, not per view
    section = 'id="busiest-ports"'
    assert again.split(section)[1].split("</section>")[0] == first.split(section)[1].split("</section>")[0]
    client.get("/?range=6h")
    assert influx_queries(influx) > before  # another range is another ranking


def test_heatmap_has_a_row_per_volume(client, viewer, fleet):
    data = client.get(f"/api/devices/{fleet['array'].pk}/heatmap?start=now-15m&end=now&points=20").json()
    assert data["volumes"] == ["vol<script>"]
    assert len(data["times"]) <= 20 and max(v for v in data["values"][0] if v is not None) == pytest.approx(11)


def test_dashboard_pins_orders_and_removes_graphs(client, viewer, fleet, django_user_model):
    graphs = list(Graph.objects.filter(device=fleet["switch"])[:3])
    for graph in graphs:
        assert client.post("/dashboard/pin", {"graph": graph.pk, "next": "/dashboard/"}).status_code == 302
    client.post("/dashboard/pin", {"graph": graphs[0].pk})  # pinning twice keeps one
    items = list(DashboardItem.objects.filter(user=viewer))
    assert [i.graph_id for i in items] == [g.pk for g in graphs]
    client.post(f"/dashboard/items/{items[2].pk}/up")
    assert [i.graph_id for i in DashboardItem.objects.filter(user=viewer)] == [graphs[0].pk, graphs[2].pk, graphs[1].pk]
    page = client.get("/dashboard/?range=1w").content.decode()
    assert page.index(f"Traffic {graphs[2].instance}") < page.index(f"Traffic {graphs[1].instance}")
    client.post(f"/dashboard/items/{items[0].pk}/remove")
    assert DashboardItem.objects.filter(user=viewer).count() == 2
    other = django_user_model.objects.create_user("other", password="s3cret-pass-123")
    foreign = DashboardItem.objects.create(user=other, graph=graphs[0])
    assert client.post(f"/dashboard/items/{foreign.pk}/remove").status_code == 404
    assert client.post("/dashboard/pin", {"graph": "999999"}).status_code == 400
    assert client.post(f"/dashboard/items/{items[1].pk}/sideways").status_code == 400
    assert (
        client.post("/dashboard/pin", {"graph": graphs[0].pk, "next": "//evil.example/"})["Location"] == "/dashboard/"
    )
