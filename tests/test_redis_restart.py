"""Redis killed and restarted under a running worker and beat while an alert fires: polling resumes, each tick
is polled at most once (or recorded as skipped), and each alert mail goes out exactly once."""

from __future__ import annotations

import time

import pytest

from monitor.alerts.models import Event
from monitor.devstack import services as devstack
from monitor.devstack.processes import free_port
from tests import test_alert_kit as kit
from tests.conftest import start_celery, wait_for
from tests.test_alert_kit import BASE, HIGH, SmtpServer, make_switch, subjects, util_rule
from tests.test_scheduler import polled_ticks

restore_rates = kit.restore_rates  # fixture
INTERVAL = 5


@pytest.mark.django_db(transaction=True)
def test_redis_killed_under_worker_and_beat_resumes_polling_without_a_tick_or_a_mail_twice(
    agent, clean_backends, restore_rates, stack_dir
):
    port, logs = free_port(), stack_dir / "log"
    redis = devstack.start_redis(stack_dir / "redis-under-load", port, logs)
    url = f"redis://127.0.0.1:{port}/0"
    server = SmtpServer().start()
    env = {**clean_backends, **server.env(), "REDIS_URL": url, "CELERY_BROKER_URL": url}
    device = make_switch(agent, name="redis-killed", poll_interval_s=INTERVAL)
    util_rule(device, for_polls=1)
    worker = start_celery("worker", env, logs, "--concurrency", "2", "-n", "redis-killed@%h")
    beat = start_celery("beat", env, logs, "-s", str(stack_dir / "beat-redis-killed"))
    try:
        wait_for(lambda: len(polled_ticks(device.pk)) >= 2, 60, "the first polls")
        agent.set_rate("1/g1-in", HIGH)
        wait_for(lambda: any("[FIRING]" in s for s in subjects(server)), 60, "the firing mail")
        time.sleep(1.5)  # the last claims reach Redis's append-only file (fsync every second, as deployed)
        redis.kill()
        killed_at = time.time()
        time.sleep(INTERVAL + 1)  # at least one tick falls in the outage
        redis = devstack.start_redis(stack_dir / "redis-under-load", port, logs)
        back_at = time.time()
        wait_for(lambda: [t for t in polled_ticks(device.pk) if t > back_at], 4 * INTERVAL, "polling to resume")
        agent.set_rate("1/g1-in", BASE["1/g1-in"])
        wait_for(lambda: any("[RECOVERED]" in s for s in subjects(server)), 60, "the recovery mail")
        time.sleep(2 * INTERVAL)  # a duplicate of either mail, or a tick polled again, would show by now
    finally:
        beat.stop()
        worker.stop()
        redis.stop()
        server.stop()
    ticks = polled_ticks(device.pk)
    assert len(ticks) == len(set(ticks)), f"a tick was polled twice: {ticks}"
    resumed = min(t for t in ticks if t > killed_at)
    assert resumed <= back_at + 2 * INTERVAL, f"first poll after the restart at tick {resumed}, Redis back at {back_at}"
    # The worker reconnects with a back-off, so the tick sent just before it is back can reach it together with
    # the next, on-time tick: both run at once and the second is skipped as an overrun, recorded as such (the first
    # poll ran a moment before it, so no sample is lost). Any other tick missing would be a hole.
    overruns = [t for t in polled_ticks(device.pk, "skipped_tick") if t > resumed and t not in ticks]
    covered = sorted([t for t in ticks if t >= resumed] + overruns)
    assert covered == list(range(resumed, covered[-1] + INTERVAL, INTERVAL)), f"a tick missed: {ticks}, {overruns}"
    assert len(overruns) <= 1, f"more than the tick queued during the outage was skipped: {overruns}"
    fired = [s for s in subjects(server) if "[FIRING]" in s]
    recovered = [s for s in subjects(server) if "[RECOVERED]" in s]
    assert len(fired) == 1 and len(recovered) == 1, subjects(server)
    assert set(Event.objects.filter(device=device).values_list("mail", flat=True)) <= {"sent", "none"}
