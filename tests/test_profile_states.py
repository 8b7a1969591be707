"""Status codes as states (issue 43): a profile maps each code a MIB defines to one vocabulary (ok, warning,
degraded, rebuilding, failed) with the vendor's word kept; a code the map does not name is a warning, never ok;
broken maps are refused at start, naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from collectors.profiles import BUILTIN_DIR, load_profiles
from monitor.devices import profiles as monitor_profiles


def metric(profile, table: str, name: str):
    return next(m for t in profile.tables if t.name == table for m in t.metrics if m.name == name)


# EQLDISK-MIB eqlDiskStatus and EQLMEMBER-MIB eqlMemberRaidStatus, as the MIBs define the codes
DISK = {1: "on-line", 2: "spare", 3: "failed", 4: "off-line", 9: "unhealthy", 13: "preempt-failed"}
RAID = {1: "ok", 2: "degraded", 3: "verifying", 4: "reconstructing", 5: "failed", 6: "catastrophicLoss"}


def test_equallogic_disk_and_raid_codes_read_as_states_with_the_mibs_words():
    eql = load_profiles([BUILTIN_DIR])["dell-equallogic"]
    disk, raid = metric(eql, "disks", "status"), metric(eql, "members", "raid_status")
    assert {code: disk.state_of(code) for code in DISK} == {
        1: ("ok", "on-line"),
        2: ("ok", "spare"),
        3: ("failed", "failed"),
        4: ("warning", "off-line"),
        9: ("warning", "unhealthy"),  # predicted to fail
        13: ("failed", "preempt-failed"),
    }
    assert [raid.state_of(code)[0] for code in RAID] == ["ok", "degraded", "ok", "rebuilding", "failed", "failed"]
    assert [raid.state_of(code)[1] for code in RAID] == list(RAID.values())
    assert disk.state_of(42) == ("warning", "unknown (42)")  # a code the MIB does not define: never ok
    assert disk.state_of(1.5) == ("warning", "unknown (1.5)")
    assert disk.state_of(None) is None and metric(eql, "disks", "size_bytes").state_of(1) is None


BROKEN = {
    "no-map.yaml": "name: no-map\nmetrics:\n  - {name: status, oid: 1.3.6.1.4.1.9.1.0, states: nowhere}\n",
    "bad-state.yaml": "name: bad-state\nstate_maps: {s: {1: [fine, ok]}}\nmetrics:\n"
    "  - {name: status, oid: 1.3.6.1.4.1.9.1.0, states: s}\n",
    "bad-code.yaml": "name: bad-code\nstate_maps: {s: {one: [ok, ok]}}\n",
    "bare-on.yaml": "name: bare-on\nstate_maps: {s: {1: [ok, on]}}\n",
    "counter-state.yaml": "name: counter-state\nstate_maps: {s: {1: [ok, ok]}}\nmetrics:\n"
    "  - {name: status, oid: 1.3.6.1.4.1.9.1.0, type: counter, states: s}\n",
    "more-alone.yaml": "name: more-alone\nstate_maps: {s: {more: [failed, failed]}}\n",
    "parse-groups.yaml": "name: parse-groups\ntables:\n  - {name: t, measurement: volume, tags: [{name: volume, "
    "column: 1.3.6.1.4.1.9.1.2, parse: '(a)(b)'}], metrics: [{name: size_bytes, column: 1.3.6.1.4.1.9.1.3}]}\n",
    # one table's rows carry the other's tags and more: the first's map would read them too
    "within.yaml": "name: within\nstate_maps: {a: {1: [ok, up]}}\ntables:\n"
    "  - {name: narrow, measurement: replication, tags: [{name: volume, column: 1.3.6.1.4.1.9.1.1.2}],"
    " metrics: [{name: status, column: 1.3.6.1.4.1.9.1.1.3, states: a}]}\n"
    "  - {name: wide, measurement: replication, tags: [{name: volume, column: 1.3.6.1.4.1.9.2.1.2},"
    " {name: partner, column: 1.3.6.1.4.1.9.2.1.4}],"
    " metrics: [{name: status, column: 1.3.6.1.4.1.9.2.1.3, states: a}]}\n",
    "only-what.yaml": "name: only-what\ntables:\n  - {name: t, measurement: replication, only: {metric: nothing, "
    "values: [0]}, tags: [{name: volume, column: 1.3.6.1.4.1.9.1.2}], metrics: [{name: lag_s, column: "
    "1.3.6.1.4.1.9.1.3, type: age}]}\n",
    # an owner put into a tag the table does not have
    "into-nowhere.yaml": "name: into-nowhere\ntables:\n  - {name: t, measurement: disk, tags: [{name: member, index: 0,"
    " into: slot}, {name: disk, column: 1.3.6.1.4.1.9.1.2}], metrics: [{name: size_bytes, column: "
    "1.3.6.1.4.1.9.1.3}]}\n",
    # two tables of look-alike rows mapping a status each their own way: whose row is whose could not be told
    "look-alike.yaml": "name: look-alike\nstate_maps: {a: {1: [ok, up]}, b: {1: [failed, broken]}}\ntables:\n"
    + "".join(
        f"  - {{name: t{n}, measurement: replication, tags: [{{name: volume, column: 1.3.6.1.4.1.9.{n}.1.2}}],"
        f" metrics: [{{name: status, column: 1.3.6.1.4.1.9.{n}.1.3, states: {m}}}]}}\n"
        for n, m in ((1, "a"), (2, "b"))
    ),
}


def test_a_broken_state_map_is_refused_naming_the_file_and_the_field(tmp_path: Path, settings):
    for name, text in BROKEN.items():
        (tmp_path / name).write_text(text)
    settings.MONITOR_PROFILE_DIRS = [str(tmp_path)]
    problems = "\n".join(monitor_profiles.problems())
    assert "no-map.yaml: metrics.status.states: no state map named 'nowhere'" in problems
    assert "bad-state.yaml: state_maps: 1: 'fine' is not one of ok, warning, degraded, rebuilding, failed" in problems
    assert "bad-code.yaml: state_maps: 'one': a status code is an integer" in problems
    assert "counter-state.yaml: metrics[0]: states: only a gauge" in problems
    assert "bare-on.yaml: state_maps: 1: write the vendor's word in quotes" in problems
    assert "more-alone.yaml: state_maps: more: only beside a code it comes after" in problems
    assert "parse-groups.yaml: tables[0].tags[0]: parse: one regex group, on a column's own text" in problems
    assert "within.yaml: tables.wide.status: its rows look like those of table 'narrow'" in problems
    assert "only-what.yaml: tables[0].only.metric: 'nothing' is not a gauge of this table" in problems
    assert "look-alike.yaml: tables.t2.status: its rows look like those of table 't1'" in problems
    assert "into-nowhere.yaml: tables[0].tags[0].into: 'slot' is not another tag of this table" in problems


def test_a_count_reads_as_a_state_above_the_codes_named_with_the_count_in_its_word():
    """NETAPP-MIB's disk summary and environment are counts: 0 failed disks is ok, any more is failed ("2 failed");
    no spare is a warning, one or more ok. A count below those named, or not whole, is still never ok."""
    netapp = load_profiles([BUILTIN_DIR])["netapp-ontap"]
    scalar = {m.name: m for m in netapp.scalars}
    failed, spare, prefailed = scalar["disks_failed"], scalar["disks_spare"], scalar["disks_prefailed"]
    assert [failed.state_of(n) for n in (0, 1, 2, 40)] == [
        ("ok", "none"),
        ("failed", "1 failed"),
        ("failed", "2 failed"),
        ("failed", "40 failed"),
    ]
    assert [spare.state_of(n) for n in (0, 1, 4)] == [
        ("warning", "no spare"),
        ("ok", "1 spare(s)"),
        ("ok", "4 spare(s)"),
    ]
    assert prefailed.state_of(3) == ("warning", "3 prefailed")
    assert scalar["disks_reconstructing"].state_of(1) == ("rebuilding", "1 reconstructing")
    assert scalar["fans_failed"].state_of(1) == ("degraded", "1 failed")  # one of several fans: still cooling
    assert failed.state_of(-1) == ("warning", "unknown (-1)")
    assert spare.state_of(2.5) == ("warning", "unknown (2.5)")


def test_snapmirror_codes_of_both_tables_read_as_states_with_the_mibs_words():
    """7-Mode snapmirrorStatus/State number from 1, clustered ONTAP's snapmirrorRelStatus/State from 0 (NETAPP-MIB)."""
    netapp = load_profiles([BUILTIN_DIR])["netapp-ontap"]
    seven, cdot = "snapmirror", "snapmirror_relations"
    assert [metric(netapp, seven, "state").state_of(c) for c in (1, 2, 3, 4, 5)] == [
        ("warning", "uninitialized"),
        ("ok", "snapmirrored"),
        ("degraded", "brokenOff"),  # the destination made writable: no more replicas
        ("degraded", "quiesced"),
        ("ok", "source"),
    ]
    assert metric(netapp, seven, "status").state_of(7) == ("rebuilding", "resyncing")
    assert metric(netapp, cdot, "status").state_of(0) == ("ok", "idle")
    assert metric(netapp, cdot, "status").state_of(5) == ("degraded", "quiesced")
    # codes newer ONTAP adds past breaking(12) (SnapMirror Synchronous) are no alarm: ONTAP's verdict is `healthy`
    assert metric(netapp, cdot, "status").state_of(18) == ("ok", "18 (a newer status code)")
    assert metric(netapp, cdot, "state").state_of(2) == ("degraded", "brokenOff")
    assert metric(netapp, cdot, "healthy").state_of(0) == ("degraded", "false")


def test_a_profile_adds_maps_to_those_it_extends(tmp_path: Path):
    (tmp_path / "base.yaml").write_text(
        "name: base\nabstract: true\nstate_maps: {a: {1: [ok, up]}, b: {1: [ok, 'on']}}\n"
    )
    (tmp_path / "child.yaml").write_text(
        "name: child\nextends: [base]\nstate_maps: {b: {1: [failed, 'off']}}\nmetrics:\n"
        "  - {name: one, oid: 1.3.6.1.4.1.9.1.0, states: a}\n  - {name: two, oid: 1.3.6.1.4.1.9.2.0, states: b}\n"
    )
    child = load_profiles([tmp_path])["child"]
    assert [m.state_of(1) for m in child.scalars] == [("ok", "up"), ("failed", "off")]  # its own b replaces the base's


def test_synology_codes_read_as_states_with_the_mibs_words():
    syno = load_profiles([BUILTIN_DIR])["synology-dsm"]
    raid, health = metric(syno, "raids", "status"), metric(syno, "disks", "health")
    power = next(m for m in syno.scalars if m.name == "power_status")
    assert [raid.state_of(c) for c in (1, 2, 7, 11, 12, 13, 21)] == [
        ("ok", "Normal"),
        ("rebuilding", "Repairing"),
        ("rebuilding", "RaidSyncing"),
        ("degraded", "Degrade"),
        ("failed", "Crashed"),
        ("ok", "DataScrubbing"),  # a background task, no alarm
        ("warning", "RaidUnknownStatus"),
    ]
    assert [health.state_of(c) for c in (1, 2, 3, 4)] == [
        ("ok", "Normal"),
        ("warning", "Warning"),
        ("failed", "Critical"),
        ("failed", "Failing"),
    ]
    assert power.state_of(2) == ("degraded", "Failed")  # one of two power supplies: still serving


def test_storage_center_and_nimble_volume_states():
    profiles = load_profiles([BUILTIN_DIR])
    sc, nimble = profiles["dell-storage-sc"], profiles["hpe-nimble"]
    assert [metric(sc, "volumes", "status").state_of(c) for c in (1, 2, 3)] == [
        ("ok", "up"),
        ("failed", "down"),
        ("degraded", "degraded"),
    ]  # DELL-STORAGE-SC-MIB ScStatus
    assert next(m for m in sc.scalars if m.name == "global_status").state_of(5) == ("failed", "critical")
    assert metric(nimble, "volumes", "online").state_of(2) == ("warning", "offline")  # volOnline false(2)


@pytest.mark.parametrize("name", ["dell-equallogic", "synology-dsm", "netapp-ontap", "dell-storage-sc", "hpe-nimble"])
def test_every_state_map_of_a_shipped_profile_is_used(name):
    import yaml

    data = yaml.safe_load((BUILTIN_DIR / f"{name}.yaml").read_text())
    used = {m.get("states") for t in data.get("tables", []) for m in t["metrics"]} | {
        m.get("states") for m in data.get("metrics", [])
    }
    assert set(data["state_maps"]) <= used


def test_owners_put_into_a_name_in_the_order_listed_and_an_owner_without_a_name_adds_nothing(tmp_path: Path):
    """`into`: a rack's and a shelf's names before a disk's, in the order the profile lists them; a shelf whose name
    column is empty (or an owner whose lookup finds no name) adds nothing; the owners are not tags of their own."""
    from collectors.metrics import _lookup, _row_tags
    from collectors.snmptypes import SnmpValue

    (tmp_path / "owners.yaml").write_text(
        "name: owners\ntables:\n  - {name: disks, measurement: disk, tags: [{name: rack, index: 0, lookup: {column: "
        "1.3.6.1.4.1.9.2.1.2}, into: disk}, {name: shelf, column: 1.3.6.1.4.1.9.1.1.3, into: disk}, {name: disk, "
        "column: 1.3.6.1.4.1.9.1.1.2}], metrics: [{name: size_bytes, column: 1.3.6.1.4.1.9.1.1.4}]}\n"
    )
    table = load_profiles([tmp_path])["owners"].tables[0]
    text = lambda s: SnmpValue("octets", s.encode())  # noqa: E731
    walked = {
        "1.3.6.1.4.1.9.2.1.2": {(7,): text("rack-7")},  # rack 8 has no name
        "1.3.6.1.4.1.9.1.1.3": {(7, 1): text("shelf-A"), (8, 1): text("")},
        "1.3.6.1.4.1.9.1.1.2": {(7, 1): text("0"), (8, 1): text("0")},
    }
    lookups = {"rack": _lookup(walked["1.3.6.1.4.1.9.2.1.2"], 0)}
    assert _row_tags(table, walked, (7, 1), lookups) == {"disk": "rack-7 shelf-A 0"}
    assert _row_tags(table, walked, (8, 1), lookups) == {"disk": "0"}
