"""Bad input tried on purpose at every entry point: a clear message, nothing stored, nothing lost.

Forms (alert rules, maintenance, trees, aggregates, API tokens) as a superuser; every GET parameter of the
API and the pages; the command-line flags; settings from the environment. SNMP agents that misbehave are
in tests/test_bad_snmp.py.
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from influxdb_client.client.write_api import SYNCHRONOUS

from monitor.alerts.models import Maintenance, Rule
from monitor.graphs.trees.models import AggregateGraph, ApiToken, Tree, TreeNode
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient
from tests import influxq

pytestmark = pytest.mark.django_db
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUGE = "9" * 30  # beyond every integer column
UNICODE_DIGIT = "\u00b2"  # "²": str.isdigit() says yes, int() says no


@pytest.fixture
def boss(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "s3cret-pass-123")
    client.force_login(user)
    return client


@pytest.fixture
def device(db, stack_env) -> Device:
    return Device.objects.create(name="sw1", host="127.0.0.1", community="public", poll_interval_s=60)


def counts() -> dict[str, int]:
    """Rows of every table a form on trial could write to."""
    models = (Rule, Maintenance, Tree, TreeNode, AggregateGraph, ApiToken, Device, Graph)
    return {m.__name__: m.objects.count() for m in models}


def field_error(page: str, field: str) -> str:
    """The message shown next to a field of the alert pages' forms (empty when there is none)."""
    found = re.findall(rf'<span class="error field-error" data-field="{field}">(.*?)</span>', page)
    return html.unescape(" ".join(found))


# --- Alert rule form (/alerts/rules/new/) ------------------------------------------------------------------


def rule_data(dev: Device, **overrides) -> dict:
    data = {
        "name": "uplink busy",
        "enabled": "on",
        "metric": "port_in",
        "scope": "device",
        "device": str(dev.pk),
        "instance": "",
        "profile": "",
        "branch": "",
        "direction": "above",
        "unit": "absolute",
        "fire_level": "80",
        "clear_level": "70",
        "for_polls": "3",
        "repeat_minutes": "0",
        "recipient_emails": "noc@example.com",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


RULE_CASES = {
    "non-numeric level": ({"fire_level": "lots"}, "fire_level", "Enter a number"),
    "infinite level": ({"fire_level": "1e400"}, "fire_level", "Enter a number"),
    "NaN level": ({"clear_level": "nan"}, "clear_level", "Enter a number"),
    "clear above fire (above)": ({"fire_level": "80", "clear_level": "90"}, "clear_level", "at or below the fire"),
    "clear below fire (below)": (
        {"direction": "below", "fire_level": "10", "clear_level": "5"},
        "clear_level",
        "at or above the fire",
    ),
    "negative for_polls": ({"for_polls": "-1"}, "for_polls", "greater than or equal to"),
    "zero for_polls": ({"for_polls": "0"}, "for_polls", "greater than or equal to 1"),
    "huge for_polls": ({"for_polls": HUGE}, "for_polls", "less than or equal to 1000"),
    "negative repeat": ({"repeat_minutes": "-5"}, "repeat_minutes", "greater than or equal to 0"),
    "huge repeat": ({"repeat_minutes": HUGE}, "repeat_minutes", "less than or equal to 10080"),
    "fractional for_polls": ({"for_polls": "2.5"}, "for_polls", "Enter a whole number"),
    "overlong name": ({"name": "x" * 201}, "name", "at most 200 characters"),
    "overlong instance": ({"scope": "series", "instance": "p" * 256}, "instance", "at most 255 characters"),
    "NUL byte in the name": ({"name": "up\x00link"}, "name", "Null characters are not allowed"),
    "non-numeric device id": ({"device": "abc"}, "device", "Select a valid choice"),
    "huge device id": ({"device": HUGE}, "device", "Select a valid choice"),
    "unknown metric": ({"metric": '") |> drop('}, "metric", "Unknown metric"),
    "unknown direction": ({"direction": "sideways"}, "direction", "Select a valid choice"),
    "bad email": ({"recipient_emails": "noc@example.com, <script>"}, "recipient_emails", "is not an email address"),
    "no recipient": ({"recipient_emails": ""}, "recipient_emails", "at least one recipient"),
    "percent of a non-port metric": ({"metric": "cpu", "unit": "percent"}, "unit", "only applies to port"),
}


@pytest.mark.parametrize(("overrides", "field", "message"), list(RULE_CASES.values()), ids=list(RULE_CASES))
def test_rule_form_refuses_bad_values_next_to_the_field_and_saves_nothing(boss, device, overrides, field, message):
    before = counts()
    response = boss.post("/alerts/rules/new/", rule_data(device, **overrides))
    assert response.status_code == 200, response.status_code
    assert message in field_error(response.content.decode(), field)
    assert counts() == before


def test_rule_form_saves_good_values(boss, device):
    response = boss.post("/alerts/rules/new/", rule_data(device))
    assert response.status_code == 302
    assert Rule.objects.get().fire_level == 80.0


@pytest.mark.parametrize("branch", ["abc", HUGE, "-1"])
def test_rule_form_refuses_a_branch_that_is_not_a_tree_node(boss, device, branch):
    before = counts()
    response = boss.post("/alerts/rules/new/", rule_data(device, scope="branch", device="", branch=branch))
    assert response.status_code == 200
    assert field_error(response.content.decode(), "branch")
    assert counts() == before


def test_rule_form_refuses_a_unicode_digit_branch_for_a_restricted_user(client, django_user_model, device):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("ops", "ops@example.com", "s3cret-pass-123")
    user.user_permissions.add(Permission.objects.get(codename="add_rule"))
    client.force_login(user)
    before = counts()
    response = client.post("/alerts/rules/new/", rule_data(device, scope="branch", device="", branch=UNICODE_DIGIT))
    assert response.status_code == 200
    assert "No such tree branch" in field_error(response.content.decode(), "branch")
    assert counts() == before


def test_rule_form_keeps_a_tree_header_as_the_branch_and_refuses_any_other_node(boss, device, trees):
    node = TreeNode.objects.create(tree=trees["sites"], kind="device", device=device, parent=trees["berlin"])
    before = counts()
    refused = boss.post("/alerts/rules/new/", rule_data(device, scope="branch", device="", branch=str(node.pk)))
    assert refused.status_code == 200
    assert "No such tree branch" in field_error(refused.content.decode(), "branch")
    assert counts() == before
    header = trees["floor"].pk
    saved = boss.post("/alerts/rules/new/", rule_data(device, scope="branch", device="", branch=f"00{header}"))
    assert saved.status_code == 302
    assert Rule.objects.get().branch == str(header)  # stored as the id the branch pickers compare with


ALERT_PAGES = ("/alerts/rules/new/", "/alerts/maintenance/new/", "/alerts/history/")


@pytest.mark.parametrize(
    ("path", "device_param"),
    [
        *((path, value) for path in ALERT_PAGES for value in ("-1", "%00", "1%27%20OR%201=1", "1&device=2", "")),
        ("/alerts/rules/new/", HUGE),
        ("/alerts/maintenance/new/", HUGE),
        ("/alerts/history/", HUGE),
        *((path, UNICODE_DIGIT) for path in ALERT_PAGES),
    ],
)
def test_alert_pages_ignore_a_bad_device_in_the_query(boss, device, path, device_param):
    response = boss.get(f"{path}?device={device_param}")
    assert response.status_code == 200


def test_rule_form_refuses_a_huge_recipient_user_id(boss, device):
    before = counts()
    response = boss.post("/alerts/rules/new/", {**rule_data(device), "recipient_users": [HUGE]})
    assert response.status_code == 200
    assert "Select a valid choice" in field_error(response.content.decode(), "recipient_users")
    assert counts() == before


@pytest.mark.parametrize("value", ["-1", "\uff11", UNICODE_DIGIT])  # "\uff11": a fullwidth 1, which int() reads
def test_rule_form_refuses_a_recipient_user_id_that_is_not_ascii_digits(boss, device, value):
    before = counts()
    response = boss.post("/alerts/rules/new/", {**rule_data(device), "recipient_users": [value]})
    assert response.status_code == 200
    assert field_error(response.content.decode(), "recipient_users")
    assert counts() == before


# --- Maintenance form (/alerts/maintenance/new/) ------------------------------------------------------------


def maintenance_data(dev: Device, **overrides) -> dict:
    start = timezone.now().replace(second=0, microsecond=0)
    data = {
        "device": str(dev.pk),
        "branch": "",
        "starts_at": start.strftime("%Y-%m-%dT%H:%M"),
        "ends_at": (start + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M"),
        "reason": "firmware upgrade",
    }
    data.update(overrides)
    return data


MAINTENANCE_CASES = {
    "end before start": ({"starts_at": "2030-01-02T10:00", "ends_at": "2030-01-02T09:00"}, "ends_at", "after the"),
    "end equals start": ({"starts_at": "2030-01-02T10:00", "ends_at": "2030-01-02T10:00"}, "ends_at", "after the"),
    "impossible date": ({"ends_at": "2030-13-45T25:61"}, "ends_at", "Enter a valid date"),
    "year 99999": ({"ends_at": "99999-01-01T00:00"}, "ends_at", "Enter a valid date"),
    "text date": ({"starts_at": "tomorrow"}, "starts_at", "Enter a valid date"),
    "NUL byte date": ({"starts_at": "2030-01-02\x00T10:00"}, "starts_at", "Enter a valid date"),
    "neither device nor branch": ({"device": ""}, "device", "one of the two"),
    "non-numeric device id": ({"device": "abc"}, "device", "Select a valid choice"),
    "huge device id": ({"device": HUGE}, "device", "Select a valid choice"),
    "overlong reason": ({"reason": "r" * 301}, "reason", "at most 300 characters"),
}


@pytest.mark.parametrize(
    ("overrides", "field", "message"), list(MAINTENANCE_CASES.values()), ids=list(MAINTENANCE_CASES)
)
def test_maintenance_form_refuses_bad_values_next_to_the_field(boss, device, overrides, field, message):
    before = counts()
    response = boss.post("/alerts/maintenance/new/", maintenance_data(device, **overrides))
    assert response.status_code == 200, response.status_code
    assert message in field_error(response.content.decode(), field)
    assert counts() == before


def test_maintenance_form_saves_good_values(boss, device):
    assert boss.post("/alerts/maintenance/new/", maintenance_data(device)).status_code == 302
    assert Maintenance.objects.get().device == device


# --- Tree, tree-node, aggregate and API token admin ---------------------------------------------------------


def admin_errors(response) -> dict[str, str]:
    """Field -> messages of the admin form a refused POST re-renders (the admin shows them next to the field)."""
    assert response.status_code == 200, response.status_code
    form = response.context["adminform"].form
    found = {name: " ".join(map(str, errors)) for name, errors in form.errors.items()}
    for formset in response.context.get("inline_admin_formsets", []):
        for index, errors in enumerate(formset.formset.errors):
            found |= {f"{formset.formset.prefix}-{index}-{k}": " ".join(map(str, v)) for k, v in errors.items()}
    return found


@pytest.fixture
def trees(db) -> dict:
    sites = Tree.objects.create(name="Sites")
    other = Tree.objects.create(name="Other")
    berlin = TreeNode.objects.create(tree=sites, kind="header", title="Berlin")
    floor = TreeNode.objects.create(tree=sites, kind="header", title="Floor 1", parent=berlin)
    elsewhere = TreeNode.objects.create(tree=other, kind="header", title="Elsewhere")
    return {"sites": sites, "other": other, "berlin": berlin, "floor": floor, "elsewhere": elsewhere}


def node_data(trees: dict, **overrides) -> dict:
    data = {"tree": str(trees["sites"].pk), "parent": "", "kind": "header", "title": "Rack 4", "position": "0"}
    data |= {"device": "", "graph": "", "aggregate": ""}
    data.update(overrides)
    return data


NODE_CASES = {
    "parent in another tree": (lambda t: {"parent": str(t["elsewhere"].pk)}, "parent", "another tree"),
    "non-numeric parent id": (lambda t: {"parent": "abc"}, "parent", "Select a valid choice"),
    "huge parent id": (lambda t: {"parent": HUGE}, "parent", "Select a valid choice"),
    "negative position": (lambda t: {"position": "-1"}, "position", "greater than or equal to 0"),
    "huge position": (lambda t: {"position": HUGE}, "position", "less than or equal to"),
    "overlong title": (lambda t: {"title": "t" * 201}, "title", "at most 200 characters"),
    "header without a title": (lambda t: {"title": ""}, "title", "needs a title"),
    "device node without a device": (lambda t: {"kind": "device", "title": ""}, "device", "needs a device"),
    "huge device id": (lambda t: {"kind": "device", "device": HUGE}, "device", "Select a valid choice"),
    "unknown kind": (lambda t: {"kind": "folder"}, "kind", "Select a valid choice"),
    "non-numeric tree id": (lambda t: {"tree": "abc"}, "tree", "Select a valid choice"),
}


@pytest.mark.parametrize(("overrides", "field", "message"), list(NODE_CASES.values()), ids=list(NODE_CASES))
def test_tree_node_admin_refuses_bad_values(boss, trees, overrides, field, message):
    before = counts()
    response = boss.post("/admin/trees/treenode/add/", node_data(trees, **overrides(trees)))
    assert message in admin_errors(response).get(field, "")
    assert counts() == before


def test_tree_node_admin_refuses_a_cycle_and_changes_nothing(boss, trees):
    berlin, floor = trees["berlin"], trees["floor"]
    response = boss.post(
        f"/admin/trees/treenode/{berlin.pk}/change/", node_data(trees, title="Berlin", parent=str(floor.pk))
    )
    assert "cannot be inside itself" in admin_errors(response)["parent"]
    berlin.refresh_from_db()
    assert berlin.parent_id is None


def test_tree_node_admin_refuses_a_node_as_its_own_parent(boss, trees):
    berlin = trees["berlin"]
    response = boss.post(
        f"/admin/trees/treenode/{berlin.pk}/change/", node_data(trees, title="Berlin", parent=str(berlin.pk))
    )
    assert "cannot be inside itself" in admin_errors(response)["parent"]
    berlin.refresh_from_db()
    assert berlin.parent_id is None


def test_tree_admin_refuses_bad_values_in_the_tree_and_its_inline_nodes(boss, trees):
    before = counts()
    response = boss.post(
        "/admin/trees/tree/add/",
        {
            "name": "n" * 101,
            "position": "-3",
            "nodes-TOTAL_FORMS": "2",
            "nodes-INITIAL_FORMS": "0",
            "nodes-0-kind": "header",
            "nodes-0-title": "",
            "nodes-0-position": "1",
            "nodes-1-kind": "header",
            "nodes-1-title": "Rack",
            "nodes-1-position": "1",
            "nodes-1-parent": str(trees["elsewhere"].pk),
        },
    )
    errors = admin_errors(response)
    assert "at most 100 characters" in errors["name"] and "greater than or equal to 0" in errors["position"]
    assert "needs a title" in errors["nodes-0-title"] and "another tree" in errors["nodes-1-parent"]
    assert counts() == before


@pytest.mark.parametrize("field", ["read_users", "read_groups"])
@pytest.mark.parametrize("value", [HUGE, "-" + HUGE, "abc"])
def test_tree_admin_refuses_bad_ids_in_its_grants(boss, trees, field, value):
    before = counts()
    data = {"name": "Lab", "position": "0", field: [value], **empty_inline("nodes")}
    errors = admin_errors(boss.post("/admin/trees/tree/add/", data))
    assert "Select a valid choice" in errors[field] or "is not a valid value" in errors[field]
    assert counts() == before


def test_tree_admin_refuses_a_duplicate_name(boss, trees):
    before = counts()
    response = boss.post("/admin/trees/tree/add/", {"name": "Sites", "position": "0", **empty_inline("nodes")})
    assert "already exists" in admin_errors(response)["name"]
    assert counts() == before


def empty_inline(prefix: str) -> dict:
    return {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}


@pytest.fixture
def graphs(device) -> dict[str, Graph]:
    return {
        "traffic1": Graph.objects.create(device=device, template="traffic", instance="1/g1", title="t1"),
        "traffic2": Graph.objects.create(device=device, template="traffic", instance="1/g2", title="t2"),
        "errors1": Graph.objects.create(device=device, template="errors", instance="1/g1", title="e1"),
    }


def test_aggregate_admin_refuses_members_of_another_template(boss, graphs):
    before = counts()
    response = boss.post(
        "/admin/trees/aggregategraph/add/",
        {"title": "LAG", "template": "traffic", "members": [str(graphs["traffic1"].pk), str(graphs["errors1"].pk)]},
    )
    assert "errors" in admin_errors(response).get("members", "")
    assert counts() == before


AGGREGATE_CASES = {
    "unknown template": ({"template": "bogus"}, "template", "unknown graph template"),
    "overlong title": ({"title": "a" * 301}, "title", "at most 300 characters"),
    "non-numeric member": ({"members": ["abc"]}, "members", "is not a valid value"),
    "huge member id": ({"members": [HUGE]}, "members", "Select a valid choice"),
    "no member": ({"members": []}, "members", "This field is required"),
}


@pytest.mark.parametrize(("overrides", "field", "message"), list(AGGREGATE_CASES.values()), ids=list(AGGREGATE_CASES))
def test_aggregate_admin_refuses_bad_values(boss, graphs, overrides, field, message):
    before = counts()
    data = {"title": "LAG", "template": "traffic", "members": [str(graphs["traffic1"].pk)], **overrides}
    response = boss.post("/admin/trees/aggregategraph/add/", data)
    assert message in admin_errors(response).get(field, "")
    assert counts() == before


TOKEN_CASES = {
    "overlong name": (lambda u: {"user": str(u.pk), "name": "n" * 101}, "name", "at most 100 characters"),
    "no name": (lambda u: {"user": str(u.pk), "name": ""}, "name", "This field is required"),
    "non-numeric user id": (lambda u: {"user": "abc", "name": "ci"}, "user", "Select a valid choice"),
    "huge user id": (lambda u: {"user": HUGE, "name": "ci"}, "user", "Select a valid choice"),
    "no user": (lambda u: {"user": "", "name": "ci"}, "user", "This field is required"),
}


@pytest.mark.parametrize(("data", "field", "message"), list(TOKEN_CASES.values()), ids=list(TOKEN_CASES))
def test_api_token_admin_refuses_bad_values_and_issues_no_token(boss, django_user_model, data, field, message):
    before = counts()
    response = boss.post("/admin/trees/apitoken/add/", data(django_user_model.objects.get()))
    assert message in admin_errors(response).get(field, "")
    assert counts() == before
    assert "shown once" not in response.content.decode()


# --- API and page parameters --------------------------------------------------------------------------------

EVIL_PORT = '1/g9" or r.port != "x'  # pasted into Flux, it would select every port
INJECTION = '") |> drop(columns: ["_value"]) //'
BAD_VALUES = {
    "huge": HUGE,
    "very long": "9" * 5000,
    "negative": "-1",
    "non-numeric": "lots",
    "unicode": "\u65e5\u672c\u00b2",
    "NUL byte": "1\x00",
    "Flux injection": INJECTION,
    "empty": "",
}
PARAMS = ("range", "start", "end", "points", "unit")


@pytest.fixture
def stored(clean_backends, device) -> dict:
    """A device with two ports (one named to break Flux if pasted), their traffic and a volume's latency."""
    from collectors.lineprotocol import format_samples
    from collectors.samples import Sample

    now = time.time()
    samples = []
    for name, rate in (("1/g1", 100e6), (EVIL_PORT, 200e6)):
        Interface.objects.create(device=device, name=name, if_index=len(samples) + 1, speed_bps=1_000_000_000)
        samples += [
            Sample("interface", {"device": str(device.pk), "port": name}, {"in_bps": rate, "out_bps": 1e6}, now - i)
            for i in range(60, 1800, 60)
        ]
    samples += [
        Sample("volume", {"device": str(device.pk), "volume": "vol1"}, {"read_latency_ms": 4.0}, now - i)
        for i in range(60, 1800, 60)
    ]
    write = tsclient.client().write_api(write_options=SYNCHRONOUS)
    write.write(settings.INFLUXDB_BUCKET, settings.INFLUXDB_ORG, format_samples(samples), write_precision="ms")
    good = Graph.objects.create(device=device, template="traffic", instance="1/g1", title="Traffic 1/g1")
    evil = Graph.objects.create(device=device, template="traffic", instance=EVIL_PORT, title="Traffic evil")
    aggregate = AggregateGraph.objects.create(title="LAG", template="traffic")
    aggregate.members.set([good, evil])
    return {"device": device, "graph": good, "evil": evil, "aggregate": aggregate}


def api_urls(stored: dict) -> list[str]:
    graph, aggregate, device = stored["graph"].pk, stored["aggregate"].pk, stored["device"].pk
    return [
        f"/api/graphs/{graph}/series",
        f"/api/graphs/{graph}/series.csv",
        f"/api/aggregates/{aggregate}/series",
        f"/api/aggregates/{aggregate}/series.csv",
        f"/api/devices/{device}/heatmap",
    ]


def assert_clear(response) -> None:
    """A 400 with a JSON message, or a 200: never a 500."""
    assert response.status_code in (200, 400), (response.status_code, response.content[:300])
    if response.status_code == 400:
        message = response.json()["error"]
        assert message and "Traceback" not in message and len(message) < 300


@pytest.mark.parametrize("param", (*PARAMS, "field"))
@pytest.mark.parametrize("value", list(BAD_VALUES.values()), ids=list(BAD_VALUES))
def test_api_parameters_get_a_400_with_a_message_or_a_200(boss, stored, influx, param, value):
    before = influxq.influx_queries(influx)
    for path in api_urls(stored):
        response = boss.get(path, {param: value})
        assert_clear(response)
        if response.status_code == 200 and path.endswith("series"):
            assert response.json()["series"][0]["points"]  # a 200 is a correct answer, not an empty one
    if param in ("start", "end") and value not in ("", "-1"):  # no date: refused before any query is sent
        assert influxq.influx_queries(influx) == before


def test_flux_injection_in_parameters_never_reaches_influxdb(boss, stored, influx):
    before = influxq.influx_queries(influx)
    for path in api_urls(stored):
        extra = {"field": INJECTION} if path.endswith("heatmap") else {"unit": INJECTION}
        for query in (
            {"range": INJECTION},
            {"start": INJECTION},
            {"start": "now-1h", "end": INJECTION},
            {"range": "1h", "points": INJECTION},
            {"range": "1h", **extra},
        ):
            response = boss.get(path, query)
            assert response.status_code == 400, (path, query)
            assert re.search(r"is not (a date|one of|an integer|available)|must be one of", response.json()["error"])
    assert influxq.influx_queries(influx) == before  # not one of them was sent
    assert boss.get(api_urls(stored)[0], {"range": "1h"}).status_code == 200
    assert influxq.influx_queries(influx) > before  # and the counter does count queries


def test_a_stored_name_that_would_alter_flux_is_bound_as_a_literal(boss, stored):
    pasted = (
        f'from(bucket: "{settings.INFLUXDB_BUCKET}") |> range(start: -1h)'
        f' |> filter(fn: (r) => r._measurement == "interface" and r._field == "in_bps" and r.port == "{EVIL_PORT}")'
    )
    tables = influxq.query(pasted)
    assert 100e6 in {r.get_value() for t in tables for r in t.records}  # pasted, another port's data leaks in
    response = boss.get(f"/api/graphs/{stored['evil'].pk}/series", {"start": "now-40m", "end": "now"})
    assert response.status_code == 200
    points = response.json()["series"][0]["points"]
    assert len(points) == 29 and {p[2] for p in points} == {200e6}  # bound as a literal: that port only
    summed = boss.get(f"/api/aggregates/{stored['aggregate'].pk}/series", {"start": "now-40m", "end": "now"}).json()
    assert {p[2] for p in summed["series"][0]["points"]} == {300e6}


@pytest.mark.parametrize(
    ("query", "status", "expect"),
    [
        ("range=1h&range=1y", 200, None),  # the last value counts, as everywhere in Django
        ("range=1y&range=2h", 400, "is not one of"),
        ("points=abc&points=10&range=1h", 200, None),
        ("points=10&points=abc&range=1h", 400, "is not an integer"),
        ("start=now-1h&start=now-30m&end=now&end=now-2h", 400, "start must be before end"),
        ("start=now-999999y", 400, "too far in the past"),
        ("start=now-9999999y", 400, "is not a date"),
        ("start=99999999999", 400, "start must be before end"),
        ("start=2024-01-01T00:00:00%2B99:00", 400, "is not a date"),
        ("start=0001-01-01T00:00:00%2B14:00", 400, "before the year 2000"),
        ("end=9999-12-31T23:59:59-14:00&start=2020-01-01", 400, "in the future"),
        ("points=1e3&range=1h", 400, "is not an integer"),
        ("points=%EF%BC%91%EF%BC%90&range=1h", 200, None),  # fullwidth "10": int() reads it; a valid 10
    ],
)
def test_repeated_and_extreme_parameters(boss, stored, query, status, expect):
    for path in api_urls(stored):
        response = boss.get(f"{path}?{query}")
        assert response.status_code == status, (path, response.content[:200])
        if expect:
            assert expect in response.json()["error"]


@pytest.mark.parametrize(
    "path",
    [
        f"/api/graphs/{HUGE}/series",
        f"/api/graphs/{HUGE}/series.csv",
        f"/api/aggregates/{HUGE}/series",
        "/api/graphs/0/series",
        f"/api/devices/{HUGE}/heatmap",
        "/api/devices/0/heatmap",
    ],
)
def test_unknown_or_huge_ids_in_api_paths_are_a_404(boss, stored, path):
    response = boss.get(path, {"range": "1h"})
    assert response.status_code == 404 and response.json()["error"].startswith("no such")


def test_an_unknown_device_heatmap_says_what_a_hidden_one_says(boss, stored):
    response = boss.get("/api/devices/0/heatmap", {"range": "1h"})
    assert response.status_code == 404
    assert response.json() == {"error": "no such device"}  # as tests/test_tree_permissions.py sees for a hidden one


@pytest.mark.parametrize("value", [UNICODE_DIGIT, "\uff11", HUGE, "9" * 5000, "-1", "1\x00"])
def test_dashboard_pin_refuses_a_bad_graph_id(boss, graphs, value):
    response = boss.post("/dashboard/pin", {"graph": value})
    assert response.status_code == 400 and response.content == b"no such graph"
    assert not boss.get("/dashboard/").context["cards"]
    assert boss.post("/dashboard/pin", {"graph": str(graphs["traffic1"].pk)}).status_code == 302
    assert [c["id"] for c in boss.get("/dashboard/").context["cards"]] == [graphs["traffic1"].pk]


def page_urls(stored: dict, trees: dict) -> list[str]:
    return [
        "/",
        f"/devices/{stored['device'].pk}/",
        f"/graphs/{stored['graph'].pk}/",
        "/search/",
        f"/trees/{trees['sites'].pk}/",
        f"/trees/{trees['sites'].pk}/nodes/{trees['berlin'].pk}/",
        "/dashboard/",
        "/alerts/",
        "/alerts/history/",
    ]


@pytest.mark.parametrize("param", ("range", "start", "end", "q", "page"))
@pytest.mark.parametrize("value", list(BAD_VALUES.values()), ids=list(BAD_VALUES))
def test_page_parameters_never_give_a_500(boss, stored, trees, param, value):
    for path in page_urls(stored, trees):
        response = boss.get(path, {param: value})
        assert response.status_code in (200, 400), (path, response.status_code)
        if response.status_code == 400:
            assert path == "/" and param in ("range", "start", "end")
            assert 'class="error' in response.content.decode() or "range_error" in str(response.context)


def test_home_page_shows_a_bad_range_as_a_message(boss, stored):
    response = boss.get("/", {"range": INJECTION})
    assert response.status_code == 400
    assert "is not one of" in response.context["range_error"]
    assert INJECTION not in response.content.decode()  # escaped, never echoed raw


@pytest.mark.parametrize(
    "path",
    [f"/devices/{HUGE}/", f"/graphs/{HUGE}/", f"/trees/{HUGE}/", "/trees/1/nodes/" + HUGE + "/", "/devices/0/"],
)
def test_unknown_or_huge_ids_in_page_paths_are_a_404(boss, stored, path):
    assert boss.get(path).status_code == 404


def test_search_finds_text_with_quotes_and_percent_signs_literally(boss, stored):
    Interface.objects.filter(name="1/g1").update(alias='50% "core" _link_')
    found = boss.get("/search/", {"q": '50% "core"'}).context["ports"]
    assert [p.name for p in found] == ["1/g1"]
    for char in ("%", "_"):  # a character, not a LIKE wildcard
        assert [p.name for p in boss.get("/search/", {"q": char}).context["ports"]] == ["1/g1"]
    assert [p.name for p in boss.get("/search/", {"q": '" or r.port'}).context["ports"]] == [EVIL_PORT]


@pytest.mark.parametrize("name", ["C:\\ Label:Data  Serial Number 5a2c", "Slot0\\Port1", "share\\"])
def test_device_strings_with_backslashes_are_written_and_found_as_they_are(stored, name):
    """A backslash is stored as it is; only a final one (which line protocol cannot carry) becomes a slash,
    and tag_value() is applied wherever a device string becomes a tag, so rows and series agree."""
    from collectors.samples import Sample
    from collectors.tags import tag_value
    from monitor.core import services

    expected = "share/" if name == "share\\" else name
    assert tag_value(name) == expected

    sample = Sample("storage", {"device": str(stored["device"].pk), "storage": name}, {"used_bytes": 1.0}, time.time())
    assert services.influx_writer().write([sample])
    script = influxq.bind(
        'from(bucket: params.bucket) |> range(start: -1h) |> filter(fn: (r) => r._measurement == "storage")',
        {"bucket": settings.INFLUXDB_BUCKET},
    )
    found = {r.values.get("storage") for t in influxq.query(script) for r in t.records}
    assert found == {expected}


# --- Command-line flags --------------------------------------------------------------------------------------


def manage(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """`manage.py <args>` in a child process with the venv's python and the test stack's environment."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line_error(result: subprocess.CompletedProcess, status: int = 1) -> str:
    """The command failed with `status` and said why on the last line of stderr, without a traceback."""
    assert result.returncode == status, (result.returncode, result.stdout[-500:], result.stderr[-2000:])
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    return result.stderr.strip().splitlines()[-1]


PROBE_CASES = {
    "unresolvable host": (["no-such-host.invalid"], 1, "cannot resolve host 'no-such-host.invalid'"),
    "impossible address": (["256.1.1.1"], 1, "cannot resolve host '256.1.1.1'"),
    "empty host": ([""], 1, "is not a host name or an IP address"),
    "host with a space": (["core switch"], 1, "is not a host name or an IP address"),
    "port 0": (["127.0.0.1", "--port", "0"], 1, "--port must be between 1 and 65535"),
    "port 70000": (["127.0.0.1", "--port", "70000"], 1, "--port must be between 1 and 65535"),
    "port not a number": (["127.0.0.1", "--port", "http"], 2, "argument --port: invalid int value: 'http'"),
    "negative timeout": (["127.0.0.1", "--timeout", "-1"], 1, "--timeout must be between 0.1 and 60"),
    "NaN timeout": (["127.0.0.1", "--timeout", "nan"], 1, "--timeout must be between 0.1 and 60, not nan"),
    "infinite timeout": (["127.0.0.1", "--timeout", "inf"], 1, "--timeout must be between 0.1 and 60, not inf"),
    "negative retries": (["127.0.0.1", "--retries", "-1"], 1, "--retries must be between 0 and 10"),
    "huge retries": (["127.0.0.1", "--retries", HUGE], 1, "--retries must be between 0 and 10"),
    "zero repetitions": (["127.0.0.1", "--max-repetitions", "0"], 1, "--max-repetitions must be between 1 and 100"),
    "infinite interval": (["127.0.0.1", "--interval", "inf"], 1, "--interval must be between 0 and 3600"),
    "unknown --version": (["127.0.0.1", "--version", "4"], 2, "argument --snmp-version: invalid choice: '4'"),
    "unknown --version=": (["127.0.0.1", "--version=v2"], 2, "argument --snmp-version: invalid choice: 'v2'"),
    "unknown --snmp-version": (["127.0.0.1", "--snmp-version", "2"], 2, "invalid choice: '2'"),
    "unknown auth protocol": (["127.0.0.1", "--auth-protocol", "ROT13"], 2, "argument --auth-protocol"),
    "short v3 key": (
        ["127.0.0.1", "--v3-user", "u", "--auth-protocol", "SHA", "--auth-key", "short"],
        1,
        "--auth-key must be at least 8 characters",
    ),
    "unknown profile": (["127.0.0.1", "--profile", "nope", "--timeout", "0.2"], 1, "no profile named 'nope'"),
}


@pytest.mark.parametrize(("args", "status", "message"), list(PROBE_CASES.values()), ids=list(PROBE_CASES))
def test_probe_refuses_bad_flags_with_one_line(stack_env, args, status, message):
    line = one_line_error(manage(stack_env, "probe", *args), status)
    assert message in line


def test_probe_of_an_agent_sending_garbage_is_one_line_without_the_community(stack_env):
    from tests.snmpfake import FakeAgent

    agent = FakeAgent(lambda req, raw: [b"<html>garbage</html>"])
    try:
        result = manage(
            stack_env, "probe", "127.0.0.1", "--port", str(agent.port), "--community", "s3cret-c0mm", "--retries", "0"
        )
    finally:
        agent.close()
    assert one_line_error(result) == "CommandError: 127.0.0.1: malformed SNMP response from the agent"
    assert "s3cret" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("days", "status", "message"),
    [
        ("0", 1, "--days must be between 1 and 3660"),
        ("-5", 1, "--days must be between 1 and 3660"),
        ("3661", 1, "--days must be between 1 and 3660"),
        (HUGE, 1, "--days must be between 1 and 3660"),
        ("abc", 2, "argument --days: invalid int value: 'abc'"),
        ("1.5", 2, "argument --days: invalid int value: '1.5'"),
        ("", 2, "argument --days: invalid int value: ''"),
    ],
)
def test_rollup_backfill_refuses_bad_days_with_one_line(stack_env, days, status, message):
    assert message in one_line_error(manage(stack_env, "rollup_backfill", "--days", days), status)


# --- Settings from the environment ----------------------------------------------------------------------------

SECRET_TEXT = "hunter2-s3cret-value"


@pytest.fixture
def files(tmp_path) -> dict[str, str]:
    (tmp_path / "secret").write_text(SECRET_TEXT + "\n")
    (tmp_path / "latin1").write_bytes(b"caf\xe9 " + SECRET_TEXT.encode())
    return {"secret": str(tmp_path / "secret"), "latin1": str(tmp_path / "latin1"), "dir": str(tmp_path)}


CONFIG_CASES = {
    "non-numeric integer": ({"MONITOR_LOGIN_MAX_FAILURES": "five"}, "MONITOR_LOGIN_MAX_FAILURES='five' is not an"),
    "fractional integer": ({"MONITOR_SCHEDULE_REFRESH_S": "2.5"}, "MONITOR_SCHEDULE_REFRESH_S='2.5' is not an"),
    "integer below its minimum": ({"MONITOR_REDISCOVER_S": "10"}, "MONITOR_REDISCOVER_S=10 is below the minimum"),
    "negative retention": ({"MONITOR_RAW_RETENTION_DAYS": "-1"}, "MONITOR_RAW_RETENTION_DAYS=-1 is below"),
    "huge integer": ({"MONITOR_LOGIN_LOCKOUT_S": HUGE}, "MONITOR_LOGIN_LOCKOUT_S=" + HUGE + " is above the maximum"),
    "control character in an integer": (
        {"MONITOR_SCHEDULE_REFRESH_S": "5\x01"},
        "MONITOR_SCHEDULE_REFRESH_S='5\\x01' is not an",
    ),
    "NaN float": ({"MONITOR_LINE_RATE_TOLERANCE": "nan"}, "MONITOR_LINE_RATE_TOLERANCE='nan' is not a finite"),
    "float below its minimum": ({"MONITOR_LINE_RATE_TOLERANCE": "0.5"}, "MONITOR_LINE_RATE_TOLERANCE=0.5 is below"),
    "not a boolean": ({"DJANGO_SECURE_TLS": "maybe"}, "DJANGO_SECURE_TLS='maybe' is not a boolean"),
    "trusted proxy not an address": (
        {"MONITOR_TRUSTED_PROXIES": "10.0.0.1, proxy.example"},
        "MONITOR_TRUSTED_PROXIES: 'proxy.example' is not an IP address or CIDR prefix",
    ),
    "missing _FILE": ({"MONITOR_SECRETS_KEY_FILE": "/no/such/file"}, "MONITOR_SECRETS_KEY_FILE='/no/such/file' cannot"),
    "_FILE is a directory": ({"INFLUXDB_TOKEN_FILE": "{dir}"}, "INFLUXDB_TOKEN_FILE='{dir}' cannot be read: Is a"),
    "_FILE not UTF-8": ({"DJANGO_SECRET_KEY_FILE": "{latin1}"}, "DJANGO_SECRET_KEY_FILE='{latin1}' is not UTF-8"),
    "_FILE integer holding a secret": (
        {"MONITOR_LOGIN_LOCKOUT_S_FILE": "{secret}"},
        "MONITOR_LOGIN_LOCKOUT_S (from MONITOR_LOGIN_LOCKOUT_S_FILE) is not an integer",
    ),
    "_FILE boolean holding a secret": (
        {"EMAIL_USE_TLS_FILE": "{secret}"},
        "EMAIL_USE_TLS (from EMAIL_USE_TLS_FILE) is not a boolean",
    ),
}


@pytest.mark.parametrize(("overrides", "message"), list(CONFIG_CASES.values()), ids=list(CONFIG_CASES))
def test_check_refuses_bad_settings_with_one_line_naming_the_variable(stack_env, files, overrides, message):
    env = {**stack_env, **{k: v.format(**files) for k, v in overrides.items()}}
    result = manage(env, "check")
    line = one_line_error(result)
    assert result.stderr.strip() == line  # one line, nothing else
    assert line.startswith("configuration error: " + message.format(**files))
    assert SECRET_TEXT not in result.stdout + result.stderr


def test_check_passes_with_the_test_settings(stack_env):
    result = manage(stack_env, "check")
    assert result.returncode == 0 and "no issues" in result.stdout
