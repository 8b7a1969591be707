"""Conformance: real device recordings (../shared/snmprec and snmpsim-data) served by snmpsim, matched and read."""

import bz2
import shutil
from pathlib import Path

import pytest
import snmpsim_data

from collectors.discovery import discover
from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import services
from monitor.devstack.processes import free_udp_port

SHARED = Path(__file__).resolve().parents[2] / "shared" / "snmprec"
PACKAGE = Path(snmpsim_data.__file__).parent / "data"

# recording -> (source file, expected profile)
RECORDINGS = {
    "pc6248": (SHARED / "powerconnect_3011.snmprec", "dell-powerconnect-62xx"),
    "n1524p": (SHARED / "powerconnect_3064.snmprec", "dell-powerconnect-62xx"),
    "pc2824": (SHARED / "powerconnect_2824.snmprec", "generic"),  # Radlan firmware, not FASTPATH
    "eql": (SHARED / "equallogic.snmprec", "dell-equallogic"),
    "dsm": (SHARED / "dsm.snmprec", "synology-dsm"),
    "c3560": (PACKAGE / "network/switch/cisco-c3560.snmprec.bz2", "generic"),
    "procurve": (PACKAGE / "network/switch/hpe-procurve-516733-b21.snmprec.bz2", "generic"),
    "linux": (PACKAGE / "os/linux/unknown-006.snmprec.bz2", "net-snmp-host"),
    "netapp": (PACKAGE / "storage/netapp-fas3270.snmprec.bz2", "netapp-ontap"),
    "netapp823": (PACKAGE / "storage/netapp-ontap-8-2-3.snmprec.bz2", "netapp-ontap"),
}


@pytest.fixture(scope="module")
def recordings_agent(tmp_path_factory):
    assert SHARED.is_dir(), f"the shared recordings are missing: expected them at {SHARED}"
    data = tmp_path_factory.mktemp("recordings")
    for community, (source, _) in RECORDINGS.items():
        target = data / f"{community}.snmprec"
        if source.suffix == ".bz2":
            target.write_bytes(bz2.decompress(source.read_bytes()))
        else:
            shutil.copy(source, target)
    port = free_udp_port()
    process = services.start_snmpsim(data, port, data.parent / "log", name="snmpsim-recordings")
    yield port, data
    process.stop()


def declared_and_recorded(profile, recording: Path) -> tuple[set[str], set[str]]:
    """Scalar metrics whose OID the recording has, and tables any of whose columns it has."""
    oids = {line.split("|", 1)[0] for line in recording.read_text(errors="replace").splitlines() if "|" in line}
    scalars = {m.name for m in profile.scalars if any(o in oids for o in m.oids)}
    tables = {
        t.name for t in profile.tables if any(o.startswith(c + ".") for m in t.metrics for c in m.oids for o in oids)
    }
    return scalars, tables


@pytest.mark.parametrize("community", list(RECORDINGS))
def test_recording_matches_its_profile_and_every_recorded_metric_reads(recordings_agent, community):
    port, data = recordings_agent
    target = SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)
    found = aio.run(discover(target, registry()))
    assert found.profile == RECORDINGS[community][1], found.matched_by
    profile = registry()[found.profile]
    first = aio.run(poll_device(target, community, None, profile=profile))
    result = aio.run(poll_device(target, community, first.state, profile=profile))
    scalars, tables = declared_and_recorded(profile, data / f"{community}.snmprec")
    read = {name for name, _tags, value, _unit in result.values if isinstance(value, float)}
    assert scalars <= read, f"declared and recorded but not read: {scalars - read}; errors {result.errors}"
    problems = [e for e in result.errors if not e.startswith("sysUpTime")]
    assert problems == [], problems
    measurements = {s.measurement for s in result.samples}
    for table in profile.tables:
        if table.name in tables and any(m.type == "gauge" and m.emit for m in table.metrics):
            assert table.measurement in measurements, f"{table.name} recorded but produced no sample"
    for sample in result.samples:
        for value in sample.fields.values():
            assert isinstance(value, (int, float)) and not isinstance(value, bool)


def recorded_codes(recording: Path, column: str) -> list[int]:
    """The values a recording holds under a status column (its own truth, read from the file)."""
    rows = [line.split("|") for line in recording.read_text(errors="replace").splitlines() if line.count("|") >= 2]
    return [int(value) for oid, _, value in rows if oid.startswith(column + ".")]


@pytest.mark.parametrize(
    ("community", "column", "part"),
    [
        ("eql", "1.3.6.1.4.1.12740.3.1.1.1.8", "Disk"),  # eqlDiskStatus
        ("dsm", "1.3.6.1.4.1.6574.2.1.1.5", "Disk"),  # SYNOLOGY-DISK-MIB diskStatus
        ("dsm", "1.3.6.1.4.1.6574.3.1.1.3", "RAID"),  # SYNOLOGY-RAID-MIB raidStatus
        ("netapp", "1.3.6.1.4.1.789.1.6.2.1.3", "Disk"),  # NETAPP-MIB raidVStatus, 102 disks
        ("netapp823", "1.3.6.1.4.1.789.1.6.2.1.3", "Disk"),  # the same on ONTAP 8.2.3
        ("netapp", "1.3.6.1.4.1.789.1.9.20.1.5", "Replication state"),  # snapmirrorState
    ],
)
def test_real_arrays_status_codes_all_have_a_meaning(recordings_agent, community, column, part):
    """Every status code a real array served reads as a state with the MIB's word (none as "unknown"), one part
    per recorded row, each in the state its code means."""
    from monitor.storage.health import states_in

    port, data = recordings_agent
    profile = registry()[RECORDINGS[community][1]]
    target = SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)
    result = aio.run(poll_device(target, community, None, profile=profile))
    codes = recorded_codes(data / f"{community}.snmprec", column)
    assert codes, "the recording has the column"
    metric = next(m for t in profile.tables for m in t.metrics if column in m.oids)
    found = [state for name, state in states_in(profile, result.samples) if name.startswith(part + " ") and
             not name.startswith(f"{part} health")]  # fmt: skip
    assert sorted(found) == sorted(metric.state_of(code)[0] for code in codes)
    assert all(not metric.state_of(code)[1].startswith("unknown") for code in codes)
