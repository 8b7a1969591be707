"""Warming played as an abuser: the server re-reads remembered requests with its own access, so only what the viewer
was answered is remembered, and one user's share of the list is bounded."""

from __future__ import annotations

import time

import pytest

from monitor.core import services
from monitor.graphs import viewed
from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.graphs.warming import warm_viewed
from monitor.models import Device, Graph
from tests.staffkit import signed_in

pytestmark = pytest.mark.django_db
STEP_S = 300  # the finest rollup tier: a run late in its window reads every remembered request


@pytest.fixture
def fleet(clean_backends, django_user_model):
    """Two switches of 20 graphs in a tree alice reads; carol reads no tree; dave reads it too."""
    tree = Tree.objects.create(name="Net")
    top = TreeNode.objects.create(tree=tree, kind="header", title="Core")
    graphs = []
    for n in range(2):
        device = Device.objects.create(name=f"sw-{n}", host=f"10.9.0.{n + 1}", community="x")
        place_device(device, top)
        graphs += Graph.objects.bulk_create(
            Graph(device=device, template="traffic", instance=f"1/g{p}", title=f"Traffic 1/g{p}") for p in range(20)
        )
    users = {name: django_user_model.objects.create_user(name, f"{name}@example.com", "pw-123456789") for name in "acd"}
    tree.read_users.add(users["a"], users["d"])
    services.redis_client().delete(viewed.KEY, *(viewed.BY_USER.format(u.pk) for u in users.values()))
    return {"graphs": [str(g.pk) for g in graphs], "alice": users["a"], "carol": users["c"], "dave": users["d"]}


def _late_in_window() -> float:
    return (time.time() // STEP_S) * STEP_S + STEP_S - 5


def test_a_user_who_reads_nothing_cannot_make_the_server_warm_every_graph(client, fleet):
    signed_in(client, fleet["carol"])
    answer = client.get("/api/series", {"graph": fleet["graphs"], "aggregate": ["999999"], "range": "1d"})
    assert answer.status_code == 200 and answer.json()["graphs"] == {}
    assert viewed.recent() == []
    figures = warm_viewed(now=_late_in_window())
    assert (figures["requests"], figures["graphs"]) == (0, 0)


def test_only_the_graphs_answered_are_remembered(client, fleet):
    signed_in(client, fleet["alice"])
    mine = fleet["graphs"][:3]
    answer = client.get("/api/series", {"graph": [*mine, "999999", mine[0]], "range": "1d", "points": "300"})
    assert sorted(answer.json()["graphs"]) == sorted(mine)
    [remembered] = viewed.recent()
    assert remembered.getlist("graph") == mine and remembered["points"] == "300"


def test_one_user_fills_only_their_share_of_the_list_and_keeps_their_newest(client, fleet, settings):
    settings.MONITOR_WARM_USER_GRAPHS = 100  # five requests of 20 graphs
    signed_in(client, fleet["dave"])
    client.get("/api/series", {"graph": fleet["graphs"][:20], "range": "1w"})
    signed_in(client, fleet["alice"])
    for points in range(100, 130):  # thirty variants of one page: each a request of its own to warm
        client.get("/api/series", {"graph": fleet["graphs"][20:], "range": "1d", "points": str(points)})
    found = viewed.recent()
    hers = [q for q in found if q.get("range") == "1d"]
    assert [q["points"] for q in hers] == [str(p) for p in range(129, 124, -1)]  # her newest five
    assert [q.getlist("graph") for q in found if q.get("range") == "1w"] == [fleet["graphs"][:20]]  # dave's kept
    figures = warm_viewed(now=_late_in_window())
    assert figures["graphs"] == 6 * 20


def test_a_request_viewed_again_by_another_user_stays_when_the_first_moves_on(client, fleet, settings):
    settings.MONITOR_WARM_USER_GRAPHS = 20
    shared = {"graph": fleet["graphs"][:20], "range": "1d"}
    signed_in(client, fleet["alice"]).get("/api/series", shared)
    signed_in(client, fleet["dave"]).get("/api/series", shared)
    signed_in(client, fleet["alice"]).get("/api/series", {"graph": fleet["graphs"][20:], "range": "1d"})
    assert sorted(q.getlist("graph")[0] for q in viewed.recent()) == sorted([fleet["graphs"][0], fleet["graphs"][20]])
