"""celery beat: aligned ticks per device, devices picked up without a restart, two beats poll once per tick."""

import time

import pytest

from monitor.celery import app
from monitor.models import Device
from monitor.polling.scheduler import aligned_every, device_phase
from tests import influxq
from tests.conftest import start_celery, wait_for


def test_ticks_are_aligned_to_the_clock_with_a_per_device_phase():
    schedule = aligned_every(60, 7)
    assert schedule.current_tick(1_000_000_000.0) == 999_999_967  # 7 + k*60 <= now
    assert schedule.current_tick(999_999_967.0) == 999_999_967
    assert 0 <= device_phase(42, 60) < 60
    assert device_phase(42, 60) == device_phase(42, 60)  # stable across beat restarts


def polled_ticks(device_id: int, field: str = "tick") -> list[int]:
    """The scheduled ticks the device's polls were for (or, with skipped_tick, skipped as overruns), in order."""
    script = influxq.bind(
        'from(bucket: params.bucket) |> range(start: -10m) |> filter(fn: (r) => r._measurement == "poller"'
        " and r.device == params.device and r._field == params.field)",
        {"bucket": "monitor", "device": str(device_id), "field": field},
    )
    tables = influxq.query(script)
    return sorted(int(record.get_value()) for table in tables for record in table.records)


def assert_each_tick_polled_once(device_id: int) -> None:
    """Every tick from the first poll to the last was polled exactly once, or skipped and recorded as an overrun."""
    ticks = polled_ticks(device_id)
    assert len(ticks) == len(set(ticks)), f"a tick was polled twice: {ticks}"
    overruns = [t for t in polled_ticks(device_id, "skipped_tick") if t not in ticks]  # a slow first poll
    covered = sorted(ticks + overruns)
    assert covered == list(range(covered[0], covered[-1] + 5, 5)), f"a tick was missed: {ticks}, skipped {overruns}"
    assert len(overruns) <= 1, overruns


@pytest.mark.django_db(transaction=True)
def test_two_beats_still_poll_each_tick_once_and_new_devices_are_picked_up(agent, clean_backends, stack_dir):
    log_dir = stack_dir / "log"
    worker = start_celery("worker", clean_backends, log_dir, "--concurrency", "2", "-n", "sched@%h")
    wait_for(lambda: app.control.ping(timeout=0.5), 30, "the worker to start")
    beats = [start_celery("beat", clean_backends, log_dir, "-s", str(stack_dir / f"beat-{n}")) for n in (1, 2)]
    try:
        time.sleep(3)  # both beats are running before the device exists
        device = Device.objects.create(
            name="sched", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=5, timeout_s=1.0
        )
        wait_for(lambda: len(polled_ticks(device.pk)) >= 4, 40, "four polls")
    finally:
        for beat in beats:
            beat.stop()
        worker.stop()
    assert_each_tick_polled_once(device.pk)


@pytest.mark.django_db(transaction=True)
def test_a_restarted_beat_polls_every_tick_once(agent, clean_backends, stack_dir):
    log_dir = stack_dir / "log"
    device = Device.objects.create(
        name="restart", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=5, timeout_s=1.0
    )
    worker = start_celery("worker", clean_backends, log_dir, "--concurrency", "2", "-n", "restart@%h")
    wait_for(lambda: app.control.ping(timeout=0.5), 30, "the worker to start")
    beat = start_celery("beat", clean_backends, log_dir, "-s", str(stack_dir / "beat-restart-1"))
    try:
        wait_for(lambda: len(polled_ticks(device.pk)) >= 2, 40, "two polls")
        beat.kill()  # beat dies without warning
        beat = start_celery("beat", clean_backends, log_dir, "-s", str(stack_dir / "beat-restart-2"))
        wait_for(lambda: len(polled_ticks(device.pk)) >= 5, 50, "five polls")
    finally:
        beat.stop()
        worker.stop()
    assert_each_tick_polled_once(device.pk)  # none twice, none missed across the restart
