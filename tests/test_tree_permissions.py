"""Read permissions per graph tree on real data: every page, the JSON/CSV API, tokens, alerts and the admin."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth.models import Group, Permission
from django.utils import timezone
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.alerts.models import AlertState, Event, Maintenance, Rule
from monitor.graphs.access import Access
from monitor.graphs.trees.models import AggregateGraph, ApiToken, DashboardItem, Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db
NAMES = ("net-switch", "store-array", "hidden-box", "secret-box")


@pytest.fixture
def world(clean_backends, django_user_model):
    """Three trees: Tree-Net (granted to alice), Tree-Store (to a group bob is in), Tree-Secret (no grants)."""
    net = Device.objects.create(name="net-switch", host="10.0.0.1", community="x", poll_interval_s=60)
    store = Device.objects.create(name="store-array", host="10.0.0.2", community="x", poll_interval_s=60)
    hidden = Device.objects.create(name="hidden-box", host="10.0.0.3", community="x", poll_interval_s=60)
    secret = Device.objects.create(name="secret-box", host="10.0.0.4", community="x", poll_interval_s=60)
    graphs = {}
    for device, port, alias in (
        (net, "1/g1", "uplink-A"),
        (net, "1/g2", ""),
        (store, "2/1", "uplink-B"),
        (hidden, "9/9", "uplink-H"),
        (hidden, "9/8", "uplink-X"),
        (secret, "7/1", "uplink-S"),
    ):
        Interface.objects.create(device=device, name=port, if_index=len(graphs) + 1, alias=alias, speed_bps=10**9)
        graphs[port] = Graph.objects.create(device=device, template="traffic", instance=port, title=f"Traffic {port}")
    graphs["vol-a"] = Graph.objects.create(
        device=store, template="volume_latency", instance="vol-a", title="Latency vol-a"
    )
    now = int(time.time())
    rates = {(net, "1/g1"): 800e6, (net, "1/g2"): 100e6, (store, "2/1"): 300e6, (hidden, "9/9"): 900e6}
    rates[(secret, "7/1")] = 950e6
    lines = [
        f"interface,device={d.pk},port={p} in_bps={bps},out_bps=1e6 {now - 60 * k}"
        for (d, p), bps in rates.items()
        for k in range(10)
    ]
    lines += [f"sensor,device={net.pk},kind=temperature,name=net\\ temp value=55 {now - 60 * k}" for k in range(3)]
    lines += [
        f"sensor,device={secret.pk},kind=temperature,name=secret\\ temp value=88 {now - 60 * k}" for k in range(3)
    ]
    lines += [
        f"volume,device={store.pk},volume=vol-a read_latency_ms=7,write_latency_ms=3 {now - 60 * k}" for k in range(10)
    ]
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")

    tnet = Tree.objects.create(name="Tree-Net", position=1)
    core = TreeNode.objects.create(tree=tnet, kind="header", title="Core", position=1)
    place_device(net, core)
    TreeNode.objects.create(tree=tnet, parent=core, kind="graph", graph=graphs["9/9"], position=9)
    tstore = Tree.objects.create(name="Tree-Store", position=2)
    arrays = TreeNode.objects.create(tree=tstore, kind="header", title="Arrays", position=1)
    place_device(store, arrays)
    lag = AggregateGraph.objects.create(title="Array LAG", template="traffic")
    lag.members.set([graphs["1/g1"], graphs["1/g2"]])  # net-switch's ports: bob reads the sum, not the members
    TreeNode.objects.create(tree=tstore, parent=arrays, kind="aggregate", aggregate=lag, position=5)
    tsecret = Tree.objects.create(name="Tree-Secret", position=3)
    vault = TreeNode.objects.create(tree=tsecret, kind="header", title="Vault", position=1)
    place_device(secret, vault)
    place_device(store, vault)  # a second place, in a tree bob may not read

    alice = django_user_model.objects.create_user("alice", "alice@example.com", "s3cret-pass-123")
    bob = django_user_model.objects.create_user("bob", "bob@example.com", "s3cret-pass-123")
    carol = django_user_model.objects.create_user("carol", "carol@example.com", "s3cret-pass-123")
    sam = django_user_model.objects.create_user("sam", "sam@example.com", "s3cret-pass-123", is_staff=True)
    team = Group.objects.create(name="storage-team")
    bob.groups.add(team)
    tnet.read_users.add(alice)
    tstore.read_groups.add(team)
    return {
        **{"net": net, "store": store, "hidden": hidden, "secret": secret, "graphs": graphs, "lag": lag},
        **{"tnet": tnet, "tstore": tstore, "tsecret": tsecret, "core": core, "arrays": arrays, "vault": vault},
        **{"alice": alice, "bob": bob, "carol": carol, "sam": sam, "team": team},
    }


def as_user(client, user):
    client.logout()
    client.force_login(user)
    return client


def page(client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return response.content.decode()


def names_in(text: str) -> set[str]:
    return {name for name in NAMES if name in text}


def section(html: str, marker: str) -> str:
    return html.split(marker)[1].split("</section>")[0]


def test_the_policy_answers_with_querysets_one_query_each(world, django_assert_num_queries):
    alice, bob, carol, sam = (world[k] for k in ("alice", "bob", "carol", "sam"))
    graphs = world["graphs"]
    expected = {
        alice: ({"Tree-Net"}, {"net-switch"}, {graphs["1/g1"], graphs["1/g2"], graphs["9/9"]}, set()),
        bob: ({"Tree-Store"}, {"store-array"}, {graphs["2/1"], graphs["vol-a"]}, {world["lag"]}),
        carol: (set(), set(), set(), set()),
        sam: ({"Tree-Net", "Tree-Store", "Tree-Secret"}, set(NAMES), set(Graph.objects.all()), {world["lag"]}),
    }
    for user, (trees, devices, visible_graphs, aggregates) in expected.items():
        access = Access(user)
        assert {t.name for t in access.trees()} == trees, user
        assert {d.name for d in access.devices()} == devices, user
        assert set(access.graphs()) == visible_graphs, user
        assert set(access.aggregates()) == aggregates, user
    access = Access(alice)
    with django_assert_num_queries(1):
        assert len(list(access.graphs())) == 3  # one query with subqueries, however many trees and nodes
    with django_assert_num_queries(1):
        assert access.can_read_device(world["net"].pk)
    bob.groups.remove(world["team"])  # leaving the group takes the grant away
    assert not Access(bob).devices().exists() and not Access(bob).aggregates().exists()
    world["tsecret"].read_users.add(carol)  # a grant on the tree with no grants opens it to carol only
    assert {d.name for d in Access(carol).devices()} == {"secret-box", "store-array"}
    sam.is_active = False
    assert not Access(sam).trees().exists()  # an inactive staff user reads nothing


def test_home_lists_and_ranks_only_visible_devices(client, world):
    alice = page(as_user(client, world["alice"]), "/?range=1h")
    assert names_in(section(alice, 'id="devices"')) == {"net-switch"}
    busiest = section(alice, 'id="busiest-ports"')
    assert "net-switch 1/g1" in busiest and "uplink-A" in busiest and "80.0 %" in busiest
    assert "net temp" in section(alice, 'id="hottest-sensors"')
    assert "vol-a" not in alice and "secret temp" not in alice and names_in(alice) == {"net-switch"}

    bob = page(as_user(client, world["bob"]), "/?range=1h")
    assert names_in(bob) == {"store-array"}
    assert "store-array 2/1" in section(bob, 'id="busiest-ports"') and "vol-a" in section(bob, 'id="slowest-volumes"')

    carol = page(as_user(client, world["carol"]), "/?range=1h")
    assert names_in(carol) == set() and 'id="no-visible-devices"' in carol and "Add a device" not in carol

    sam = page(as_user(client, world["sam"]), "/?range=1h")
    assert names_in(section(sam, 'id="devices"')) == set(NAMES)
    busiest = section(sam, 'id="busiest-ports"')
    assert busiest.index("secret-box 7/1") < busiest.index("hidden-box 9/9") < busiest.index("net-switch 1/g1")
    assert "secret temp" in section(sam, 'id="hottest-sensors"')


def test_device_and_graph_pages_are_404_for_what_a_user_may_not_see(client, world):
    g = world["graphs"]
    readable = {
        "alice": ({"net"}, {"1/g1", "1/g2", "9/9"}),
        "bob": ({"store"}, {"2/1", "vol-a"}),
        "carol": (set(), set()),
        "sam": ({"net", "store", "hidden", "secret"}, set(g)),
    }
    for who, (devices, graphs) in readable.items():
        as_user(client, world[who])
        for key in ("net", "store", "hidden", "secret"):
            status = client.get(f"/devices/{world[key].pk}/").status_code
            assert status == (200 if key in devices else 404), (who, key)
        for key, graph in g.items():
            assert client.get(f"/graphs/{graph.pk}/").status_code == (200 if key in graphs else 404), (who, key)
        assert client.get("/devices/999999/").status_code == 404 and client.get("/graphs/999999/").status_code == 404
    store = world["store"]
    bob = page(as_user(client, world["bob"]), f"/devices/{store.pk}/")
    assert "Tree-Store" in bob and "Tree-Secret" not in bob  # where it sits, in the trees bob reads only
    sam = page(as_user(client, world["sam"]), f"/devices/{store.pk}/")
    assert "Tree-Store" in sam and "Tree-Secret" in sam
    placed = page(as_user(client, world["alice"]), f"/graphs/{g['9/9'].pk}/")
    assert "hidden-box" in placed and f'href="/devices/{world["hidden"].pk}/"' not in placed  # no link to a 404
    assert f'href="/devices/{world["hidden"].pk}/"' in page(as_user(client, world["sam"]), f"/graphs/{g['9/9'].pk}/")


def test_search_finds_only_visible_devices_ports_and_volumes(client, world):
    as_user(client, world["alice"])
    assert names_in(page(client, "/search/?q=box")) == set()
    ports = section(page(client, "/search/?q=uplink"), 'id="found-ports"')
    assert "uplink-A" in ports and "uplink-H" in ports  # its own port, and a port whose graph is placed in its tree
    assert f'href="/graphs/{world["graphs"]["9/9"].pk}/"' in ports
    assert not any(alias in ports for alias in ("uplink-B", "uplink-X", "uplink-S"))
    assert "vol-a" not in page(client, "/search/?q=vol")
    as_user(client, world["bob"])
    assert "vol-a" in section(page(client, "/search/?q=vol"), 'id="found-volumes"')
    assert names_in(page(client, "/search/?q=-")) == {"store-array"}
    as_user(client, world["carol"])
    found = page(client, "/search/?q=uplink")
    assert "uplink-" not in found.split("<main>")[1] and found.count('<p class="muted">none</p>') == 3
    as_user(client, world["sam"])
    assert names_in(section(page(client, "/search/?q=box"), 'id="found-devices"')) == {"hidden-box", "secret-box"}
    assert all(a in page(client, "/search/?q=uplink") for a in ("uplink-A", "uplink-B", "uplink-X", "uplink-S"))


def test_tree_index_and_pages_show_only_readable_trees(client, world):
    tnet, tstore, tsecret = world["tnet"], world["tstore"], world["tsecret"]
    for who, first in (("alice", tnet), ("bob", tstore), ("sam", tnet)):
        response = as_user(client, world[who]).get("/trees/?range=6h")
        assert response.status_code == 302 and response["Location"] == f"/trees/{first.pk}/?range=6h", who
    carol = page(as_user(client, world["carol"]), "/trees/")
    assert 'id="no-readable-trees"' in carol and "Tree-" not in carol
    assert client.get(f"/trees/{tnet.pk}/").status_code == 404

    as_user(client, world["alice"])
    net = page(client, f"/trees/{tnet.pk}/")
    assert "Tree-Net" in net and "Tree-Store" not in net and "Tree-Secret" not in net
    core = page(client, f"/trees/{tnet.pk}/nodes/{world['core'].pk}/")
    assert core.count('<figure class="graph"') == 3 and f'data-graph-id="{world["graphs"]["9/9"].pk}"' in core
    assert client.get(f"/trees/{tstore.pk}/").status_code == 404
    assert client.get(f"/trees/{tstore.pk}/nodes/{world['arrays'].pk}/").status_code == 404
    assert client.get(f"/trees/{tsecret.pk}/").status_code == 404

    arrays = page(as_user(client, world["bob"]), f"/trees/{tstore.pk}/nodes/{world['arrays'].pk}/")
    assert f'data-aggregate-id="{world["lag"].pk}"' in arrays and "Array LAG" in arrays
    assert "Tree-Net" not in arrays and "Tree-Secret" not in arrays

    sam = page(as_user(client, world["sam"]), f"/trees/{tsecret.pk}/nodes/{world['vault'].pk}/")
    assert all(name in sam for name in ("Tree-Net", "Tree-Store", "Tree-Secret"))
    assert f'data-graph-id="{world["graphs"]["7/1"].pk}"' in sam


def test_dashboard_pins_only_visible_graphs_and_hides_pins_that_lost_their_grant(client, world):
    g, alice = world["graphs"], world["alice"]
    as_user(client, alice)
    assert client.post("/dashboard/pin", {"graph": g["1/g1"].pk}).status_code == 302
    refused = client.post("/dashboard/pin", {"graph": g["2/1"].pk})
    unknown = client.post("/dashboard/pin", {"graph": "999999"})
    assert refused.status_code == unknown.status_code == 400 and refused.content == unknown.content == b"no such graph"
    assert client.post("/dashboard/pin", {"aggregate": world["lag"].pk}).status_code == 400
    DashboardItem.objects.create(user=alice, graph=g["2/1"], position=2)  # pinned while alice could still see it
    assert client.post("/dashboard/pin", {"graph": g["9/9"].pk}).status_code == 302
    board = page(client, "/dashboard/")
    assert f'data-graph-id="{g["1/g1"].pk}"' in board and f'data-graph-id="{g["9/9"].pk}"' in board
    assert f'data-graph-id="{g["2/1"].pk}"' not in board and "store-array" not in board
    placed = DashboardItem.objects.get(user=alice, graph=g["9/9"])
    assert client.post(f"/dashboard/items/{placed.pk}/up").status_code == 302  # swaps with the visible neighbour
    order = list(DashboardItem.objects.filter(user=alice).values_list("graph_id", flat=True))
    assert order == [g["9/9"].pk, g["2/1"].pk, g["1/g1"].pk]  # the hidden pin kept its slot
    board = page(client, "/dashboard/")
    assert board.index(f'data-graph-id="{g["9/9"].pk}"') < board.index(f'data-graph-id="{g["1/g1"].pk}"')
    world["tnet"].read_users.remove(alice)
    assert "data-graph-id" not in page(client, "/dashboard/")
    assert DashboardItem.objects.filter(user=alice).count() == 3  # hidden, not deleted: a new grant brings them back
    as_user(client, world["bob"])
    assert client.post("/dashboard/pin", {"aggregate": world["lag"].pk}).status_code == 302
    assert f'data-aggregate-id="{world["lag"].pk}"' in page(client, "/dashboard/")


def series(client, path: str, **headers):
    return client.get(f"{path}?start=now-15m&end=now", **headers)


def test_api_serves_sessions_and_tokens_only_what_their_user_may_read(client, world):
    g, lag = world["graphs"], world["lag"]
    net, store = f"/api/graphs/{g['1/g1'].pk}/series", f"/api/graphs/{g['2/1'].pk}/series"
    aggregate, heat = f"/api/aggregates/{lag.pk}/series", f"/api/devices/{world['store'].pk}/heatmap"

    def check_alice(**headers):
        ok = series(client, net, **headers)
        assert ok.status_code == 200 and ok.json()["series"][0]["stats"]["maximum"] == pytest.approx(800e6)
        assert series(client, f"{net}.csv", **headers)["Content-Type"].startswith("text/csv")
        hidden, missing = series(client, store, **headers), series(client, "/api/graphs/999999/series", **headers)
        assert hidden.status_code == missing.status_code == 404 and hidden.json() == missing.json()
        assert series(client, f"{store}.csv", **headers).json() == {"error": "no such graph"}
        assert series(client, aggregate, **headers).json() == {"error": "no such aggregate graph"}
        assert series(client, f"{aggregate}.csv", **headers).status_code == 404
        assert series(client, heat, **headers).json() == {"error": "no such device"}
        assert series(client, f"/api/graphs/{g['9/9'].pk}/series", **headers).status_code == 200

    as_user(client, world["alice"])
    check_alice()
    as_user(client, world["bob"])
    summed = series(client, aggregate)
    assert summed.status_code == 200 and summed.json()["series"][0]["stats"]["maximum"] == pytest.approx(900e6)
    assert series(client, net).status_code == 404  # the members stay hidden; only their sum is readable
    assert series(client, heat).json()["volumes"] == ["vol-a"]

    client.logout()
    token, raw = ApiToken.issue(world["alice"], "grafana")
    check_alice(HTTP_AUTHORIZATION=f"Bearer {raw}")
    _, carol = ApiToken.issue(world["carol"], "carol")
    assert series(client, net, HTTP_AUTHORIZATION=f"Bearer {carol}").status_code == 404
    _, sam = ApiToken.issue(world["sam"], "sam")
    assert series(client, f"/api/graphs/{g['7/1'].pk}/series", HTTP_AUTHORIZATION=f"Bearer {sam}").status_code == 200
    assert series(client, aggregate, HTTP_AUTHORIZATION=f"Bearer {sam}").status_code == 200
    token.delete()  # revoked
    gone = series(client, net, HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert gone.status_code == 401 and "API token" in gone.json()["error"]


def firing(device: Device, name: str) -> AlertState:
    rule = Rule.objects.create(name=name, metric="cpu", scope="device", device=device, fire_level=90, clear_level=80)
    state = AlertState.objects.create(rule=rule, device=device, state="firing", value=97.5, since=timezone.now())
    Event.objects.create(state=state, rule=rule, device=device, kind="fire", to_state="firing", value=97.5, mail="sent")
    return state


def test_alert_pages_show_and_act_only_on_visible_devices(client, world):
    states = {key: firing(world[key], f"{key}-rule") for key in ("net", "store", "secret")}
    later = timezone.now() + timedelta(hours=2)
    Maintenance.objects.create(device=world["secret"], starts_at=timezone.now(), ends_at=later, reason="vault work")
    Maintenance.objects.create(
        branch=str(world["core"].pk), starts_at=timezone.now(), ends_at=later, reason="core work"
    )
    Maintenance.objects.create(
        branch=str(world["vault"].pk), starts_at=timezone.now(), ends_at=later, reason="safe work"
    )
    as_user(client, world["alice"])
    current = page(client, "/alerts/")
    assert "net-rule" in current and "store-rule" not in current and "secret-rule" not in current
    assert "core work" in current and "vault work" not in current and "safe work" not in current
    assert names_in(current) == {"net-switch"}
    history = page(client, "/alerts/history/")
    assert "net-rule" in history and names_in(history) == {"net-switch"} and history.count("<td>firing</td>") == 1
    narrowed = page(client, f"/alerts/history/?device={world['store'].pk}")
    assert "No alert changes recorded." in narrowed and names_in(narrowed) == {"net-switch"}  # only in the chooser
    assert client.post(f"/alerts/{states['store'].pk}/acknowledge").status_code == 404
    assert client.post(f"/alerts/{states['net'].pk}/acknowledge").status_code == 302
    acknowledged = dict(AlertState.objects.values_list("device__name", "acknowledged_by"))
    assert acknowledged == {"net-switch": "alice", "store-array": "", "secret-box": ""}
    assert client.post(f"/alerts/devices/{world['store'].pk}/defaults", {"default": ["cpu"]}).status_code == 404
    assert client.post(f"/alerts/devices/{world['net'].pk}/defaults", {"default": ["cpu"]}).status_code == 302
    assert list(Rule.objects.exclude(builtin="").values_list("device__name", flat=True)) == ["net-switch"]
    sam = page(as_user(client, world["sam"]), "/alerts/")
    assert all(f"{key}-rule" in sam for key in states) and "vault work" in sam and "safe work" in sam


GOOD = {
    "name": "new rule",
    "enabled": "on",
    "metric": "cpu",
    "scope": "device",
    "direction": "above",
    "unit": "absolute",
    "fire_level": "90",
    "clear_level": "80",
    "for_polls": "3",
    "repeat_minutes": "0",
    "recipient_emails": "ops@example.com",
}


def grant(user, *codenames: str) -> None:
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))


def test_rule_and_maintenance_forms_need_perms_and_offer_only_visible_devices(client, world):
    store_rule, net_rule = firing(world["store"], "store-rule").rule, firing(world["net"], "net-rule").rule
    as_user(client, world["carol"])
    for path in ("/alerts/rules/new/", f"/alerts/rules/{store_rule.pk}/", "/alerts/rules/999999/"):
        assert client.get(path).status_code == 403, path  # before any lookup: an id's existence does not leak
    assert client.post("/alerts/rules/new/", {**GOOD, "device": world["net"].pk}).status_code == 403
    assert client.get("/alerts/maintenance/new/").status_code == 403 and Rule.objects.count() == 2

    grant(world["alice"], "add_rule", "change_rule", "add_maintenance")
    as_user(client, world["alice"])
    form = page(client, "/alerts/rules/new/")
    assert names_in(form) == {"net-switch"} and f'<option value="{world["net"].pk}"' in form
    refused = client.post("/alerts/rules/new/", {**GOOD, "device": world["store"].pk})
    assert refused.status_code == 200 and "device" in refused.context["form"].errors
    assert not Rule.objects.filter(name="new rule").exists()
    assert client.post("/alerts/rules/new/", {**GOOD, "device": world["net"].pk}).status_code == 302
    assert Rule.objects.get(name="new rule").device == world["net"]
    assert client.get(f"/alerts/rules/{store_rule.pk}/").status_code == 404
    assert client.get(f"/alerts/rules/{net_rule.pk}/").status_code == 200
    window = {"starts_at": "2030-01-02T10:00", "ends_at": "2030-01-02T12:00", "reason": "swap"}
    refused = client.post("/alerts/maintenance/new/", {**window, "device": world["store"].pk})
    assert refused.status_code == 200 and "device" in refused.context["form"].errors
    refused = client.post("/alerts/maintenance/new/", {**window, "branch": str(world["vault"].pk)})
    assert refused.context["form"].errors["branch"] == ["No such tree branch in the trees you can see."]
    assert client.post("/alerts/maintenance/new/", {**window, "branch": str(world["core"].pk)}).status_code == 302
    assert list(Maintenance.objects.values_list("branch", flat=True)) == [str(world["core"].pk)]


def test_captured_mail_and_the_admin_are_staff_only(client, world):
    alice = world["alice"]
    grant(alice, "change_device", "view_device", "add_rule", "change_rule")
    as_user(client, alice)
    net = world["net"]
    for path in ("/alerts/mail/", f"/admin/monitor/device/{net.pk}/change/", "/admin/alerts/rule/add/", "/admin/"):
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), path
    response = client.post(f"/admin/monitor/device/{net.pk}/change/", {"name": "renamed", "host": "10.9.9.9"})
    assert response.status_code == 302 and Device.objects.get(pk=net.pk).name == "net-switch"
    response = client.post("/admin/alerts/rule/add/", {**GOOD, "device": net.pk})
    assert response.status_code == 302 and not Rule.objects.exists()
    assert client.get("/alerts/mail/").status_code == 302
    as_user(client, world["sam"])
    assert client.get("/alerts/mail/").status_code == 200


def test_staff_grant_read_to_users_and_groups_in_the_tree_admin(client, world, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "s3cret-pass-123")
    tsecret, carol, bob = world["tsecret"], world["carol"], world["bob"]
    form = page(as_user(client, boss), f"/admin/trees/tree/{tsecret.pk}/change/")
    assert 'id="id_read_users"' in form and 'id="id_read_groups"' in form and "selectfilter" in form
    nodes = list(tsecret.nodes.all())
    data = {"name": tsecret.name, "position": "3", "read_users": [carol.pk], "read_groups": [world["team"].pk]}
    data |= {"nodes-TOTAL_FORMS": str(len(nodes)), "nodes-INITIAL_FORMS": str(len(nodes))}
    for i, node in enumerate(nodes):
        data |= {f"nodes-{i}-id": node.pk, f"nodes-{i}-tree": tsecret.pk, f"nodes-{i}-kind": node.kind}
        data |= {f"nodes-{i}-title": node.title, f"nodes-{i}-position": node.position}
        data |= {f"nodes-{i}-parent": node.parent_id or "", f"nodes-{i}-device": node.device_id or ""}
    response = client.post(f"/admin/trees/tree/{tsecret.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert list(tsecret.read_users.all()) == [carol] and list(tsecret.read_groups.all()) == [world["team"]]
    as_user(client, carol)
    assert client.get(f"/devices/{world['secret'].pk}/").status_code == 200
    assert client.get("/trees/")["Location"] == f"/trees/{tsecret.pk}/"
    as_user(client, bob)  # through the group
    assert names_in(section(page(client, "/"), 'id="devices"')) == {"store-array", "secret-box"}
