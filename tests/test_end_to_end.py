"""The whole slice on real processes: celery beat schedules, a real worker polls snmpsim, the API serves rates."""

import itertools
import os
import time

import pytest
from django.utils import timezone

from monitor.celery import app
from monitor.devstack.processes import free_udp_port
from monitor.models import Device, Graph
from tests.conftest import start_celery, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def api_points(client, graph: Graph) -> list:
    response = client.get(f"/api/graphs/{graph.pk}/series", {"start": "now-15m", "end": "now", "points": "300"})
    assert response.status_code == 200, response.content
    return {s["field"]: s["points"] for s in response.json()["series"]}


def test_beat_and_worker_poll_and_api_returns_the_agent_rates(agent, clean_backends, client, admin_user, stack_dir):
    device = Device.objects.create(
        name="e2e-switch", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=5, timeout_s=1.0
    )
    worker = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "2", "-n", "e2e@%h")
    beat = start_celery("beat", clean_backends, stack_dir / "log", "-s", str(stack_dir / "beat-schedule"))
    client.force_login(admin_user)
    try:
        graph = wait_for(lambda: Graph.objects.filter(device=device, instance="1/g3").first(), 45, "the first poll")
        points = wait_for(
            lambda: (p := api_points(client, graph)) and len(p["in_bps"]) >= 3 and p, 45, "three rates from the worker"
        )
    finally:
        beat.stop()
        worker.stop()
    for _t_ms, low, mean, high in points["in_bps"]:
        assert mean == pytest.approx(3 * 1_250_000 * 8, rel=0.01)
        assert low <= mean <= high
    for point in points["out_bps"]:
        assert point[2] == pytest.approx(3 * 625_000 * 8, rel=0.01)
    times = [p[0] for p in points["in_bps"]]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert all(4000 <= gap <= 6000 for gap in gaps), gaps  # one poll per 5 s interval, none doubled


def worker_niceness(pid: int) -> list[int]:
    """The niceness of a worker's main process and of its pool's processes."""
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
        children = [int(child) for child in handle.read().split()]
    return [os.getpriority(os.PRIO_PROCESS, p) for p in [pid, *children]]


def test_dead_agent_is_reported_and_does_not_delay_other_devices(agent, clean_backends, client, admin_user, stack_dir):
    healthy = Device.objects.create(
        name="healthy", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=5, timeout_s=1.0
    )
    dead = Device.objects.create(
        name="dead",
        host="127.0.0.1",
        port=free_udp_port(),
        community="switch",
        poll_interval_s=5,
        timeout_s=2.0,
        retries=1,
    )
    worker = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "2", "-n", "fail@%h")
    try:
        wait_for(lambda: app.control.ping(timeout=0.5), 30, "the worker to start")
        assert worker_niceness(worker.popen.pid) == [max(10, os.getpriority(os.PRIO_PROCESS, 0))] * 3  # and its pool
        tick = int(time.time())
        sent = timezone.now()
        app.send_task("monitor.poll_device", args=(dead.pk,), kwargs={"tick": tick})
        app.send_task("monitor.poll_device", args=(healthy.pk,), kwargs={"tick": tick})
        wait_for(lambda: Device.objects.get(pk=healthy.pk).last_success_at, 20, "the healthy device's poll")
        healthy.refresh_from_db()
        assert (healthy.last_success_at - sent).total_seconds() < 3.0  # the dead one takes 4 s to time out
        wait_for(lambda: Device.objects.get(pk=dead.pk).last_error, 20, "the dead device's error")
    finally:
        worker.stop()
    dead.refresh_from_db()
    assert "no SNMP response" in dead.last_error
    assert dead.consecutive_failures == 1 and dead.last_success_at is None
    client.force_login(admin_user)
    page = client.get(f"/devices/{dead.pk}/").content.decode()
    assert "no SNMP response" in page and "not answering" in page
    admin_page = client.get(f"/admin/monitor/device/{dead.pk}/change/").content.decode()
    assert "no SNMP response" in admin_page
    assert 'value="switch"' not in admin_page  # the community is never shown back
