"""Trees are edited in the admin; a device is placed in a tree from its own admin page; rollups run from beat."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib import admin
from django.core.management import call_command
from django.test import RequestFactory

from monitor import queries, rollups
from monitor.models import Device
from monitor.trees.admin import DevicePlacementInline
from monitor.trees.models import ApiToken, Tree, TreeNode

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "s3cret-pass-123")
    client.force_login(user)
    client.session_user = user
    return client


def test_tree_admin_adds_nested_nodes(admin_client):
    response = admin_client.post(
        "/admin/trees/tree/add/",
        {
            "name": "Sites",
            "position": "0",
            "nodes-TOTAL_FORMS": "1",
            "nodes-INITIAL_FORMS": "0",
            "nodes-0-kind": "header",
            "nodes-0-title": "Berlin",
            "nodes-0-position": "1",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    tree = Tree.objects.get(name="Sites")
    assert list(tree.nodes.values_list("title", flat=True)) == ["Berlin"]


def test_device_admin_places_the_device_in_a_tree(admin_client):
    tree = Tree.objects.create(name="Sites")
    berlin = TreeNode.objects.create(tree=tree, kind="header", title="Berlin")
    device = Device.objects.create(name="sw1", host="127.0.0.1", community="public")
    add_page = admin_client.get("/admin/monitor/device/add/").content.decode()
    assert 'name="tree_nodes-TOTAL_FORMS"' in add_page  # the add form says where the device goes
    page = admin_client.get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert "places in graph trees" in page.lower() and 'name="tree_nodes-TOTAL_FORMS"' in page
    inline = DevicePlacementInline(Device, admin.site)
    request = RequestFactory().post("/")
    request.user = admin_client.session_user
    formset_class = inline.get_formset(request, device)
    data = {
        "tree_nodes-TOTAL_FORMS": "1",
        "tree_nodes-INITIAL_FORMS": "0",
        "tree_nodes-0-tree": str(tree.pk),
        "tree_nodes-0-parent": str(berlin.pk),
        "tree_nodes-0-position": "3",
    }
    formset = formset_class(data, instance=device, prefix="tree_nodes")
    assert formset.is_valid(), formset.errors
    formset.save()
    node = TreeNode.objects.get(device=device)
    assert (node.kind, node.parent, node.tree) == ("device", berlin, tree)
    bad = formset_class(data | {"tree_nodes-0-parent": str(node.pk)}, instance=device, prefix="tree_nodes")
    assert not bad.is_valid() and "only a header" in str(bad.errors)


def test_api_token_admin_shows_the_token_once(admin_client, django_user_model):
    user = django_user_model.objects.get(username="boss")
    response = admin_client.post("/admin/trees/apitoken/add/", {"user": user.pk, "name": "grafana"}, follow=True)
    token = ApiToken.objects.get(name="grafana")
    shown = [str(m) for m in response.context["messages"]]
    raw = shown[0].rsplit(" ", 1)[-1]
    assert ApiToken.hash(raw) == token.digest


def test_rollup_job_is_scheduled_and_backfill_command_creates_tiers(stack_env):
    assert settings.CELERY_BEAT_SCHEDULE["rollups"]["task"] == "monitor.rollups.rollup_recent"
    from monitor.celery import app

    app.loader.import_default_modules()
    assert "monitor.rollups.rollup_recent" in app.tasks
    call_command("rollup_backfill", "--days", "1")
    api = queries.client().buckets_api()
    for tier in rollups.tiers():
        bucket = api.find_bucket_by_name(tier.bucket)
        assert [r.every_seconds for r in bucket.retention_rules] == [tier.retention_days * 86400]


def test_the_rollup_job_writes_min_mean_and_max_of_recent_samples(clean_backends):
    import time

    from influxdb_client.client.write_api import SYNCHRONOUS

    now = int(time.time())
    window = now - now % 300 - 300  # the last closed five minutes
    values = [10.0, 40.0, 25.0, 5.0, 70.0]
    lines = [f"interface,device=777,port=r/1 in_bps={v} {window + 60 * i}" for i, v in enumerate(values)]
    queries.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    rollups.rollup_recent()  # what beat runs every five minutes
    found = {}
    for bucket in (f"{settings.INFLUXDB_BUCKET}_5m", f"{settings.INFLUXDB_BUCKET}_1h"):
        script = f'from(bucket: "{bucket}") |> range(start: -3h) |> filter(fn: (r) => r.device == "777")'
        for table in queries.client().query_api().query(script):
            for record in table.records:
                found[(bucket[-2:], record.values["stat"], int(record.get_time().timestamp()))] = record.get_value()
    assert found[("5m", "min", window)] == 5.0
    assert found[("5m", "max", window)] == 70.0
    assert found[("5m", "mean", window)] == sum(values) / 5
    hour = window - window % 3600
    assert found[("1h", "max", hour)] == 70.0 and found[("1h", "min", hour)] == 5.0


def test_late_samples_are_rolled_up_once_marked_and_only_then(clean_backends):
    """The job looks back 15 minutes; samples written late (a spool replay) are rolled up from their mark on."""
    import time

    from influxdb_client.client.write_api import SYNCHRONOUS

    from monitor import services

    now = int(time.time())
    window = now - now % 300 - 3600  # an hour ago: outside the job's look-back
    lines = [f"interface,device=778,port=r/2 in_bps={v} {window + 60 * i}" for i, v in enumerate((3.0, 9.0, 6.0))]
    queries.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=settings.INFLUXDB_BUCKET, org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )

    def rolled() -> dict:
        bucket = f"{settings.INFLUXDB_BUCKET}_5m"
        script = f'from(bucket: "{bucket}") |> range(start: -3h) |> filter(fn: (r) => r.device == "778")'
        return {
            (r.values["stat"], int(r.get_time().timestamp())): r.get_value()
            for table in queries.client().query_api().query(script)
            for r in table.records
        }

    assert rollups.rollup_recent() == 1
    assert rolled() == {}  # an hour old and not marked: not the job's business
    rollups.mark_late(services.redis_client(), window + 30.0)
    assert rollups.rollup_recent() == 1
    assert rolled() == {("min", window): 3.0, ("mean", window): 6.0, ("max", window): 9.0}
    assert services.redis_client().zcard(rollups.LATE_KEY) == 0  # the mark is done with


def test_one_rollup_run_at_a_time_and_a_long_backlog_goes_in_day_chunks(clean_backends):
    import time

    from monitor import services

    redis = services.redis_client()
    redis.set(rollups.RUNNING_KEY, "another-host:4242", ex=60)  # a run on another poller machine
    rollups.mark_late(redis, time.time() - 2.5 * 86400)
    assert rollups.rollup_recent() == 0  # not a second run beside it
    assert redis.zcard(rollups.LATE_KEY) == 1
    redis.delete(rollups.RUNNING_KEY)
    assert rollups.rollup_recent() == 3  # two and a half days of late samples: three one-day chunks
    assert redis.zcard(rollups.LATE_KEY) == 0 and not redis.exists(rollups.RUNNING_KEY)
