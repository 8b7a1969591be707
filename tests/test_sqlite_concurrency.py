"""The embedded database (SQLite) with every writer at once: admin saves wait their turn instead of failing.

The demo runs the web server, Celery workers, beat and the receivers on one SQLite file. A deferred transaction
that reads and then writes while another process holds the write lock got "database is locked" at once, whatever
the busy timeout (SQLite refuses it to avoid a deadlock): the admin answered 500 three saves in four.
"""

from __future__ import annotations

import socket
import subprocess
import threading

import pytest

from monitor.events.models import Event
from monitor.events.traps import TrapReceiver
from monitor.models import Device
from tests.conftest import start_celery, wait_for
from tests.test_admin_devices import form, management_data

pytestmark = pytest.mark.django_db(transaction=True)
SAVES = 25


def raw_trap(receiver_port: int) -> bytes:
    """A v2c linkDown trap's bytes as Net-SNMP's snmptrap sends them (captured on a socket of our own)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        subprocess.run(
            ["snmptrap", "-v", "2c", "-c", "traps", f"127.0.0.1:{sock.getsockname()[1]}", "", "1.3.6.1.6.3.1.1.5.3",
             "1.3.6.1.2.1.2.2.1.1.5", "i", "5"],
            check=True, timeout=20,
        )  # fmt: skip
        return sock.recvfrom(65535)[0]


def test_admin_saves_succeed_while_pollers_and_receivers_write(agent, clean_backends, admin_client, stack_dir):
    from django.db import connection

    assert connection.vendor == "sqlite"
    for n in range(8):
        Device.objects.create(
            name=f"busy-{n}", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=5, timeout_s=1
        )
    Device.objects.create(name="trapper", host="127.0.0.2", community="traps", poll_interval_s=3600)
    admin_client.post("/admin/monitor/device/add/", {**management_data(admin_client), **form()})
    edited = Device.objects.get(name="core-1")
    url = f"/admin/monitor/device/{edited.pk}/change/"
    worker = start_celery("worker", clean_backends, stack_dir / "log", "--concurrency", "2", "-n", "lock@%h")
    beat = start_celery("beat", clean_backends, stack_dir / "log", "-s", str(stack_dir / "beat-lock"))
    trapd = TrapReceiver("127.0.0.1", 0, name="trap@lock").start()
    stop, sent = threading.Event(), [0]

    def flood():
        payload = raw_trap(trapd.port)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind(("127.0.0.2", 0))
            while not stop.is_set() and sent[0] < 3000:
                sock.sendto(payload, ("127.0.0.1", trapd.port))
                sent[0] += 1
                stop.wait(0.005)

    flooder = threading.Thread(target=flood, daemon=True)
    try:
        wait_for(lambda: Device.objects.filter(name__startswith="busy-", last_poll_at__isnull=False).count() >= 4,
                 60, "the worker polling")  # fmt: skip
        flooder.start()
        wait_for(
            lambda: Event.objects.filter(device__name="trapper", source="trap").exists(),
            30,
            "the receiver storing traps",
        )
        statuses = []
        for n in range(SAVES):
            data = {**management_data(admin_client, url), **form(community="", timeout_s=str(1 + n % 5))}
            statuses.append(admin_client.post(url, data).status_code)
    finally:
        stop.set()
        flooder.join(10)
        beat.stop()
        worker.stop()
    try:
        wait_for(
            lambda: Event.objects.filter(device__name="trapper", source="trap").count() >= sent[0],
            60,
            "every trap stored",
        )
    finally:
        trapd.stop()
    assert statuses == [302] * SAVES
    assert Event.objects.filter(device__name="trapper", source="trap").count() == sent[0], dict(trapd.counts.totals)


def test_pages_read_while_another_process_holds_an_exclusive_write(admin_client, db_file):
    """WAL mode: a reader never waits for a writer. In SQLite's default journal mode an EXCLUSIVE transaction (what a
    writer takes to commit) locks readers out, so a page answered "database is locked" after the busy timeout."""
    import sqlite3

    from django.db import connection

    Device.objects.create(name="read-me", host="127.0.0.1", community="switch", poll_interval_s=3600)
    connection.close()
    assert connection.cursor().execute("PRAGMA journal_mode").fetchone() == ("wal",)
    connection.close()
    options = connection.settings_dict["OPTIONS"]
    options["timeout"] = 0.5  # a reader that waited would fail in half a second
    writer = sqlite3.connect(db_file, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("UPDATE monitor_device SET name = 'renamed' WHERE name = 'read-me'")
    try:
        page = admin_client.get("/admin/monitor/device/")
        names = list(Device.objects.values_list("name", flat=True))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
        connection.close()
        options["timeout"] = 20
    assert page.status_code == 200 and "read-me" in page.content.decode()
    assert names == ["read-me"]  # what was committed, not the writer's uncommitted change
