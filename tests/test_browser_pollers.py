"""A real Chromium watches the poller health page while a real worker and beat poll three devices: the one that
goes silent turns red within two intervals, the others' last good polls stay younger than one interval."""

from __future__ import annotations

import time

import pytest

from monitor.models import Device
from tests.browser import chromium_page, log_in
from tests.conftest import start_celery, wait_for
from tests.snmpfake import FakeAgent
from tests.test_bad_snmp import device_mib

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
INTERVAL = 4


def silent(request, raw) -> list[bytes]:
    return []


def test_the_health_page_turns_a_silent_device_red_within_two_intervals(
    clean_backends, live_server, django_user_model, stack_dir, monkeypatch
):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    django_user_model.objects.create_superuser("boss", password="s3cret-pass-123")
    agents = [FakeAgent(device_mib()) for _ in range(3)]
    devices = [
        Device.objects.create(
            name=f"sw-{i}",
            host="127.0.0.1",
            port=agent.port,
            community="private-c0mmunity",
            poll_interval_s=INTERVAL,
            timeout_s=0.5,
            retries=0,
        )
        for i, agent in enumerate(agents)
    ]
    worker = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "2", "-n", "health@%h")
    beat = start_celery("beat", clean_backends, stack_dir / "log", "-s", str(stack_dir / "beat-health"))
    try:
        wait_for(
            lambda: Device.objects.filter(last_success_at__isnull=False).count() == 3, 60, "every device's first poll"
        )
        time.sleep(INTERVAL)  # a second poll each: the ages below are between polls, not since the first
        with chromium_page() as page:
            log_in(page, live_server.url, "boss", "s3cret-pass-123", "/pollers/")
            assert page.locator("#no-stale").count() == 1
            assert page.locator("#all-devices tr.fresh").count() == 3
            assert "private-c0mmunity" not in page.content()

            agents[1].handler = silent
            went_silent = time.monotonic()
            red = f"#all-devices tr.stale[data-device='{devices[1].pk}']"
            while page.locator(red).count() == 0:
                assert time.monotonic() - went_silent < 2 * INTERVAL + 3, "not red within two intervals"
                time.sleep(0.5)
                page.reload()
            turned_red = time.monotonic() - went_silent
            assert turned_red <= 2 * INTERVAL + 1.5, turned_red
            assert page.locator(f"#stale-devices tr.stale[data-device='{devices[1].pk}']").count() == 1
            assert "no SNMP response" in page.locator("#stale-devices").inner_text()
            for device in (devices[0], devices[2]):
                age = float(
                    page.locator(f"#all-devices tr[data-device='{device.pk}'] td.age").get_attribute("data-age-s")
                )
                # Younger than one interval, give or take the jitter of dispatching two polls (tenths of a second).
                assert age < INTERVAL + 0.5, (device.name, age)
            # The home page says something is wrong, and links here.
            page.goto(f"{live_server.url}/")
            assert "1 device(s) without a good poll for 2 intervals" in page.locator("#poller-problems").inner_text()
    finally:
        beat.stop()
        worker.stop()
        for agent in agents:
            agent.close()
