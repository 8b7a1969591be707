"""A device that stops answering backs off: one try per request, on fewer ticks; its first answer ends that."""

from __future__ import annotations

import time

import pytest

from monitor.core import services
from monitor.models import Device
from monitor.polling import backoff
from monitor.polling.run import BACKING_OFF, run_poll
from tests.snmpfake import FakeAgent
from tests.test_bad_snmp import device_mib

pytestmark = pytest.mark.django_db
INTERVAL = 15


def silent(request, raw) -> list[bytes]:
    return []


def poll_counting(agent: FakeAgent, device: Device, tick: int | None) -> tuple[str, int]:
    """Poll once for `tick`; the outcome and how many datagrams reached the agent."""
    before = len(agent.received)
    outcome = run_poll(device.pk, tick)
    return outcome, len(agent.received) - before


def test_a_silent_device_is_tried_once_a_minute_without_retries_until_it_answers(
    snmp_engine, clean_backends, settings, client, admin_user
):
    settings.MONITOR_UNREACHABLE_AFTER, settings.MONITOR_UNREACHABLE_POLL_S = 3, 60
    agent = FakeAgent(silent)
    try:
        device = Device.objects.create(
            name="gone", host="127.0.0.1", port=agent.port, timeout_s=0.3, retries=2, poll_interval_s=INTERVAL
        )
        now = int(time.time())
        ticks = [now - now % 60 - 120 + i * INTERVAL for i in range(13)]  # the first falls on a whole minute
        redis = services.redis_client()
        client.force_login(admin_user)

        tried = [poll_counting(agent, device, tick) for tick in ticks[:3]]
        assert all(outcome.startswith("failed: no SNMP response") for outcome, _ in tried)
        full = tried[0][1]
        assert full >= 3 and all(sent == full for _, sent in tried)  # each request sent 1 + 2 retries times
        assert backoff.silent_polls(redis, [device.pk]) == {device.pk: 3}
        assert 'id="backing-off"' in client.get(f"/devices/{device.pk}/").content.decode()

        assert poll_counting(agent, device, ticks[3]) == (BACKING_OFF, 0)  # 45 s past the minute: sat out
        outcome, sent = poll_counting(agent, device, ticks[4])  # the next whole minute: tried, once per request
        assert outcome.startswith("failed: no SNMP response") and sent * 3 == full
        for tick in ticks[5:8]:
            assert poll_counting(agent, device, tick) == (BACKING_OFF, 0)
        device.refresh_from_db()
        assert device.consecutive_failures == 4  # a tick sat out is not a failure

        agent.handler = device_mib()  # it answers again
        Device.objects.filter(pk=device.pk).update(timeout_s=5)  # an answer on a busy machine is never late
        assert poll_counting(agent, device, ticks[8])[0] == "ok"  # the minute after: tried, answered
        assert backoff.silent_polls(redis, [device.pk]) == {device.pk: 0}
        for tick in ticks[9:11]:  # from then on every tick, as before
            assert poll_counting(agent, device, tick)[0] == "ok"
        device.refresh_from_db()
        assert device.consecutive_failures == 0
        assert 'id="backing-off"' not in client.get(f"/devices/{device.pk}/").content.decode()

        agent.handler = silent  # silent again: retries come back until it has failed three more polls
        Device.objects.filter(pk=device.pk).update(timeout_s=0.3)
        outcome, sent = poll_counting(agent, device, ticks[11])
        assert outcome.startswith("failed: no SNMP response") and sent == full
    finally:
        agent.close()


def test_a_device_that_answers_with_errors_is_not_backed_off(snmp_engine, clean_backends, settings):
    settings.MONITOR_UNREACHABLE_AFTER = 1
    agent = FakeAgent(lambda request, raw: [b"<html>not SNMP</html>"])  # it answers, with garbage
    try:
        device = Device.objects.create(
            name="garbled", host="127.0.0.1", port=agent.port, timeout_s=5, retries=0, poll_interval_s=INTERVAL
        )
        now = int(time.time())
        for tick in (now - now % 60 + 15, now - now % 60 + 30):  # neither on a whole minute
            outcome, sent = poll_counting(agent, device, tick)
            assert outcome.startswith("failed: malformed SNMP response") and sent >= 1
        assert backoff.silent_polls(services.redis_client(), [device.pk]) == {device.pk: 0}
    finally:
        agent.close()


def test_a_poll_asked_for_by_hand_is_never_sat_out(snmp_engine, clean_backends, settings):
    settings.MONITOR_UNREACHABLE_AFTER = 1
    agent = FakeAgent(silent)
    try:
        device = Device.objects.create(
            name="gone", host="127.0.0.1", port=agent.port, timeout_s=0.3, retries=1, poll_interval_s=INTERVAL
        )
        for _ in range(2):
            outcome, sent = poll_counting(agent, device, None)
            assert outcome.startswith("failed: no SNMP response") and sent >= 1
    finally:
        agent.close()
