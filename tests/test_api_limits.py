"""Every list of the REST API is paged with a bounded page: a reader asking for every stored event at once (or an
offset past the database's integers) gets a 400 that says the range, and the pages still reach every row."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from monitor.events.models import Event
from monitor.events.record import make, store
from monitor.graphs.trees.models import ApiToken, Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface

pytestmark = pytest.mark.django_db
STORED = 2500


@pytest.fixture
def reader_api(stack_env, django_user_model, settings) -> dict:
    """A reader of a tree holding a switch with many ports, graphs and stored events."""
    settings.API_PAGE_SIZE, settings.API_MAX_PAGE_SIZE = 500, 1000
    switch = Device.objects.create(name="busy-sw", host="127.0.0.1", community="c")
    tree = Tree.objects.create(name="Busy")
    header = TreeNode.objects.create(tree=tree, kind="header", title="Site")
    place_device(switch, header)
    for n in range(1, 1101):
        TreeNode.objects.create(tree=tree, parent=header, kind="header", title=f"rack {n}", position=n)
    Interface.objects.bulk_create(
        Interface(device=switch, name=f"1/g{n}", if_index=n, speed_bps=10**9) for n in range(1, 1101)
    )
    Graph.objects.bulk_create(
        Graph(device=switch, template="traffic", instance=f"1/g{n}", title=f"Traffic 1/g{n}", position=n)
        for n in range(1, 1101)
    )
    Event.objects.all().delete()
    now = timezone.now()
    store([make(switch.pk, "syslog", f"line {n}", time=now - timedelta(seconds=n)) for n in range(STORED)])
    reader = django_user_model.objects.create_user("reader", password="r3ader-pass-123")
    tree.read_users.add(reader)
    _, raw = ApiToken.issue(reader, "script")
    return {"api": Client(HTTP_AUTHORIZATION=f"Bearer {raw}"), "switch": switch, "tree": tree}


def test_a_reader_cannot_make_a_worker_build_every_stored_event(reader_api):
    api = reader_api["api"]
    assert Event.objects.count() == STORED
    greedy = api.get(f"/api/events/?range=1d&limit={STORED * 10}")
    assert greedy.status_code == 400
    assert greedy.json() == {"limit": ["limit must be a whole number from 1 to 1000"]}
    for bad in ("0", "-5", "1e3", "many", "99999999999999999999"):
        assert api.get(f"/api/events/?range=1d&limit={bad}").status_code == 400, bad
    for bad in ("-1", "x", "99999999999999999999"):
        response = api.get(f"/api/events/?range=1d&offset={bad}")
        assert response.status_code == 400 and "offset must be a whole number" in response.json()["offset"][0], bad
    first = api.get("/api/events/?range=1d").json()
    assert first["count"] == STORED and len(first["results"]) == 500  # the page size unless asked
    seen, url = [], "/api/events/?range=1d&limit=1000"
    while url:
        page = api.get(url).json()
        assert len(page["results"]) <= 1000
        seen += [row["id"] for row in page["results"]]
        url = page["next"]
    assert len(seen) == len(set(seen)) == STORED  # every row, page by page


@pytest.mark.parametrize(
    "path",
    ["/api/devices/", "/api/graphs/", "/api/trees/", "/api/devices/{switch}/ports/", "/api/devices/{switch}/graphs/",
     "/api/trees/{tree}/nodes/"],
)  # fmt: skip
def test_every_list_is_paged_with_a_bounded_page(reader_api, path):
    api = reader_api["api"]
    path = path.format(switch=reader_api["switch"].pk, tree=reader_api["tree"].pk)
    assert api.get(f"{path}?limit=1001").status_code == 400
    page = api.get(f"{path}?limit=1000").json()
    assert len(page["results"]) <= 1000 and page["count"] >= 1
    if page["count"] > 1000:
        rest = api.get(page["next"]).json()
        assert len(page["results"]) + len(rest["results"]) == page["count"]


def test_an_id_past_the_databases_integers_is_a_400_not_a_500(reader_api, client, django_user_model):
    api = reader_api["api"]
    huge = "4911482856844189237248"  # what the fuzz sent: SQLite cannot hold it, the query raised
    refused = api.get(f"/api/events/?range=1d&device={huge}")
    assert refused.status_code == 400 and "device" in refused.json()
    assert api.get(f"/api/events/?range=1d&device={reader_api['switch'].pk}").json()["count"] == STORED
    assert api.get(f"/api/events/markers?graph={huge}").status_code == 400
    client.force_login(django_user_model.objects.get(username="reader"))
    page = client.get(f"/events/?range=1d&device={huge}")
    assert page.status_code == 200 and "is not a valid value" in page.content.decode()
