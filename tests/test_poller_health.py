"""Poller health: the poll path's own counters, the stale list, the page, /metrics and the self-samples, on real
Redis and InfluxDB with agents on loopback (a silent one is a UDP socket that stops answering)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from prometheus_client.parser import text_string_to_metric_families

from collectors.state import OPEN_KEY
from monitor.celery import app
from monitor.core import services
from monitor.graphs.trees.models import ApiToken
from monitor.health import figures, sampling
from monitor.models import Device
from monitor.polling import stats
from monitor.polling.run import run_polls
from monitor.timeseries import pollers
from tests.snmpfake import FakeAgent
from tests.test_bad_snmp import device_mib

pytestmark = pytest.mark.django_db
INTERVAL = 2
COMMUNITY = "hush-c0mmunity-9"


def silent(request, raw) -> list[bytes]:
    return []


def make(name: str, agent: FakeAgent, group: str = "") -> Device:
    return Device.objects.create(
        name=name,
        host="127.0.0.1",
        port=agent.port,
        community=COMMUNITY,
        poll_interval_s=INTERVAL,
        timeout_s=0.3,
        retries=0,
        poller_group=group,
    )


def metrics(text: str) -> dict[tuple[str, tuple], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def test_a_device_that_goes_silent_is_listed_within_two_intervals_with_its_reason(
    clean_backends, client, admin_user, django_user_model
):
    good_agent, quiet_agent = FakeAgent(device_mib()), FakeAgent(device_mib())
    try:
        good, quiet = make("good", good_agent), make("quiet", quiet_agent, group="edge")
        for _ in range(2):
            outcomes = run_polls([good.pk, quiet.pk])
            assert outcomes == {good.pk: "ok", quiet.pk: "ok"}
            time.sleep(INTERVAL + 0.05)
        assert figures.health().stale == []

        quiet_agent.handler = silent
        went_silent = time.monotonic()
        listed_after = None
        while time.monotonic() - went_silent < 4 * INTERVAL:
            outcomes = run_polls([good.pk, quiet.pk])
            assert outcomes[good.pk] == "ok" and outcomes[quiet.pk].startswith("failed: no SNMP response")
            stale = [s.device.pk for s in figures.health().stale]
            if quiet.pk in stale:
                listed_after = time.monotonic() - went_silent
                break
            time.sleep(INTERVAL / 2)
        assert listed_after is not None and listed_after <= 2 * INTERVAL + 1.0, listed_after

        health = figures.health()
        assert [s.device.pk for s in health.stale] == [quiet.pk]
        assert "no SNMP response" in health.stale[0].reason
        groups = {g.name: g for g in health.groups}
        assert set(groups) == {"default", "edge"}
        assert groups["default"].devices == groups["edge"].devices == 1
        assert groups["default"].failures == groups["default"].timeouts == 0
        assert groups["edge"].timeouts >= 1 and groups["edge"].failures == groups["edge"].timeouts
        polls = groups["default"].polls_per_min * health.window_s / 60
        assert polls == pytest.approx(groups["edge"].polls_per_min * health.window_s / 60)
        assert 4 <= round(polls) <= 8  # two before, two or three after the silence
        assert groups["default"].p50_s is not None and groups["default"].p50_s <= 1.0
        assert groups["default"].oldest_good_s is not None and groups["default"].oldest_good_s < INTERVAL
        assert groups["edge"].oldest_good_s is None  # its only device is stale
        assert groups["default"].rollup_lag_s < INTERVAL + 1  # windows close with the next poll
        (worker,) = health.workers
        assert worker.name == stats.worker_name() and worker.seen_s < 5 and worker.spool_bytes == 0

        page = client.get("/pollers/")
        assert page.status_code == 302 and page["Location"].startswith("/login/")
        client.force_login(admin_user)
        text = client.get("/pollers/").content.decode()
        assert f'<tr class="stale" data-device="{quiet.pk}">' in text
        assert f'data-device="{good.pk}" class="fresh"' in text
        assert COMMUNITY not in text
        assert 'id="poller-problems"' in client.get("/").content.decode()

        viewer = django_user_model.objects.create_user("viewer", password="x-pass-12345")
        client.force_login(viewer)
        assert client.get("/pollers/").status_code == 403
        assert 'id="poller-problems"' not in client.get("/").content.decode()
    finally:
        good_agent.close()
        quiet_agent.close()


def test_metrics_need_a_staff_token_and_say_what_the_page_says(clean_backends, client, admin_user, django_user_model):
    agent = FakeAgent(silent)
    try:
        device = make("gone", agent, group="edge")
        assert run_polls([device.pk])[device.pk].startswith("failed: no SNMP response")
        # Its 5-minute window ended two minutes ago and no poll has closed it yet (as when polls stop).
        services.redis_client().zadd(OPEN_KEY, {str(device.pk): time.time() - 120})
        assert client.get("/metrics").status_code == 401
        _, viewer_token = ApiToken.issue(django_user_model.objects.create_user("v", password="x-pass-12345"), "v")
        assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {viewer_token}").status_code == 403
        _, token = ApiToken.issue(admin_user, "prometheus")
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
        assert response.status_code == 200 and response["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.content.decode()
        assert COMMUNITY not in text and token not in text
        found = metrics(text)
        edge = (("group", "edge"), ("worker", ""))
        assert found[("snmp_monitor_devices", edge)] == 1.0
        assert found[("snmp_monitor_poll_timeouts_window", edge)] == 1.0
        assert found[("snmp_monitor_poll_failures_window", edge)] == 1.0
        assert found[("snmp_monitor_devices_stale", ())] == 1.0  # never had a good poll
        assert found[("snmp_monitor_queue_messages", edge)] == 0.0
        assert found[("snmp_monitor_rollup_lag_seconds", edge)] == pytest.approx(120, abs=5)
        assert found[("snmp_monitor_rollup_lag_all_seconds", ())] == pytest.approx(120, abs=5)
        worker = (("group", ""), ("worker", stats.worker_name()))
        assert found[("snmp_monitor_spool_bytes", worker)] == 0.0
        assert found[("snmp_monitor_worker_last_batch_age_seconds", worker)] < 5
    finally:
        agent.close()


def test_polls_waiting_in_a_group_queue_are_counted(clean_backends):
    Device.objects.create(name="far", host="127.0.0.1", community=COMMUNITY, poller_group="far-site")
    broker = services.redis_client()
    try:
        for _ in range(3):  # no worker serves this queue
            app.send_task("monitor.poll_devices", args=([1],), queue="far-site")
        groups = {g.name: g for g in figures.health().groups}
        assert groups["far-site"].queued == 3
        assert "group far-site: 3 polls waiting in its queue" in figures.health().problems
    finally:
        broker.delete("far-site")


def test_the_figures_are_written_as_samples_and_read_back_as_history(clean_backends):
    good_agent = FakeAgent(device_mib())
    try:
        device = make("good", good_agent, group="core")
        assert run_polls([device.pk]) == {device.pk: "ok"}
        now = time.time()
        written = sampling.record(now)
        assert written == 2  # one group, one worker
        end = datetime.now(timezone.utc) + timedelta(minutes=1)
        groups = pollers.history("poller_group", end - timedelta(minutes=10), end)
        workers = pollers.history("poller_worker", end - timedelta(minutes=10), end)
    finally:
        good_agent.close()
    assert list(groups) == ["core"]
    assert groups["core"]["devices"][-1][1] == 1.0 and groups["core"]["stale"][-1][1] == 0.0
    assert groups["core"]["polls_per_min"][-1][1] > 0
    assert abs(groups["core"]["devices"][-1][0] / 1000 - now) < 61  # at the start of its minute's step
    assert list(workers) == [stats.worker_name()]
    assert workers[stats.worker_name()]["spool_bytes"][-1][1] == 0.0


def test_spool_state_and_duration_percentiles(tmp_path):
    from collectors.influx import InfluxWriter

    empty = InfluxWriter("http://127.0.0.1:9", "t", "o", "b", tmp_path / "none")
    assert stats.spool_state(empty, 1000.0) == {"spool_bytes": 0, "spool_age_s": 0}
    spooled = tmp_path / "a-1-raw.lp"
    spooled.write_text("x" * 1500)
    import os

    os.utime(spooled, (900.0, 900.0))
    writer = InfluxWriter("http://127.0.0.1:9", "t", "o", "b", tmp_path)
    assert stats.spool_state(writer, 1000.0) == {"spool_bytes": 1500, "spool_age_s": 100.0}
    tally = stats.BatchStats()
    for duration in [0.04] * 90 + [3.0] * 10:
        tally.poll("g", duration)
    buckets = {name[3:]: count for (group, name), count in tally.counts.items() if name.startswith("le_")}
    assert figures.percentile(buckets, 0.5) == 0.05
    assert figures.percentile(buckets, 0.95) == 5.0
    assert figures.percentile({}, 0.5) is None
