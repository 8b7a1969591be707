"""Synology disks' wear and bad sectors (issue 43): the real DSM recording (22 disks, from a DSM release whose
SYNOLOGY-DISK-MIB had no diskBadSector or diskRemainLife yet), given those two columns as a DSM 7 serves them, is
read through the product's own poll path: a disk with bad sectors is a warning with its count, one that does not
report them is not, and a rule on remaining life sees only the disks that report it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import services
from monitor.devstack.processes import free_udp_port

DSM = Path(__file__).resolve().parents[2] / "shared" / "snmprec" / "dsm.snmprec"
DISK = "1.3.6.1.4.1.6574.2.1.1"
# diskIndex: (diskBadSector, diskRemainLife); -1 is what a disk serves that does not report the figure
ADDED = {0: (0, 95), 1: (12, 7), 2: (-1, -1)}


def _key(line: str) -> tuple[int, ...]:
    return tuple(int(part) for part in line.split("|", 1)[0].split("."))


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    assert DSM.is_file(), f"the shared recording is missing: {DSM}"
    data = tmp_path_factory.mktemp("dsm") / "data"
    data.mkdir()
    shutil.copy(DSM, data / "dsm.snmprec")
    lines = [line for line in DSM.read_text().splitlines() if line]
    for index, (bad, life) in ADDED.items():
        lines += [f"{DISK}.9.{index}|2|{bad}", f"{DISK}.11.{index}|2|{life}"]
    (data / "dsm7.snmprec").write_text("\n".join(sorted(lines, key=_key)) + "\n")  # snmpsim needs OID order
    port = free_udp_port()
    process = services.start_snmpsim(data, port, data.parent / "log", name="snmpsim-dsm")
    yield port
    process.stop()


def poll(port: int, community: str):
    profile = registry()["synology-dsm"]
    target = SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)
    return profile, aio.run(poll_device(target, community, None, profile=profile, engine="fast"))


def test_bad_sectors_are_a_warning_with_their_count_and_life_left_is_kept(agent):
    from monitor.storage.health import readings

    profile, result = poll(agent, "dsm7")
    assert [e for e in result.errors if not e.startswith("sysUpTime")] == []
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["Disk bad sectors Disk 1"] == ("ok", "none")
    assert found["Disk bad sectors Disk 2"] == ("warning", "12 bad sector(s)")
    assert found["Disk bad sectors Disk 3"] == ("ok", "not reported")
    life = {s.tags["disk"]: s.fields.get("remaining_life_pct") for s in result.samples if s.measurement == "disk"}
    assert (life["Disk 1"], life["Disk 2"], life["Disk 3"]) == (95, 7, -1)


def test_a_remaining_life_rule_sees_the_disks_that_report_it(agent):
    from monitor.alerts.rules import METRICS, format_value, observe

    profile, result = poll(agent, "dsm7")
    seen = {o.instance: o.value for o in observe(METRICS["disk_life"], result.samples, "", profile)}
    assert seen == {"Disk 1": 95.0, "Disk 2": 7.0}  # Disk 3's -1 is "not reported", not "worn out"
    assert format_value(METRICS["disk_life"], "absolute", 7.0) == "7.0 %"


def test_the_older_dsm_without_those_columns_reads_as_before(agent):
    from monitor.storage.health import readings

    profile, result = poll(agent, "dsm")
    assert not any(part.startswith("Disk bad sectors") for part, _, _ in readings(profile, result.samples))
    disks = [s for s in result.samples if s.measurement == "disk"]
    assert len(disks) == 22 and all("remaining_life_pct" not in s.fields for s in disks)
