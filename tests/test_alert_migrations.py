"""Data migrations of alert states, run on a database at the migration before them: what they change and what they
leave."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(target: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def _states_after(before: str, after: str, devices: dict[str, str], planted: list[tuple]) -> dict:
    """Plant alert states on a database whose alerts app stands at `before` (every other app as it stands now),
    migrate to `after`; {(device, metric, instance): (state, count, alerted)} then. `devices`: name -> profile;
    `planted`: (device name, rule metric, instance, state)."""
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    others = [leaf for leaf in latest if leaf[0] != "alerts"]
    try:
        apps = _migrate([("alerts", before), *others])
        device_model, rule_model = apps.get_model("monitor", "Device"), apps.get_model("alerts", "Rule")
        made = {
            name: device_model.objects.create(name=name, host=f"127.0.0.{n}", profile=profile)
            for n, (name, profile) in enumerate(devices.items(), 1)
        }
        rules = {
            metric: rule_model.objects.create(name=metric, metric=metric, fire_level=1, clear_level=1)
            for metric in ("temperature", "array_health")
        }
        for device, metric, instance, state in planted:
            apps.get_model("alerts", "AlertState").objects.create(
                rule=rules[metric], device=made[device], instance=instance, state=state, count=3,
                alerted=state == "firing",
            )  # fmt: skip
        apps = _migrate([("alerts", after), *others])
        rows = apps.get_model("alerts", "AlertState").objects.all()
        return {(s.device.name, s.rule.metric, s.instance): (s.state, s.count, s.alerted) for s in rows}
    finally:
        _migrate(latest)


def test_0012_sets_storage_center_temperature_states_under_bare_names_back_to_ok_and_leaves_the_rest():
    """A Dell SC's temperature states kept under bare sensor names are never observed again (the rule names them by
    their controller since 0011): 0012 sets them ok. Another rule's state on the SC, and another array's temperature
    state, stay as they were."""
    found = _states_after(
        "0011_rule_metric_replication_lag_disk_life",
        "0012_storage_center_temperature_names",
        {"sc-1": "dell-storage-sc", "eql-1": "dell-equallogic"},
        [
            ("sc-1", "temperature", "CPU One", "firing"),
            ("sc-1", "temperature", "Temp Sensor 1", "pending"),
            ("sc-1", "temperature", "CPU Two", "ok"),
            ("sc-1", "array_health", "Disk 01-02", "firing"),
            ("eql-1", "temperature", "Backplane sensor 0", "firing"),
        ],
    )
    assert found == {
        ("sc-1", "temperature", "CPU One"): ("ok", 0, False),
        ("sc-1", "temperature", "Temp Sensor 1"): ("ok", 0, False),
        ("sc-1", "temperature", "CPU Two"): ("ok", 3, False),  # already ok: untouched
        ("sc-1", "array_health", "Disk 01-02"): ("firing", 3, True),
        ("eql-1", "temperature", "Backplane sensor 0"): ("firing", 3, True),
    }


def test_0015_sets_equallogic_states_under_bare_part_and_sensor_names_back_to_ok_and_leaves_the_rest():
    """An EqualLogic's disks, temperatures, fans and power supplies are named by their member from 0015 on: their
    states under the bare names are set ok; a member's, a volume's or a replication's part keeps its state, and so
    does another array's disk."""
    eql = [
        ("temperature", "Backplane sensor 0"),
        ("array_health", "Disk 1"),
        ("array_health", "Power supply PCM 1"),
        ("array_health", "Fan Fan 2"),
        ("array_health", "Temperature Backplane sensor 0"),
        ("array_health", "Member RAID eql-member-1"),
        ("array_health", "Volume vmfs-1"),
        ("array_health", "Replication vmfs-1 dr-site"),
    ]
    found = _states_after(
        "0014_rule_metric_disk_life_equallogic",
        "0015_alert_state_missed_equallogic_names",
        {"eql-1": "dell-equallogic", "nas-1": "synology-dsm"},
        [("eql-1", metric, instance, "firing") for metric, instance in eql]
        + [("nas-1", "array_health", "Disk 1", "firing")],
    )
    firing = {(device, instance) for (device, _, instance), (state, _, _) in found.items() if state == "firing"}
    assert firing == {
        ("eql-1", "Member RAID eql-member-1"),
        ("eql-1", "Volume vmfs-1"),
        ("eql-1", "Replication vmfs-1 dr-site"),
        ("nas-1", "Disk 1"),
    }
