"""The series API on a real InfluxDB: checked parameters, clear 4xx errors, tokens, CSV export, aggregates."""

from __future__ import annotations

import csv
import io
import time

import pytest
from django.conf import settings
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.graphs.trees.models import AggregateGraph, ApiToken, Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db


@pytest.fixture
def graph(clean_backends):
    device = Device.objects.create(name="api-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    Interface.objects.create(device=device, name="1/g1", if_index=1, alias="=HYPERLINK(1)", speed_bps=1_000_000_000)
    Interface.objects.create(device=device, name="1/g2", if_index=2, speed_bps=1_000_000_000)
    now = int(time.time())
    lines = []
    for i in range(30):
        t = now - 1800 + i * 60
        lines.append(f"interface,device={device.pk},port=1/g1 in_bps={100e6 + i * 1e6},out_bps=50e6 {t}")
        lines.append(f"interface,device={device.pk},port=1/g2 in_bps=200e6,out_bps=10e6 {t}")
    api = tsclient.client().write_api(write_options=SYNCHRONOUS)
    api.write(bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s")
    Graph.objects.create(device=device, template="traffic", instance="1/g2", title="=cmd|'/C calc'!A0")
    return Graph.objects.create(device=device, template="traffic", instance="1/g1", title="Traffic 1/g1")


@pytest.fixture
def tree(graph) -> Tree:
    """A tree holding the graph's device: a user granted read on it may read the device's graphs."""
    tree = Tree.objects.create(name="API")
    place_device(graph.device, TreeNode.objects.create(tree=tree, kind="header", title="Switches"))
    return tree


@pytest.fixture
def viewer(client, django_user_model, tree):
    user = django_user_model.objects.create_user("viewer", password="s3cret-pass-123")
    tree.read_users.add(user)
    client.force_login(user)
    return user


def url(graph_id: int, query: str) -> str:
    return f"/api/graphs/{graph_id}/series?{query}"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("start=now-1h&end=now-2h", "start must be before end"),
        ("start=now-1h&end=now-1h", "start must be before end"),
        ("start=1999-01-01&end=2000-02-01", "before the year 2000"),
        ("start=now-1h&end=2999-01-01", "in the future"),
        ("start=yesterday&end=now", "is not a date"),
        ('start=now")|>drop(columns:["x"])&end=now', "is not a date"),
        ("range=2h", "is not one of"),
        ("range=1h&points=100000", "points must be between 2 and 2000"),
        ("range=1h&points=1", "points must be between"),
        ("range=1h&points=lots", "is not an integer"),
        ("range=1h&unit=furlongs", "is not available"),
    ],
)
def test_bad_parameters_get_a_400_with_a_message(client, viewer, graph, query, message):
    response = client.get(url(graph.pk, query))
    assert response.status_code == 400, response.content
    assert message in response.json()["error"]


def test_unknown_graph_is_a_404_and_anonymous_is_a_401(client, graph):
    assert client.get(url(graph.pk, "range=1h")).status_code == 401
    assert "API token" in client.get(url(graph.pk, "range=1h")).json()["error"]
    assert client.get("/api/graphs/999999/series?range=1h", HTTP_AUTHORIZATION="Bearer nope").status_code == 401


def test_a_missing_graph_is_a_404(client, viewer, graph):
    response = client.get("/api/graphs/999999/series?range=1h")
    assert response.status_code == 404 and response.json()["error"] == "no such graph"


def test_api_token_authorises_and_a_wrong_one_does_not(client, graph, tree, django_user_model):
    user = django_user_model.objects.create_user("robot", password="s3cret-pass-123")
    tree.read_users.add(user)
    token, raw = ApiToken.issue(user, "grafana")
    assert raw not in token.digest
    ok = client.get(url(graph.pk, "range=1h"), HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert ok.status_code == 200 and ok.json()["series"][0]["points"]
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert client.get(url(graph.pk, "range=1h"), HTTP_AUTHORIZATION=f"Bearer {raw}x").status_code == 401


def test_series_never_exceed_points_and_carry_stats(client, viewer, graph):
    raw = client.get(url(graph.pk, "start=now-40m&end=now&points=800")).json()
    inbound = raw["series"][0]
    assert raw["tier"] == "raw" and not raw["aggregated"] and raw["resolution_s"] == 60
    assert len(inbound["points"]) == 30
    assert inbound["stats"]["maximum"] == pytest.approx(129e6)
    assert inbound["stats"]["minimum"] == pytest.approx(100e6)
    assert inbound["stats"]["total"] > 0
    few = client.get(url(graph.pk, "start=now-40m&end=now&points=5")).json()
    assert all(len(s["points"]) <= 5 for s in few["series"]) and few["aggregated"]
    assert few["series"][0]["stats"]["maximum"] == pytest.approx(129e6)  # stats come from raw, not from 5 points
    assert max(p[3] for p in few["series"][0]["points"]) == pytest.approx(129e6)


def test_units_bytes_and_percent_of_port_speed(client, viewer, graph):
    bits = client.get(url(graph.pk, "start=now-40m&end=now")).json()["series"][0]["stats"]["maximum"]
    as_bytes = client.get(url(graph.pk, "start=now-40m&end=now&unit=bytes")).json()
    assert as_bytes["unit"] == "B/s" and as_bytes["series"][0]["stats"]["maximum"] == pytest.approx(bits / 8)
    percent = client.get(url(graph.pk, "start=now-40m&end=now&unit=percent")).json()
    assert percent["unit"] == "%" and percent["series"][0]["stats"]["maximum"] == pytest.approx(12.9)


def test_aggregate_sums_its_members(client, viewer, graph, tree):
    aggregate = AggregateGraph.objects.create(title="LAG 1", template="traffic")
    aggregate.members.set(Graph.objects.filter(device=graph.device))
    TreeNode.objects.create(tree=tree, kind="aggregate", aggregate=aggregate, position=2)
    data = client.get(f"/api/aggregates/{aggregate.pk}/series?start=now-40m&end=now").json()
    inbound = data["series"][0]
    # the members' first samples stand for the poll interval before them too (docs/graphs.md: own interval)
    assert [p[2] for p in inbound["points"]] == pytest.approx([300e6] + [300e6 + i * 1e6 for i in range(30)])
    assert inbound["stats"]["maximum"] == pytest.approx(329e6)
    percent = client.get(f"/api/aggregates/{aggregate.pk}/series?start=now-40m&end=now&unit=percent").json()
    assert percent["series"][0]["stats"]["maximum"] == pytest.approx(329e6 / 2e9 * 100)


def test_csv_export_matches_the_series_and_neutralises_formulas(client, viewer, graph):
    other = Graph.objects.get(device=graph.device, instance="1/g2")
    response = client.get(f"/api/graphs/{other.pk}/series.csv?start=now-40m&end=now")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    # Each column says what it holds: the time's zone and every figure's unit (not "mean", "max" bare).
    assert rows[0] == ["time (UTC)", "graph", "series", "min (bit/s)", "mean (bit/s)", "max (bit/s)"]
    assert rows[1][0].endswith("+00:00")
    assert len(rows) == 1 + 60
    assert all(row[1] == "'=cmd|'/C calc'!A0" for row in rows[1:])
    assert {row[2] for row in rows[1:]} == {"In", "Out"}
    assert client.get(f"/api/graphs/{other.pk}/series.csv?start=now&end=now-1h").status_code == 400


def test_heatmap_validates_its_field(client, viewer, graph):
    response = client.get(f"/api/devices/{graph.device_id}/heatmap?range=1h&field=cpu")
    assert response.status_code == 400 and "field must be one of" in response.json()["error"]
    assert client.get("/api/devices/999999/heatmap?range=1h").status_code == 404
    assert client.get(f"/api/devices/{graph.device_id}/heatmap?range=1h").json()["volumes"] == []
