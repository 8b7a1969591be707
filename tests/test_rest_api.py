"""The REST API on real snmpsim agents: devices listed by tree grants, added and changed with the admin form's
tests and messages, deleted, rediscovered; ports, graphs, trees and the OpenAPI schema; secrets never shown."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from monitor.devices.forms import DeviceForm
from monitor.devstack.processes import free_udp_port
from monitor.graphs.trees.models import ApiToken, Tree, TreeNode, place_device
from monitor.models import Device, Graph
from monitor.polling.run import run_poll

pytestmark = pytest.mark.django_db
COMMUNITY = "switch"


def bearer(user) -> Client:
    _, raw = ApiToken.issue(user, "test", scope=ApiToken.Scope.WRITE)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def post(client: Client, path: str, body: dict, method: str = "post"):
    return getattr(client, method)(path, json.dumps(body), content_type="application/json")


@pytest.fixture
def admin_api(admin_user) -> Client:
    return bearer(admin_user)


def new_device(agent, **extra) -> dict:
    return {"name": "api-sw", "host": "127.0.0.1", "port": agent.port, "community": COMMUNITY, "timeout_s": 1,
            "retries": 0, **extra}  # fmt: skip


def test_adding_a_device_tests_and_discovers_it_and_never_shows_its_community(agent, admin_api, clean_backends):
    response = post(admin_api, "/api/devices/", new_device(agent))
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["profile"] == "dell-powerconnect-62xx" and body["discovered_at"]
    assert body["poll_interval_s"] == 60 and body["enabled"] is True  # the model's defaults for what was not sent
    assert "community" not in body and '"community"' not in response.content.decode()
    device = Device.objects.get(pk=body["id"])
    assert device.community == COMMUNITY  # stored (encrypted), only never shown
    ports = admin_api.get(f"/api/devices/{device.pk}/ports/").json()["results"]
    assert [p["name"] for p in ports] == [f"1/g{i}" for i in range(1, 9)]
    assert run_poll(device.pk) == "ok"
    graphs = admin_api.get(f"/api/devices/{device.pk}/graphs/").json()["results"]
    traffic = [g for g in graphs if g["template"] == "traffic"]
    assert len(traffic) == 8 and traffic[0]["series"] == f"/api/graphs/{traffic[0]['id']}/series"
    listed = admin_api.get("/api/devices/").json()
    assert listed["count"] == 1 and listed["results"][0]["name"] == "api-sw"


def test_a_device_that_fails_its_test_is_refused_with_the_admin_form_message_and_nothing_is_saved(agent, admin_api):
    response = post(admin_api, "/api/devices/", new_device(agent, community="not-the-community", timeout_s=0.5))
    assert response.status_code == 400
    errors = response.json()
    assert "no SNMP response" in " ".join(errors["community"])
    assert "not-the-community" not in response.content.decode()
    admin_form = {"snmp_version": "2c", "max_repetitions": 25, "poll_interval_s": 60, "enabled": True}
    admin_form |= {"v3_security_level": "authPriv", "v3_auth_protocol": "SHA256", "v3_priv_protocol": "AES128"}
    form = DeviceForm({**new_device(agent, community="not-the-community", timeout_s=0.5), **admin_form})
    assert not form.is_valid()
    (api_words,), (form_words,) = errors["community"], form.errors["community"]
    assert api_words.endswith('Check the host, port and credentials, or send "skip_test": true.')  # the API's way
    assert form_words.endswith('or tick "Save without testing".')  # the form's own
    assert api_words.split(". Check")[0] == form_words.split(". Check")[0]  # the same words for the failure
    assert not Device.objects.exists()


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"port": "one-six-one"}, "port", "valid integer"),
        ({"port": 70000}, "port", "less than or equal to 65535"),
        ({"snmp_version": "4"}, "snmp_version", "not a valid choice"),
        ({"host": "no-such-host.invalid"}, "host", "does not resolve"),
        ({"community": ""}, "community", "A community is needed"),
        ({"snmp_version": "3", "v3_user": "u", "v3_auth_key": "short"}, "v3_auth_key", "at least 8 characters"),
        ({"name": ""}, "name", "blank"),
    ],
)
def test_bad_input_is_refused_naming_the_field(agent, admin_api, body, field, words):
    response = post(admin_api, "/api/devices/", new_device(agent, **body, skip_test=True))
    assert response.status_code == 400, response.content
    assert words in " ".join(response.json()[field]), response.json()
    assert not Device.objects.exists()


def test_changing_deleting_and_rediscovering(agent, admin_api):
    created = post(admin_api, "/api/devices/", new_device(agent)).json()
    path = f"/api/devices/{created['id']}/"
    changed = post(admin_api, path, {"poll_interval_s": 30, "poller_group": "edge"}, method="patch")
    assert changed.status_code == 200, changed.content
    assert changed.json()["poll_interval_s"] == 30 and changed.json()["poller_group"] == "edge"
    device = Device.objects.get(pk=created["id"])
    assert device.community == COMMUNITY  # a change that does not name the community keeps it
    # The old interval and the moment it changed are kept: pages count its windows by both for a while.
    assert device.previous_poll_interval_s == 60 and device.poll_interval_changed_at is not None
    assert device.counted_interval_s(device.poll_interval_changed_at) == 60 + 30 + 60
    assert "previous_poll_interval_s" not in changed.json()
    unchanged = device.poll_interval_changed_at
    post(admin_api, path, {"retries": 2, "skip_test": True}, method="patch")
    assert Device.objects.get(pk=created["id"]).poll_interval_changed_at == unchanged  # only the interval's change
    # A change is tested too: a port nothing listens on is refused unless told to skip the test (a new port needs
    # the community typed again: tests/test_secrets_travel.py).
    dead = free_udp_port()
    refused = post(admin_api, path, {"port": dead, "timeout_s": 0.5, "community": COMMUNITY}, method="patch")
    assert refused.status_code == 400 and "no SNMP response" in " ".join(refused.json()["community"])
    assert Device.objects.get(pk=created["id"]).port == agent.port
    kept = post(admin_api, path, {"port": dead, "skip_test": True, "community": COMMUNITY}, method="patch")
    assert kept.status_code == 200 and kept.json()["port"] == dead
    again = admin_api.post(f"{path}rediscover/")
    assert again.status_code == 200 and Device.objects.get(pk=created["id"]).rediscover is True
    assert admin_api.delete(path).status_code == 204
    assert not Device.objects.exists()


def test_reading_follows_tree_grants_and_writing_needs_the_admin_permissions(agent, admin_api, django_user_model):
    seen = post(admin_api, "/api/devices/", new_device(agent, name="seen", skip_test=True)).json()
    hidden = post(admin_api, "/api/devices/", new_device(agent, name="hidden", host="127.0.0.2", skip_test=True)).json()
    viewer = django_user_model.objects.create_user("viewer", password="x-pass-12345")
    tree = Tree.objects.create(name="Network")
    header = TreeNode.objects.create(tree=tree, kind="header", title="Core")
    place_device(Device.objects.get(pk=seen["id"]), header)
    tree.read_users.add(viewer)
    Graph.objects.create(device_id=hidden["id"], template="traffic", instance="1/g1", title="hidden port")
    api = bearer(viewer)

    assert [d["name"] for d in api.get("/api/devices/").json()["results"]] == ["seen"]
    assert api.get(f"/api/devices/{hidden['id']}/").status_code == 404  # as if it did not exist
    assert api.get("/api/graphs/").json()["count"] == 0
    assert [t["name"] for t in api.get("/api/trees/").json()["results"]] == ["Network"]
    nodes = api.get(f"/api/trees/{tree.pk}/nodes/").json()["results"]
    assert [(n["kind"], n["device"]) for n in nodes] == [("header", None), ("device", seen["id"])]
    assert post(api, "/api/devices/", new_device(agent, name="x", skip_test=True)).status_code == 403
    assert api.delete(f"/api/devices/{seen['id']}/").status_code == 403
    assert post(api, f"/api/devices/{seen['id']}/", {"retries": 2}, method="patch").status_code == 403
    viewer.user_permissions.add(Permission.objects.get(codename="change_device"))
    viewer = django_user_model.objects.get(pk=viewer.pk)  # permissions are cached per user object
    assert (
        post(bearer(viewer), f"/api/devices/{seen['id']}/", {"retries": 2, "skip_test": True}, "patch").json()[
            "retries"
        ]
        == 2
    )


def test_tokens_sessions_and_the_schema(admin_user, client):
    assert client.get("/api/devices/").status_code in (401, 403)
    bad = Client(HTTP_AUTHORIZATION="Bearer not-a-token").get("/api/devices/")
    assert bad.status_code == 401 and bad.json() == {"detail": "invalid API token"}
    client.force_login(admin_user)
    assert client.get("/api/devices/").status_code == 200
    assert client.post("/api/devices/", {}).status_code in (400, 403)  # a session needs CSRF for writes in browsers
    schema = bearer(admin_user).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    document = json.loads(schema.content)
    assert document["openapi"].startswith("3.") and "/api/devices/{id}/rediscover/" in document["paths"]
    assert "bearerToken" in document["components"]["securitySchemes"]
    properties = document["components"]["schemas"]["Device"]["properties"]
    assert properties["community"].get("writeOnly") is True


def test_the_schema_lists_the_series_and_markers_endpoints_with_their_parameters(admin_user):
    """The JSON views outside the viewsets are in the served schema, each with the query parameters it reads."""
    schema = bearer(admin_user).get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = json.loads(schema.content)["paths"]

    def parameters(path: str) -> set[tuple[str, str]]:
        return {(p["name"], p["in"]) for p in paths[path]["get"]["parameters"]}

    window = {("range", "query"), ("start", "query"), ("end", "query")}
    assert parameters("/api/series") >= window | {("graph", "query"), ("aggregate", "query"), ("points", "query")}
    for path in ("/api/graphs/{object_id}/series", "/api/aggregates/{object_id}/series",
                 "/api/graphs/{object_id}/series.csv", "/api/aggregates/{object_id}/series.csv"):  # fmt: skip
        assert parameters(path) >= window | {("object_id", "path"), ("points", "query")}, path
    assert parameters("/api/events/markers") >= window | {("graph", "query"), ("aggregate", "query")}
    graph = next(p for p in paths["/api/events/markers"]["get"]["parameters"] if p["name"] == "graph")
    assert graph["schema"]["type"] == "array" and graph["explode"] is True  # graph=1&graph=2
