"""A device of a batch is free for its next tick once its samples are written, not when the batch's slowest is done."""

from __future__ import annotations

import threading
import time

import pytest

from monitor.core import services
from monitor.models import Device
from monitor.polling.run import RUNNING_KEY, run_polls
from tests.snmpfake import FakeAgent
from tests.test_bad_snmp import device_mib

pytestmark = pytest.mark.django_db


def test_a_healthy_device_is_freed_and_its_counters_kept_while_a_silent_one_of_its_batch_still_waits(
    snmp_engine, clean_backends
):
    answering, silent = FakeAgent(device_mib()), FakeAgent(lambda request, raw: [])
    try:
        healthy = Device.objects.create(name="healthy", host="127.0.0.1", port=answering.port, timeout_s=1.0)
        dead = Device.objects.create(name="dead", host="127.0.0.1", port=silent.port, timeout_s=2.0, retries=1)
        redis, store = services.redis_client(), services.counter_store()
        held = RUNNING_KEY.format(device=healthy.pk), RUNNING_KEY.format(device=dead.pk)
        seen: list[tuple[float, bool, bool, bool]] = []  # (time, healthy held, dead held, healthy counters kept)
        stop = threading.Event()

        def watch() -> None:
            while not stop.is_set():
                seen.append(
                    (
                        time.monotonic(),
                        *(bool(redis.exists(key)) for key in held),
                        store.load(str(healthy.pk)) is not None,
                    )
                )
                time.sleep(0.02)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        started = time.monotonic()
        outcomes = run_polls([healthy.pk, dead.pk], tick=int(time.time()))
        ended = time.monotonic()
        stop.set()
        watcher.join(2)
    finally:
        answering.close()
        silent.close()
    assert outcomes[healthy.pk] == "ok" and outcomes[dead.pk].startswith("failed: no SNMP response")
    assert ended - started >= 3.5  # the silent device held the batch for its two 2-s timeouts
    assert any(h for _, h, _, _ in seen)  # the healthy device was held while polled
    freed = [t for t, h, d, kept in seen if not h and d and kept]  # free, counters kept, the silent one still polled
    assert freed and freed[0] - started < 2.0, "the healthy device was held until the batch ended"
    assert not any(redis.exists(key) for key in held)  # and both are free at the end
