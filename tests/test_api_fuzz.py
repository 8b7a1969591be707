"""Schemathesis against the OpenAPI schema the app serves (drf-spectacular): every REST endpoint, fuzzed through the
real Django app (WSGI, in this process) with real Redis and InfluxDB, as an anonymous caller, a reader granted no
tree and a staff user. No answer is a 5xx, none holds a secret (SNMP community, v3 keys, trap keys, webhook secret
and URL, token secrets, InfluxDB token), and neither the anonymous caller nor the reader ever sees an object of a
tree they may not read, not even when asking for every known id (nor a reader granted an aggregate whose members
are on devices they may not read). Hypothesis is derandomized: the same requests
every run, few enough for the normal suite."""

from __future__ import annotations

import time
from collections import Counter

import pytest
import schemathesis
from django.conf import settings
from django.contrib.auth.models import Permission
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as fuzzing
from influxdb_client.client.write_api import SYNCHRONOUS
from schemathesis import GenerationMode

from monitor.alerts.channel_models import Channel
from monitor.events.models import TrapCredential
from monitor.events.record import make, store
from monitor.graphs.trees.models import AggregateGraph, ApiToken, Tree, TreeNode, place_device
from monitor.models import Device, Graph, Interface
from monitor.timeseries import client as tsclient

pytestmark = pytest.mark.django_db(transaction=True)  # the WSGI app closes and reopens connections: committed rows
EXAMPLES = 10  # per operation, user and mode
SECRETS = {
    "community": "fz-c0mmunity-5ecret",
    "auth key": "fz-auth-key-5ecret",
    "priv key": "fz-priv-key-5ecret",
    "trap community": "fz-trap-c0mm-5ecret",
    "trap auth key": "fz-trap-auth-5ecret",
    "webhook secret": "fz-webhook-5ecret",
    "webhook url": "https://hooks.example.org/fz-url-5ecret",
}
HIDDEN = ("fz-hidden-switch", "fz-hidden-v3", "Fz-Hidden-Tree", "Fz Hidden Port", "fzhid-9", "Fz Hidden LAG",
          "fz-hidden-event", "Fz-Hidden-Header")  # fmt: skip


@pytest.fixture
def world(stack_env, django_user_model) -> dict:
    """Two devices with every kind of secret in a tree granted to nobody, their graphs, an aggregate, events, a
    webhook; a reader granted no tree (read-only token) and a staff user with the device permissions."""
    switch = Device.objects.create(name="fz-hidden-switch", host="127.0.0.1", community=SECRETS["community"])
    v3 = Device.objects.create(
        name="fz-hidden-v3", host="127.0.0.1", snmp_version="3", v3_user="fz", v3_security_level="authPriv",
        v3_auth_key=SECRETS["auth key"], v3_priv_key=SECRETS["priv key"],
    )  # fmt: skip
    TrapCredential.objects.create(
        device=switch, community=SECRETS["trap community"], v3_auth_key=SECRETS["trap auth key"]
    )
    Interface.objects.create(device=switch, name="fzhid-9", if_index=9, alias="Fz Hidden Port", speed_bps=10**9)
    graph = Graph.objects.create(device=switch, template="traffic", instance="fzhid-9", title="Fz Hidden Port traffic")
    Graph.objects.create(device=v3, template="cpu", instance="", title="Fz Hidden Port cpu")
    lag = AggregateGraph.objects.create(title="Fz Hidden LAG", template="traffic")
    lag.members.set([graph])
    tree = Tree.objects.create(name="Fz-Hidden-Tree")
    header = TreeNode.objects.create(tree=tree, kind="header", title="Fz-Hidden-Header")
    place_device(switch, header)
    place_device(v3, header)
    TreeNode.objects.create(tree=tree, parent=header, kind="aggregate", aggregate=lag)
    store([make(switch.pk, "link_down", "fz-hidden-event on fzhid-9", port="fzhid-9")])
    Channel.objects.create(name="fz hook", url=SECRETS["webhook url"], secret=SECRETS["webhook secret"])
    now = int(time.time())
    lines = [f"interface,device={switch.pk},port=fzhid-9 in_bps=5e8,out_bps=1e6 {now - 60 * k}" for k in range(30)]
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    open_switch = Device.objects.create(name="fz-open-switch", host="127.0.0.1", community=SECRETS["community"])
    opened = Tree.objects.create(name="Fz-Open-Tree")
    site = TreeNode.objects.create(tree=opened, kind="header", title="Fz-Open-Site")
    place_device(open_switch, site)
    TreeNode.objects.create(tree=opened, parent=site, kind="aggregate", aggregate=lag)  # its member stays hidden
    partial = django_user_model.objects.create_user("fz-partial", password="fz-partial-pass-1")
    opened.read_users.add(partial)
    reader = django_user_model.objects.create_user("fz-reader", password="fz-reader-pass-1")
    staff = django_user_model.objects.create_user("fz-staff", password="fz-staff-pass-1", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(codename__endswith="_device", content_type__app_label="monitor")
    )
    _, reader_raw = ApiToken.issue(reader, "fuzz")
    _, staff_raw = ApiToken.issue(staff, "fuzz", scope=ApiToken.Scope.WRITE)
    _, partial_raw = ApiToken.issue(partial, "fuzz")
    secrets = [*SECRETS.values(), reader_raw, staff_raw, partial_raw, settings.INFLUXDB_TOKEN, settings.SECRET_KEY]
    ids = {"device": [switch.pk, v3.pk, open_switch.pk], "graph": [graph.pk], "tree": [tree.pk, opened.pk]}
    return {
        "secrets": secrets,
        "ids": ids | {"aggregate": [lag.pk]},
        "hidden devices": {switch.pk, v3.pk},
        "tokens": {"reader": reader_raw, "staff": staff_raw, "partial": partial_raw},
    }


def load_schema(world: dict) -> schemathesis.BaseSchema:
    headers = {"Authorization": f"Bearer {world['tokens']['staff']}", "Accept": "application/vnd.oai.openapi+json"}
    return schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application(), headers=headers)


def operations(schema) -> list:
    """Every operation, reads first and deletions last (a deleted device is not there for the reads)."""
    found = [result.ok() for result in schema.get_all_operations()]
    order = {"GET": 0, "POST": 1, "PUT": 1, "PATCH": 1, "DELETE": 2}
    return sorted(found, key=lambda op: (order[op.method.upper()], op.path))


def keep_offline(case) -> None:
    """A device the fuzz adds or changes is saved without its SNMP test, on loopback: no DNS, no waiting on agents."""
    if isinstance(case.body, dict) and case.operation.path.startswith("/api/devices/") and case.method != "GET":
        case.body["host"], case.body["skip_test"] = "127.0.0.1", True


def judge(who: str, case, response, world: dict, seen: Counter) -> None:
    """The checks every answer passes: no 5xx, no secret, and nothing hidden from who may not read it."""
    text = response.content.decode("utf-8", "replace") + repr(dict(response.headers))
    where = f"{who}: {case.method} {case.formatted_path} {case.query} -> {response.status_code}"
    assert response.status_code < 500, where + "\n" + text[:500]
    for secret in world["secrets"]:
        assert secret not in text, f"{where} shows a secret"
    if who != "staff":
        allowed = {"Fz Hidden LAG"} if who == "partial" else set()  # the aggregate is in the partial reader's tree
        shown = [name for name in HIDDEN if name in text and name not in allowed]
        assert not shown, f"{where} shows {shown}"
        assert not devices_named(response, world["hidden devices"]), f"{where} names a hidden device by its id"
    if who == "anonymous":
        assert response.status_code in (401, 404), where
    seen[(case.operation.label, response.status_code)] += 1
    seen[("names", who)] += sum(name in text for name in HIDDEN)


def probes(operation, world: dict) -> list:
    """The id-probing attack: every object that exists, by its id, in each path and id query of the operation."""
    known = sorted({i for ids in world["ids"].values() for i in ids})
    body = {"media_type": "application/json", "body": {}} if operation.body else {}
    cases = [operation.Case(path_parameters={p.name: i}, **body) for p in operation.path_parameters for i in known]
    for parameter in operation.query:
        kind = parameter.name if parameter.name in world["ids"] else None
        if kind and not operation.path_parameters:
            cases.append(operation.Case(query={parameter.name: world["ids"][kind]}, **body))
    return cases


def devices_named(response, hidden: set[int]) -> set[int]:
    """The hidden devices a JSON answer refers to by id (a "device" key anywhere in it)."""
    if not response.headers.get("content-type", [""])[0].startswith("application/json"):
        return set()
    found, stack = set(), [response.json()]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            found |= {value["device"]} & hidden if isinstance(value.get("device"), int) else set()
            stack += value.values()
        elif isinstance(value, list):
            stack += value
    return found


def fuzz(who: str, world: dict, examples: int = EXAMPLES) -> Counter:
    """Every operation, positive then negative examples, then every known id in each path and id query, as `who`."""
    schema = load_schema(world)
    token = world["tokens"].get(who)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    seen: Counter = Counter()
    for operation in operations(schema):
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE) if examples else ():

            @fuzzing(
                max_examples=examples, derandomize=True, database=None, deadline=None,
                suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate],
            )  # fmt: skip
            @given(case=operation.as_strategy(generation_mode=mode))
            def one(case) -> None:
                keep_offline(case)
                judge(who, case, case.call(headers=headers), world, seen)

            one()
        for case in probes(operation, world):
            keep_offline(case)
            judge(who, case, case.call(headers=headers), world, seen)
    return seen


def test_fuzzing_as_an_anonymous_caller(world):
    seen = fuzz("anonymous", world)
    assert sum(n for (label, status), n in seen.items() if status == 401) > 100


def test_fuzzing_as_a_reader_granted_no_tree(world):
    seen = fuzz("reader", world)
    ok = {label for (label, status), n in seen.items() if status == 200}
    assert {"GET /api/devices/", "GET /api/events/", "GET /api/series", "GET /api/events/markers"} <= ok
    assert seen[("names", "reader")] == 0


def test_probing_every_id_as_a_reader_granted_an_aggregate_but_not_its_members(world):
    seen = fuzz("partial", world, examples=0)
    ok = {label for (label, status), n in seen.items() if status == 200}
    assert {"GET /api/aggregates/{object_id}/series", "GET /api/events/markers", "GET /api/trees/{id}/nodes/"} <= ok


def test_fuzzing_as_a_staff_user(world):
    seen = fuzz("staff", world)
    ok = {label for (label, status), n in seen.items() if status in (200, 201, 204)}
    assert {"GET /api/devices/{id}/", "GET /api/graphs/{object_id}/series", "GET /api/trees/{id}/nodes/"} <= ok
    assert seen[("names", "staff")] > 0  # the hidden objects exist and staff read them: the reader's check means it
