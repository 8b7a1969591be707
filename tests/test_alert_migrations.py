"""Data migrations of alert states, run on a database at the migration before them: what they change and what they
leave."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = ("alerts", "0011_rule_metric_replication_lag_disk_life")
SC_NAMES = ("alerts", "0012_storage_center_temperature_names")


def _migrate(target: list[tuple[str, str]]):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_0012_sets_storage_center_temperature_states_under_bare_names_back_to_ok_and_leaves_the_rest():
    """A Dell SC's temperature states kept under bare sensor names are never observed again (the rule names them by
    their controller since 0011): 0012 sets them ok. Another rule's state on the SC, and another array's temperature
    state, stay as they were."""
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        others = [leaf for leaf in latest if leaf[0] != "alerts"]  # every other app as it stands
        apps = _migrate([BEFORE, *others])
        device_model, rule_model = apps.get_model("monitor", "Device"), apps.get_model("alerts", "Rule")
        state_model = apps.get_model("alerts", "AlertState")
        sc = device_model.objects.create(name="sc-1", host="127.0.0.1", profile="dell-storage-sc")
        eql = device_model.objects.create(name="eql-1", host="127.0.0.2", profile="dell-equallogic")
        rules = {
            metric: rule_model.objects.create(name=metric, metric=metric, fire_level=1, clear_level=1)
            for metric in ("temperature", "array_health")
        }
        planted = [
            (sc, "temperature", "CPU One", "firing"),
            (sc, "temperature", "Temp Sensor 1", "pending"),
            (sc, "temperature", "CPU Two", "ok"),
            (sc, "array_health", "Disk 01-02", "firing"),
            (eql, "temperature", "Backplane sensor 0", "firing"),
        ]
        for device, metric, instance, state in planted:
            state_model.objects.create(
                rule=rules[metric], device=device, instance=instance, state=state, count=3, alerted=state == "firing"
            )
        apps = _migrate([SC_NAMES, *others])
        after = apps.get_model("alerts", "AlertState").objects.all()
        found = {(s.device.name, s.rule.metric, s.instance): (s.state, s.count, s.alerted) for s in after}
        assert found == {
            ("sc-1", "temperature", "CPU One"): ("ok", 0, False),
            ("sc-1", "temperature", "Temp Sensor 1"): ("ok", 0, False),
            ("sc-1", "temperature", "CPU Two"): ("ok", 3, False),  # already ok: untouched
            ("sc-1", "array_health", "Disk 01-02"): ("firing", 3, True),
            ("eql-1", "temperature", "Backplane sensor 0"): ("firing", 3, True),
        }
    finally:
        _migrate(latest)


@pytest.mark.django_db(transaction=True)
def test_0015_sets_equallogic_states_under_bare_part_and_sensor_names_back_to_ok_and_leaves_the_rest():
    """An EqualLogic's disks, temperatures, fans and power supplies are named by their member from 0015 on: their
    states under the bare names are set ok; a member's, a volume's or a replication's part keeps its state, and so
    does another array's disk."""
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    others = [leaf for leaf in latest if leaf[0] != "alerts"]
    try:
        apps = _migrate([("alerts", "0014_rule_metric_disk_life_equallogic"), *others])
        device_model, rule_model = apps.get_model("monitor", "Device"), apps.get_model("alerts", "Rule")
        state_model = apps.get_model("alerts", "AlertState")
        eql = device_model.objects.create(name="eql-1", host="127.0.0.1", profile="dell-equallogic")
        nas = device_model.objects.create(name="nas-1", host="127.0.0.2", profile="synology-dsm")
        rules = {
            metric: rule_model.objects.create(name=metric, metric=metric, fire_level=1, clear_level=1)
            for metric in ("temperature", "array_health")
        }
        planted = [
            (eql, "temperature", "Backplane sensor 0"),
            (eql, "array_health", "Disk 1"),
            (eql, "array_health", "Power supply PCM 1"),
            (eql, "array_health", "Fan Fan 2"),
            (eql, "array_health", "Temperature Backplane sensor 0"),
            (eql, "array_health", "Member RAID eql-member-1"),
            (eql, "array_health", "Volume vmfs-1"),
            (eql, "array_health", "Replication vmfs-1 dr-site"),
            (nas, "array_health", "Disk 1"),
        ]
        for device, metric, instance in planted:
            state_model.objects.create(rule=rules[metric], device=device, instance=instance, state="firing", count=1)
        apps = _migrate([("alerts", "0015_alert_state_missed_equallogic_names"), *others])
        after = apps.get_model("alerts", "AlertState").objects.all()
        firing = {(s.device.name, s.instance) for s in after if s.state == "firing"}
        assert firing == {
            ("eql-1", "Member RAID eql-member-1"),
            ("eql-1", "Volume vmfs-1"),
            ("eql-1", "Replication vmfs-1 dr-site"),
            ("nas-1", "Disk 1"),
        }
    finally:
        _migrate(latest)
