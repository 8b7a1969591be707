"""Poller groups are Celery queues: two real workers on two queues and a beat; a device is polled by its group only."""

from __future__ import annotations

import base64
import json

import pytest

from monitor.core import services
from monitor.models import Device
from tests.conftest import start_celery, wait_for

pytestmark = pytest.mark.django_db(transaction=True)


def device(agent, name: str, group: str) -> Device:
    return Device.objects.create(
        name=name,
        host="127.0.0.1",
        port=agent.port,
        community="switch",
        poll_interval_s=5,
        timeout_s=1.0,
        poller_group=group,
    )


def last_poll(pk: int):
    return Device.objects.get(pk=pk).last_poll_at


def queued_devices(queue: str) -> list[int]:
    """Device ids of the poll messages waiting in a Redis-backed Celery queue."""
    ids = []
    for raw in services.redis_client().lrange(queue, 0, -1):
        message = json.loads(raw)
        if message.get("headers", {}).get("task") != "monitor.poll_devices":
            continue  # beat's other tasks (retention, path refresh...) wait in the default queue too
        body = json.loads(base64.b64decode(message["body"]))
        ids += body[0][0]  # monitor.poll_devices(device_ids, tick)
    return ids


def test_each_group_is_polled_by_its_own_worker(agent, clean_backends, stack_dir):
    site_a, site_b = device(agent, "site-a-switch", "groupa"), device(agent, "site-b-switch", "groupb")
    log = stack_dir / "log"
    worker_a = start_celery("worker", clean_backends, log, "-Q", "groupa", "-c", "1", "-n", "groupa@%h")
    worker_b = start_celery("worker", clean_backends, log, "-Q", "groupb", "-c", "1", "-n", "groupb@%h")
    beat = start_celery("beat", clean_backends, log, "-s", str(stack_dir / "beat-groups"))
    try:
        wait_for(lambda: Device.objects.get(pk=site_a.pk).last_success_at, 45, "the group A device's first poll")
        wait_for(lambda: Device.objects.get(pk=site_b.pk).last_success_at, 45, "the group B device's first poll")
        worker_b.stop()  # site B's poller goes away: only its devices may go stale
        b_stopped_at, a_before = last_poll(site_b.pk), last_poll(site_a.pk)
        wait_for(lambda: last_poll(site_a.pk) > a_before, 20, "group A to keep polling")
        a_middle = last_poll(site_a.pk)
        wait_for(lambda: last_poll(site_a.pk) > a_middle, 20, "group A to poll again")
        wait_for(lambda: site_b.pk in queued_devices("groupb"), 20, "site B's poll to wait in its queue")
        assert last_poll(site_b.pk) == b_stopped_at  # nobody else polled site B
        assert set(queued_devices("groupb")) == {site_b.pk}
        assert site_b.pk not in queued_devices("groupa") and site_b.pk not in queued_devices("celery")
    finally:
        beat.stop()
        worker_a.stop()
        worker_b.stop()
    site_a.refresh_from_db()
    assert site_a.last_error == "" and site_a.consecutive_failures == 0
