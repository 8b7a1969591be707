"""A deactivated account's live session stops at its next request, whichever door it came in by (the directory over
LDAP, OpenID Connect, a local password) and whichever page or API it asks for; signing in again is refused."""

# ruff: noqa: F401, F811 (the sign-in fixtures: imported from tests/signin.py, named as arguments)
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph
from tests.signin import directory, ldap_on, log_in, oidc_on, provider, sign_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(clean_backends):
    """A switch with a graph, in a tree: every page kind has something to show."""
    switch = Device.objects.create(name="core-sw", host="10.0.0.1", community="x", poll_interval_s=60)
    graph = Graph.objects.create(device=switch, template="traffic", instance="1/g1", title="Traffic 1/g1")
    tree = Tree.objects.create(name="Network")
    place_device(switch, TreeNode.objects.create(tree=tree, kind="header", title="Core", position=1))
    return {"tree": tree, "device": switch, "graph": graph}


def pages(world) -> list[str]:
    """One of each kind: HTML pages, the series API, the REST API, the poller page and its figures, /metrics."""
    return [
        "/",
        f"/trees/{world['tree'].pk}/",
        f"/devices/{world['device'].pk}/",
        f"/api/graphs/{world['graph'].pk}/series?range=1h",
        f"/api/series?graph={world['graph'].pk}&range=1h",
        "/api/devices/",
        "/pollers/",
        "/pollers/history?range=1h",
        "/metrics",
        "/admin/",
    ]


def refused(response) -> bool:
    if response.status_code == 302:
        return response["Location"].startswith(("/login/", "/admin/login/"))
    return response.status_code in (401, 403)


def deactivate_and_check(client: Client, world) -> None:
    """Every page answers while the account is active, and none once an administrator deactivates it."""
    user = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert user.is_staff  # so that the poller page, /metrics and the admin answer it too
    for path in pages(world):
        assert client.get(path).status_code == 200, path
    user.is_active = False
    user.save()  # as the admin's user form saves it
    answers = {path: client.get(path) for path in pages(world)}
    assert {path: r.status_code for path, r in answers.items() if not refused(r)} == {}


def test_a_deactivated_directory_user_is_refused_at_once(ldap_on, client, world):
    assert log_in(client, "alice", "alice-pass-1") == 302
    deactivate_and_check(client, world)
    again = Client()
    response = again.post("/login/", {"username": "alice", "password": "alice-pass-1"})
    assert response.status_code == 200 and "did not match" in response.content.decode()  # nothing says "inactive"
    assert "_auth_user_id" not in again.session


def test_a_deactivated_single_sign_on_user_is_refused_at_once(oidc_on, settings, client, world):
    settings.MONITOR_OIDC_STAFF_GROUP = "monitor-admins"
    assert sign_in(client, oidc_on, "dana", "dana-pass-1").status_code == 302
    deactivate_and_check(client, world)
    failed = sign_in(Client(), oidc_on, "dana", "dana-pass-1")
    assert failed.status_code == 302 and failed["Location"] == "/login/?sso=failed"


def test_a_deactivated_local_user_is_refused_at_once(client, world, django_user_model):
    django_user_model.objects.create_user("local", password="local-pass-123", is_staff=True)
    assert log_in(client, "local", "local-pass-123") == 302
    deactivate_and_check(client, world)
