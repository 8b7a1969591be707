"""One click on a big tree header: the branch comes a page of whole devices at a time, in a fixed number of queries,
and the pages together show every graph of the branch once, in tree order."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from monitor.graphs.trees.branch import PAGE_GRAPHS
from monitor.graphs.trees.models import AggregateGraph, Tree, TreeNode
from monitor.models import Device, Graph
from tests.staffkit import signed_in

pytestmark = pytest.mark.django_db
FIGURE_ID = re.compile(rb'<figure[^>]*data-(?:graph|aggregate)-id="(\d+)"')


def _switches(tree: Tree, under: TreeNode, count: int, ports: int, first: int = 0) -> list[int]:
    """`count` switches of `ports` graphs placed under `under`; their graph ids in tree order."""
    ids = []
    for n in range(first, first + count):
        device = Device.objects.create(name=f"sw-{n}", host=f"10.1.{n // 250}.{n % 250 + 1}", community="x")
        made = Graph.objects.bulk_create(
            Graph(device=device, template="traffic", instance=f"1/g{p}", title=f"Traffic 1/g{p}", position=p)
            for p in range(ports)
        )
        TreeNode.objects.create(tree=tree, parent=under, kind="device", device=device, position=100 + n)
        ids += [g.pk for g in made]
    return ids


@pytest.fixture
def reader(client, clean_backends, django_user_model):
    alice = django_user_model.objects.create_user("alice", "alice@example.com", "s3cret-pass-123")
    tree = Tree.objects.create(name="Fleet")
    tree.read_users.add(alice)
    core = TreeNode.objects.create(tree=tree, kind="header", title="Core", position=1)
    return {"client": signed_in(client, alice), "tree": tree, "core": core}


def _page(client, tree: Tree, node: TreeNode, query: str = "") -> tuple[int, bytes]:
    response = client.get(f"/trees/{tree.pk}/nodes/{node.pk}/{query}")
    return response.status_code, response.content


def test_one_click_on_a_big_branch_does_not_render_every_graph_of_the_fleet(reader):
    """100 switches of 60 graphs under one header: the page was all 6,003 figures (2.2 MB), growing with the fleet."""
    client, tree, core = reader["client"], reader["tree"], reader["core"]
    lag = AggregateGraph.objects.create(title="Uplinks", template="traffic")
    TreeNode.objects.create(tree=tree, parent=core, kind="aggregate", aggregate=lag, position=1000)
    expected = _switches(tree, core, 100, 60)
    status, body = _page(client, tree, core)
    assert status == 200
    assert 0 < body.count(b"<figure") <= PAGE_GRAPHS
    assert b"Page 1 of 20 (6001 graphs in this branch)" in body
    seen, page = [], 1
    while True:  # follow "Next" to the end: every graph once, in tree order, and the aggregate last
        seen += [int(i) for i in FIGURE_ID.findall(body)]
        found = re.search(rb'rel="next" href="\?page=(\d+)"', body)
        if not found:
            break
        page += 1
        assert int(found.group(1)) == page
        status, body = _page(client, tree, core, f"?page={page}")
        assert status == 200 and body.count(b"<figure") <= PAGE_GRAPHS
    assert page == 20 and seen[:-1] == expected and b"Uplinks" in body


def test_a_branch_page_takes_the_same_queries_for_ten_switches_as_for_a_hundred(reader):
    client, tree, core = reader["client"], reader["tree"], reader["core"]
    _switches(tree, core, 10, 60)
    queries = []
    for more in (0, 90):
        _switches(tree, core, more, 60, first=10)
        with CaptureQueriesContext(connection) as captured:
            assert _page(client, tree, core)[0] == 200
        queries.append(len(captured))
    assert queries[0] == queries[1], queries


def test_a_page_number_is_checked(reader):
    client, tree, core = reader["client"], reader["tree"], reader["core"]
    ids = _switches(tree, core, 3, 150)  # two pages: 150 + 150, then 150
    for garbage in ("?page=x", "?page=0", "?page=-1", "?page=" + "9" * 40):  # what is no page number: the first
        status, body = _page(client, tree, core, garbage)
        assert status == 200 and [int(i) for i in FIGURE_ID.findall(body)] == ids[:300], garbage
    status, body = _page(client, tree, core, "?page=99")  # past the last: the last
    assert status == 200 and [int(i) for i in FIGURE_ID.findall(body)] == ids[300:]
    assert b"Page 2 of 2" in body and b'rel="prev" href="?page=1"' in body
