"""The monitor's own events: a reboot seen in sysUpTime by a real poll, port renames, speed and link changes seen
by the inventory, devices added and rediscovered; and the retention."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from collectors.discovery import Discovery, Identity
from collectors.interfaces import Port
from monitor.devices import inventory
from monitor.events import retention
from monitor.events.models import Event
from monitor.models import Device, Interface
from monitor.polling.run import run_poll

pytestmark = pytest.mark.django_db(transaction=True)


def kinds(device) -> list[tuple[str, str, str]]:
    return list(Event.objects.filter(device=device).order_by("id").values_list("kind", "port", "text"))


def test_a_reboot_seen_by_a_poll_is_an_event(agent, clean_backends):
    device = Device.objects.create(
        name="reboots", host="127.0.0.1", port=agent.port, community="switch", poll_interval_s=2, timeout_s=1.0
    )
    assert run_poll(device.pk) == "ok"
    time.sleep(2)
    assert run_poll(device.pk) == "ok"
    assert not Event.objects.filter(device=device, kind="reboot").exists()
    agent.reboot()  # uptime and counters restart from zero
    time.sleep(1.5)
    before = timezone.now()
    assert run_poll(device.pk) == "ok"
    (reboot,) = Event.objects.filter(device=device, kind="reboot")
    assert reboot.text == "Rebooted: sysUpTime went back (up 0 min)" and reboot.severity == 4
    assert before <= reboot.time <= timezone.now() and reboot.source == "monitor"


def _port(if_index: int, name: str, speed: int = 1_000_000_000, up: bool | None = True) -> Port:
    return Port(if_index, name, "", speed, up, True, None, None)


def test_port_renames_speed_and_link_changes_and_rediscovery(stack_env):
    device = Device.objects.create(name="inventory-switch", host="127.0.0.9", community="x")
    inventory.sync_ports(device, [_port(1, "1/g1"), _port(2, "1/g2"), _port(3, "1/g3")])
    assert Interface.objects.filter(device=device).count() == 3
    assert kinds(device) == [("device_added", "", "Device inventory-switch added (127.0.0.9)")]
    inventory.sync_ports(device, [_port(1, "1/g1", speed=100_000_000), _port(2, "1/g2", up=False), _port(3, "te1/0/3")])
    assert kinds(device)[1:] == [
        ("speed_changed", "1/g1", "Speed of 1/g1: 1 Gbit/s → 100 Mbit/s"),
        ("port_down", "1/g2", "1/g2 went down (seen by a poll)"),
        ("port_renamed", "te1/0/3", "ifIndex 3 renamed: 1/g3 → te1/0/3"),
    ]
    inventory.sync_ports(device, [_port(1, "1/g1", speed=100_000_000), _port(2, "1/g2"), _port(3, "te1/0/3")])
    assert kinds(device)[-1] == ("port_up", "1/g2", "1/g2 came up (seen by a poll)")
    found = Discovery(Identity("d", "1.3", "s"), "generic", "sysObjectID")
    inventory.record_discovery(device, found)  # the first discovery is not an event
    assert kinds(device)[-1][0] == "port_up"
    inventory.record_discovery(device, Discovery(Identity("d", "1.3", "s"), "dell-powerconnect-62xx", "sysObjectID"))
    assert kinds(device)[-1] == ("rediscovered", "", "Rediscovered: profile dell-powerconnect-62xx (was generic)")


def test_retention_deletes_only_what_is_older(stack_env, settings):
    device = Device.objects.create(name="old-events", host="127.0.0.9", community="x")
    now = timezone.now()
    Event.objects.bulk_create(
        [Event(device=device, time=now - timedelta(days=d), source="syslog", kind="syslog", severity=6, text=str(d))
         for d in (1, 89, 91, 400)]
    )  # fmt: skip
    settings.EVENTS_RETENTION_DAYS = 90
    assert retention.prune(now=now) == 2
    assert sorted(Event.objects.filter(device=device, kind="syslog").values_list("text", flat=True)) == ["1", "89"]


def test_the_store_bound_is_exact_and_never_pushes_out_stored_events(stack_env, settings):
    """Past EVENTS_MAX_STORED the writer stores what fits and counts the rest; the old rows all stay."""
    from monitor.events.counting import Counts
    from monitor.events.writer import Incoming, Writer

    device = Device.objects.create(name="full", host="127.0.0.9", community="x")
    settings.EVENTS_MAX_STORED = 1000
    Event.objects.all().delete()
    Event.objects.bulk_create(
        [Event(device=device, time=timezone.now(), source="syslog", kind="syslog", severity=6, text="old")
         for _ in range(995)]
    )  # fmt: skip
    writer = Writer("syslog@bound", "syslog", Counts())
    batch = [Incoming(device.pk, "syslog", 6, f"new {n}", "syslog", time.time()) for n in range(10)]
    assert [e.text for e in writer.write(batch)] == [f"new {n}" for n in range(5)]
    assert writer.write(batch[:3]) == []
    assert writer.counts.totals == {"stored": 5, "store_full": 8}
    assert Event.objects.count() == 1000 and Event.objects.filter(text="old").count() == 995
    Event.objects.filter(text="new 0").delete()  # retention made room: seen at the next measure
    writer._next_capacity = 0.0
    assert [e.text for e in writer.write(batch[9:])] == ["new 9"]


def test_a_batch_the_database_refuses_is_counted_once_per_message(stack_env, settings):
    """A batch that still fails after the retries is write_failed; what the bound refused first is store_full only."""
    from django.db import DatabaseError

    from monitor.events.counting import Counts
    from monitor.events.writer import Incoming, Writer

    settings.EVENTS_MAX_STORED = 1000
    Event.objects.all().delete()
    device = Device.objects.create(name="refused", host="127.0.0.9", community="x")
    Event.objects.bulk_create(
        [Event(device=device, time=timezone.now(), source="syslog", kind="syslog", severity=6, text="old")
         for _ in range(997)]
    )  # fmt: skip
    writer = Writer("syslog@refused", "syslog", Counts())
    batch = [Incoming(987654, "syslog", 6, "no such device", "syslog", time.time())]  # the row's foreign key fails
    batch += [Incoming(device.pk, "syslog", 6, f"new {n}", "syslog", time.time()) for n in range(2)]
    with pytest.raises(DatabaseError):
        writer.write_retrying(batch, attempts=2)
    assert writer.counts.totals == {"store_full": 1, "write_failed": 2}
    assert Event.objects.count() == 998  # the old rows and the device's "added" event, nothing of the batch
