"""Storage arrays on real snmpsim agents: every new metric with its unit, the latency unit decided by the array's
own gauges, Nimble / NetApp / Compellent profiles, the capacity forecast, and the iSCSI path learned from
forwarding tables alone, LLDP alone and both."""

from __future__ import annotations

import bz2
import time
from pathlib import Path

import pytest

from collectors.poll import poll_device
from collectors.profiles import BUILTIN_DIR, load_profiles_collecting
from collectors.sessions import open_session
from collectors.snmptypes import SnmpTarget
from collectors.topology import read_l2
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.storage.forecast import forecast
from monitor.storage.models import PathLink
from monitor.storage.paths import refresh_paths
from tests.conftest import Agent

DATA = Path(__file__).resolve().parent.parent / ".venv/lib/python3.11/site-packages/snmpsim_data/data"
NIMBLE = "1.3.6.1.4.1.37447.1.2.1"
SC = "1.3.6.1.4.1.674.11000.2000.500.1.2"
EQL_STATS = "1.3.6.1.4.1.12740.5.1.7.34.1"


def milliseconds_array() -> fleet.SimDevice:
    """An EqualLogic whose latency sums count milliseconds, as the MIB text says (its gauges agree)."""
    device = fleet.equallogic_array("eqlms", "eql-ms", volumes=2)
    rows = []
    for oid, tag, value in device.extra:
        if ".5.1.7.34.1.6." in oid or ".5.1.7.34.1.7." in oid:  # latency sums: microseconds -> milliseconds
            params = dict(part.split("=") for part in value.split(","))
            params["r"] = str(float(params["r"]) / 1000)
            value = ",".join(f"{k}={v}" for k, v in params.items())
        rows.append((oid, tag, value))
    device.extra = rows
    return device


READ_BUCKETS = (0, 40, 120, 160, 50, 24, 6, 0, 0, 0, 0, 0, 0)  # reads/s by latency bucket: 400 in all


def nimble_array() -> fleet.SimDevice:
    """Nimble volumes as NimbleOS serves NIMBLE-MIB: sizes in MiB (high/low halves; the MIB's text says bytes, a real
    array's values are MiB: the profile's comment): a 6 TiB volume with 2.5 TiB used, 400 reads/s at 800 µs, and one
    of 4 PiB and 5 MiB (the high half counts 2^32 MiB)."""
    size, used = 6 * 2**20, int(2.5 * 2**20)  # MiB
    rows = [
        (f"{NIMBLE}.3.1", "4", "sql-data"),
        (f"{NIMBLE}.4.1", "66", str(size % 2**32)),
        (f"{NIMBLE}.5.1", "66", str(size // 2**32)),
        (f"{NIMBLE}.6.1", "66", str(used % 2**32)),
        (f"{NIMBLE}.7.1", "66", str(used // 2**32)),
        (f"{NIMBLE}.3.2", "4", "archive"),
        (f"{NIMBLE}.4.2", "66", "5"),
        (f"{NIMBLE}.5.2", "66", "1"),
        (f"{NIMBLE}.6.2", "66", "1024"),
        (f"{NIMBLE}.7.2", "66", "0"),
        (f"{NIMBLE}.10.1", "2", "1"),
        (f"{NIMBLE}.11.1", "66", "6"),
        (f"{NIMBLE}.13.1", "70:simdev", "r=400,b=64,k=n-rops"),
        (f"{NIMBLE}.14.1", "70:simdev", "r=320000,b=64,k=n-rtime"),  # 400 x 800 µs
        (f"{NIMBLE}.15.1", "70:simdev", "r=13107200,b=64,k=n-rbytes"),  # 32 KiB reads
        (f"{NIMBLE}.34.1", "70:simdev", "r=100,b=64,k=n-wops"),
        (f"{NIMBLE}.35.1", "70:simdev", "r=250000,b=64,k=n-wtime"),  # 2.5 ms writes
        (f"{NIMBLE}.36.1", "70:simdev", "r=819200,b=64,k=n-wbytes"),  # 8 KiB writes
    ]
    # the read latency histogram (.21-.33: 0-100 µs ... 500 ms-max): sql-data's 400 reads/s by bucket
    rows += [(f"{NIMBLE}.{21 + n}.1", "70:simdev", f"r={rate},b=64,k=n-rlat{n}") for n, rate in enumerate(READ_BUCKETS)]
    return fleet.SimDevice("nimble", "Nimble Storage", "1.3.6.1.4.1.37447.3.1", "nimble-1", [], rows)


FREEBSD = "FreeBSD sc1.example.org 10.0-RELEASE-p11 FreeBSD 10.0-RELEASE-p11 #0: src/sys/COMPELLENT amd64"


def storage_center(community: str = "sc", old_branch: bool = False) -> fleet.SimDevice:
    """A Dell SC as its Net-SNMP agent on FreeBSD serves it: two volumes and one disk folder of 100 GiB, 40 GiB
    used by volumes, 5 allocated, 55 free (DELL-STORAGE-SC-MIB, GiB units); `old_branch`: also the COMPELLENT-MIB
    branch under 16139, as firmware moving between the two serves both."""
    rows = [
        (f"{SC}.6.0", "2", "3"),  # productIDGlobalStatus ok(3)
        (f"{SC}.26.1.3.1", "2", "1"),
        (f"{SC}.26.1.3.2", "2", "3"),
        (f"{SC}.26.1.4.1", "4", "esx-lun-1"),
        (f"{SC}.26.1.4.2", "4", "esx-lun-2"),
        (f"{SC}.32.1.5.1", "66", "100"),
        (f"{SC}.32.1.6.1", "66", "40"),
        (f"{SC}.32.1.7.1", "66", "5"),
        (f"{SC}.32.1.8.1", "66", "55"),
    ]
    device = fleet.SimDevice(community, FREEBSD, "1.3.6.1.4.1.8072.3.2.8", f"{community}-1", [], rows)
    if old_branch:
        device.extra += compellent().extra
    return device


def storage_center_hardware(community: str = "schw", alerts: list | None = None) -> fleet.SimDevice:
    """A Dell SC's hardware tables as SCOS 7 serves them (DELL-STORAGE-SC-MIB; shaped after a public SCOS 07.02
    walk): two controllers, each with a "CPU One" sensor (51 and 52 °C, warning at 84, critical at 91) and a fan,
    the second controller's fan degraded; one enclosure with a power supply down; two disks, one up but no longer
    healthy (the SC expects it to fail); a cache whose battery nears its expiry."""
    rows = [(f"{SC}.6.0", "2", "4")]  # productIDGlobalStatus noncritical(4)
    for ctlr, name in ((1, "SN 60001"), (2, "SN 60002")):
        rows += [(f"{SC}.13.1.3.{ctlr}", "2", "1"), (f"{SC}.13.1.4.{ctlr}", "4", name)]
        rows += [(f"{SC}.16.1.3.{ctlr}.1", "2", "1" if ctlr == 1 else "3"), (f"{SC}.16.1.4.{ctlr}.1", "4", "Fan 1")]
        rows += [(f"{SC}.16.1.5.{ctlr}.1", "66", str(4000 + ctlr * 100))]
        rows += [(f"{SC}.19.1.3.{ctlr}.1", "2", "1"), (f"{SC}.19.1.4.{ctlr}.1", "4", "CPU One")]
        rows += [(f"{SC}.19.1.5.{ctlr}.1", "66", str(50 + ctlr))]
        rows += [(f"{SC}.19.1.9.{ctlr}.1", "66", "84"), (f"{SC}.19.1.11.{ctlr}.1", "66", "91")]
    rows += [(f"{SC}.15.1.3.1", "2", "3"), (f"{SC}.15.1.4.1", "4", "Enclosure - 1")]
    rows += [(f"{SC}.21.1.3.1.1", "2", "1"), (f"{SC}.21.1.4.1.1", "4", "Power Supply 1")]
    rows += [(f"{SC}.21.1.3.1.2", "2", "2"), (f"{SC}.21.1.4.1.2", "4", "Power Supply 2")]
    rows += [(f"{SC}.23.1.3.1.1", "2", "1"), (f"{SC}.23.1.4.1.1", "4", "Temp Sensor 1")]
    rows += [(f"{SC}.23.1.5.1.1", "66", "27")]
    for disk, name, healthy in ((1, "01-01", "1"), (2, "01-02", "2")):
        rows += [(f"{SC}.14.1.3.{disk}", "2", "1"), (f"{SC}.14.1.4.{disk}", "4", name)]
        rows += [(f"{SC}.14.1.5.{disk}", "2", healthy), (f"{SC}.14.1.9.{disk}", "66", "960")]
    rows += [(f"{SC}.28.1.3.1", "2", "1"), (f"{SC}.28.1.4.1", "4", "Cache 1"), (f"{SC}.28.1.5.1", "2", "2")]
    # scServerTable: (name, scServerStatus, scServerCnctvy, scServerPathCount): a host on all four paths, one that
    # lost two of them (partial), one down (its status not read: its connectivity says it); scUPSTable: a UPS up
    for n, (server, status, reach, paths) in enumerate(
        (("esx-01", 1, 1, 4), ("esx-02", 3, 3, 2), ("sql-01", 2, 2, 0)), 1
    ):
        rows += [(f"{SC}.27.1.3.{n}", "2", str(status)), (f"{SC}.27.1.4.{n}", "4", server)]
        rows += [(f"{SC}.27.1.5.{n}", "2", str(reach)), (f"{SC}.27.1.6.{n}", "66", str(paths))]
    rows += [(f"{SC}.30.1.3.1", "2", "1"), (f"{SC}.30.1.4.1", "4", "UPS rack A")]
    # a voltage sensor of each controller (the second's degraded), the enclosure's audible alarm, and the Storage
    # Center itself, up but its front-end ports not balanced (scScPortsBal false)
    for ctlr, status in ((1, 1), (2, 3)):
        rows += [(f"{SC}.18.1.3.{ctlr}.1", "2", str(status)), (f"{SC}.18.1.4.{ctlr}.1", "4", "1.8V")]
    rows += [(f"{SC}.24.1.3.1.1", "2", "1"), (f"{SC}.24.1.4.1.1", "4", "Audible Alarm 1")]
    rows += [(f"{SC}.29.1.3.1", "2", "1"), (f"{SC}.29.1.4.1", "4", "SC-Prod"), (f"{SC}.29.1.7.1", "2", "2")]
    # scAlertTable, indexed controller.alert: (number, status, active, message) as Storage Manager would list them
    for ctlr, number, status, active, message in SC_ALERTS if alerts is None else alerts:
        index = f"{ctlr}.{number}"
        rows += [(f"{SC}.46.1.2.{index}", "66", str(number)), (f"{SC}.46.1.3.{index}", "2", str(status))]
        rows += [(f"{SC}.46.1.8.{index}", "4", message), (f"{SC}.46.1.10.{index}", "2", "2")]
        rows += [(f"{SC}.46.1.11.{index}", "2", str(active))] if active is not None else []
    return fleet.SimDevice(community, FREEBSD, "1.3.6.1.4.1.8072.3.2.8", f"{community}-1", [], rows)


# (controller, scAlertNbr, scAlertStatus, scAlertActive, scAlertMessage): a disk predicted to fail, degraded and
# active; a power supply that was down, cleared (active false) though its status still says down; a notice; a critical
# alert whose row lacks scAlertActive
SC_ALERTS = [
    (1, 17, 2, 1, "Disk 01-02 is predicted to fail"),
    (2, 18, 4, 2, "Power Supply 2 is <b>down</b>"),
    (1, 19, 6, 1, "Replay completed"),
    (2, 20, 1, None, "Controller SN 60002 lost its cache"),  # no scAlertActive served: the status stands
]


def compellent() -> fleet.SimDevice:
    """A Compellent on older firmware: COMPELLENT-MIB only (1.3.6.1.4.1.16139.2), a disk folder of 2000 GB with
    1500 GB used (decimal gigabytes, the only space columns that MIB has) and one volume named in scVolumeName."""
    old = "1.3.6.1.4.1.16139.2"
    rows = [
        (f"{old}.6.0", "2", "3"),
        (f"{old}.26.1.3.7", "2", "2"),
        (f"{old}.26.1.4.7", "4", "sql-lun"),
        (f"{old}.32.1.3.1", "66", "2000"),
        (f"{old}.32.1.4.1", "66", "1500"),
    ]
    return fleet.SimDevice("cml", FREEBSD, "1.3.6.1.4.1.8072.3.2.8", "cml-1", [], rows)


def wrong_types_array() -> fleet.SimDevice:
    """The EqualLogic with wrong types where storage columns belong: volume 1's pool index and read average gauge
    are text, volume 2's pool index points at no pool, volume 3's queue-depth counters are gone (noSuchObject)."""
    array = fleet.equallogic_array("badeql", "eql-bad")
    wrong = {
        "1.3.6.1.4.1.12740.5.1.7.1.1.22.1841966935.1": ("4", "default"),
        "1.3.6.1.4.1.12740.5.1.7.34.1.10.1841966935.1": ("4", "fast"),
        "1.3.6.1.4.1.12740.5.1.7.1.1.22.1841966935.2": ("66", "9"),
    }
    gone = {f"{EQL_STATS}.{c}.1841966935.3" for c in (14, 15)}
    array.extra = [(o, *wrong.get(o, (t, v))) for o, t, v in array.extra if o not in gone]
    return array


def garbage_switch() -> fleet.SimDevice:
    """A switch whose layer 2 answers are wrong in every way a reader meets: MACs of 5 octets and text, a bridge
    port map of strings, forwarding entries indexed by 7 octets or naming a port by text, an LLDP chassis id of
    two octets, a local port id that is a Unicode digit, neighbours on ports that do not exist, an empty FDB."""
    fdb, rem, loc = fleet.FDB, fleet.LLDP_REM, fleet.LLDP_LOC
    ports = [fleet.SimPort(1, "1/g1", mac=""), fleet.SimPort(2, "1/g2", mac="")]
    rows = [
        ("1.3.6.1.2.1.2.2.1.6.1", "4x", "0011223344"),
        ("1.3.6.1.2.1.2.2.1.6.2", "4", "not-a-mac"),
        ("1.3.6.1.2.1.17.1.1.0", "4", "bridge-1"),
        (f"{fleet.BRIDGE_PORT_IFINDEX}.1", "4", "seven"),
        (f"{fdb}.2.1.2.3.4.5.6.7", "2", "1"),
        (f"{fdb}.2.0.9.138.7.0.1", "4", "1/g1"),
        (f"{fdb}.3.0.9.138.7.0.1", "4", "learned"),
        (f"{fleet.QFDB}.2.100.0.9.138.7", "66", "1"),
        (f"{loc}.1.0", "4", "mac"),
        (f"{loc}.2.0", "2", "5"),
        (f"{loc}.7.1.2.1", "2", "7"),
        (f"{loc}.7.1.3.1", "4", "\u00b2"),  # a digit to str.isdigit, not to int()
        (f"{rem}.4.0.1", "2", "4"),
        (f"{rem}.5.0.1.1", "4x", "0011"),
        (f"{rem}.6.0.1.1", "4", "three"),
        (f"{rem}.9.0.99.1", "4", "eql-path"),
    ]
    return fleet.SimDevice("garbage", "PowerConnect 6248, 3.3.7.3", "1.3.6.1.4.1.674.10895.3011", "sw-bad", ports, rows)


def lldp_array() -> fleet.SimDevice:
    """The demo's EqualLogic serving its own LLDP-MIB: each port's neighbour is switch sw-quiet, named by its
    sysName, its port given by name (1/g7, 1/g10), by the port's MAC (1/g8) or by a local number with the name
    in the port description (1/g9)."""
    array = fleet.equallogic_array("lldparray", "eql-lldp")
    loc, rem = fleet.LLDP_LOC, fleet.LLDP_REM
    rows = [(f"{loc}.1.0", "2", "4"), (f"{loc}.2.0", "4x", "00098a070000"), (f"{loc}.3.0", "4", "eql-lldp")]
    neighbours = {1: ("5", "1/g7", "1/g7"), 2: ("3", "001ec9000008", ""), 3: ("7", "9", "1/g9"), 4: ("5", "1/g10", "")}
    for port in array.ports:
        n = port.index
        subtype, port_id, desc = neighbours[n]
        rows += [
            (f"{loc}.7.1.2.{n}", "2", "3"),  # local port id: its MAC
            (f"{loc}.7.1.3.{n}", "4x", port.mac.replace(":", "")),
            (f"{rem}.4.0.{n}.1", "2", "4"),
            (f"{rem}.5.0.{n}.1", "4x", "001ec9000000"),  # the switch's chassis MAC, not one of its ports'
            (f"{rem}.6.0.{n}.1", "2", subtype),
            (f"{rem}.7.0.{n}.1", "4x" if subtype == "3" else "4", port_id),
            (f"{rem}.8.0.{n}.1", "4", desc),
            (f"{rem}.9.0.{n}.1", "4", "sw-quiet"),
        ]
    array.extra += rows
    return array


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """Arrays and switches: the demo's array and a switch serving its FDB and LLDP, a switch with FDB only and one
    with LLDP only, a millisecond-counting EqualLogic, a Nimble, a Dell SC and the real NetApp recording."""
    root = tmp_path_factory.mktemp("storage")
    array = fleet.equallogic_array("array", "eql-path")
    links = fleet.array_attachments(array)
    devices = {
        "array": array,
        "both": fleet.powerconnect_6248("both", "sw-both", busy=False, attached=links),
        "fdbonly": fleet.powerconnect_6248("fdbonly", "sw-fdb", busy=False, attached=links, lldp=False),
        "lldponly": fleet.powerconnect_6248("lldponly", "sw-lldp", busy=False, attached=links, fdb=False),
        "quiet": fleet.powerconnect_6248("quiet", "sw-quiet", busy=False, fdb=False, lldp=False),
        "lldparray": lldp_array(),
        "garbage": garbage_switch(),
        "badeql": wrong_types_array(),
        "eqlms": milliseconds_array(),
        "nimble": nimble_array(),
        "sc": storage_center(),
        "scboth": storage_center("scboth", old_branch=True),
        "schw": storage_center_hardware(),
        "schwlater": storage_center_hardware("schwlater", SC_ALERTS[1:]),  # the array deleted its alert 17
        "cml": compellent(),
    }
    for device in devices.values():
        device.write(root / "data")
    recording = DATA / "storage" / "netapp-fas3270.snmprec.bz2"
    assert recording.exists(), "snmpsim-data is not installed: run `make install`"
    (root / "data" / "netapp.snmprec").write_bytes(bz2.decompress(recording.read_bytes()))
    control = root / "control.json"
    control.write_text("{}")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", control_file=control, name="snmpsim-storage")
    yield Agent(port, control, devices)
    process.stop()


def target(sim: Agent, community: str) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", sim.port, community=community, timeout=3.0, retries=1)


def two_polls(sim: Agent, community: str, profile_name: str):
    profile = registry()[profile_name]
    first = aio.run(poll_device(target(sim, community), community, None, profile=profile, engine="fast"))
    time.sleep(2.2)
    return aio.run(poll_device(target(sim, community), community, first.state, profile=profile, engine="fast"))


def by_tag(result, measurement: str, tag: str) -> dict[str, dict]:
    """Each series' fields, those of several samples of one series together (as InfluxDB keeps them)."""
    out: dict[str, dict] = {}
    for s in result.samples:
        if s.measurement == measurement:
            out.setdefault(s.tags[tag], {}).update(s.fields)
    return out


def test_equallogic_metrics_with_their_units_and_the_latency_unit_found(sim):
    result = two_polls(sim, "array", "dell-equallogic")
    volumes = by_tag(result, "volume", "volume")
    for v in (1, 2, 3):
        fields = volumes[f"vmfs-datastore-{v}"]
        assert fields["read_latency_ms"] == pytest.approx(1.5 * v, rel=0.01)  # microsecond sums, in ms
        assert fields["write_latency_ms"] == pytest.approx(0.5 * v, rel=0.01)
        assert fields["read_pct"] == pytest.approx(100 * 100 / 150, rel=0.01)  # 100v reads of 150v operations
        assert fields["avg_io_bytes"] == pytest.approx(8192, rel=0.01)
        assert fields["queue_depth"] == pytest.approx(2.0 * v, rel=0.01)
        assert "read_avg_latency_ms" not in fields and "total_iops" not in fields  # helpers are not written
    pools = {s.tags["volume"]: s.tags.get("pool") for s in result.samples if s.measurement == "volume"}
    assert pools == {"vmfs-datastore-1": "default", "vmfs-datastore-2": "default", "vmfs-datastore-3": "ssd"}
    assert set(by_tag(result, "pool", "pool")) == {"default", "ssd"}  # the names volumes are tagged with
    member = by_tag(result, "member", "member")["eql-member-1"]
    assert member["read_iops"] == pytest.approx(600, rel=0.02)
    assert member["read_bps"] == pytest.approx(600 * 8192, rel=0.02)
    assert member["read_latency_ms"] == pytest.approx((100 * 1.5 + 200 * 3 + 300 * 4.5) / 600, rel=0.01)
    checks = {s.tags["metric"]: s.fields for s in result.samples if s.measurement == "latency_check"}
    assert checks["read_latency_ms"]["scale"] == 0.001 and checks["read_latency_ms"]["decided"] == 1
    assert checks["read_latency_ms"]["rows_agreeing"] == 3 == checks["read_latency_ms"]["rows_checked"]
    assert result.state.units == {
        "volumes.read_latency_ms": "microseconds",
        "volumes.write_latency_ms": "microseconds",
        "members.read_latency_ms": "microseconds",
        "members.write_latency_ms": "microseconds",
    }


def test_wrong_types_in_storage_columns_cost_only_their_own_figures(sim):
    result = two_polls(sim, "badeql", "dell-equallogic")
    volumes = {s.tags["volume"]: s for s in result.samples if s.measurement == "volume"}
    assert "pool" not in volumes["vmfs-datastore-1"].tags  # text is no pool index: no tag rather than a wrong one
    assert volumes["vmfs-datastore-2"].tags["pool"] == "9"  # a pool the array does not list: its number
    assert volumes["vmfs-datastore-3"].tags["pool"] == "ssd"
    assert volumes["vmfs-datastore-1"].fields["read_latency_ms"] == pytest.approx(1.5, rel=0.01)  # 2 gauges decide
    assert "queue_depth" not in volumes["vmfs-datastore-3"].fields
    assert volumes["vmfs-datastore-3"].fields["read_pct"] == pytest.approx(100 * 100 / 150, rel=0.01)
    assert any(e.startswith("read_avg_latency_ms: expected a number") for e in result.errors)


def test_an_array_that_counts_milliseconds_is_read_in_milliseconds(sim):
    result = two_polls(sim, "eqlms", "dell-equallogic")
    volumes = by_tag(result, "volume", "volume")
    assert volumes["vmfs-datastore-2"]["read_latency_ms"] == pytest.approx(3.0, rel=0.01)  # not 0.003
    assert volumes["vmfs-datastore-1"]["write_latency_ms"] == pytest.approx(0.5, rel=0.01)
    assert result.state.units["volumes.read_latency_ms"] == "milliseconds"
    check = next(
        s.fields for s in result.samples if s.tags.get("metric") == "read_latency_ms" and s.tags["table"] == "volumes"
    )
    assert check["scale"] == 1.0 and check["decided"] == 1


def test_nimble_volume_from_nimble_mib(sim):
    result = two_polls(sim, "nimble", "hpe-nimble")
    fields = by_tag(result, "volume", "volume")["sql-data"]
    assert fields["size_bytes"] == 6 * 2**40 and fields["used_bytes"] == int(2.5 * 2**40)  # MiB, as arrays serve it
    archive = by_tag(result, "volume", "volume")["archive"]
    assert (archive["size_bytes"], archive["used_bytes"]) == ((2**32 + 5) * 2**20, 2**30)  # the high half: 2^32 MiB
    assert fields["read_iops"] == pytest.approx(400, rel=0.02)
    assert fields["read_latency_ms"] == pytest.approx(0.8, rel=0.01)  # volIoReadTimeMicrosec / volIoReads
    assert fields["write_latency_ms"] == pytest.approx(2.5, rel=0.01)
    assert fields["read_bps"] == pytest.approx(400 * 32768, rel=0.02)
    assert fields["read_pct"] == pytest.approx(80.0, rel=0.01)
    assert fields["avg_io_bytes"] == pytest.approx((400 * 32768 + 100 * 8192) / 500, rel=0.01)
    # the histogram's buckets are counts of the interval's reads (not rates): shares as served, summing to the reads
    from monitor.timeseries import histogram

    counts = [fields[name] for name in histogram.fields("read")]
    assert all(float(c).is_integer() for c in counts) and sum(counts) > 400  # over 2 s of 400 reads/s
    assert [c / sum(counts) for c in counts] == pytest.approx([r / 400 for r in READ_BUCKETS], abs=0.01)
    # cumulative shares 10, 40, 80, 92.5, 98.5, 100 %: the median read took at most 1 ms, p95 5 ms, p99 10 ms
    assert histogram.percentiles(fields)["read"].at == {0.5: 1.0, 0.95: 5.0, 0.99: 10.0}
    assert histogram.percentiles(fields)["write"].ios == 0  # this array serves no write histogram here


def test_storage_center_volumes_and_disk_folder_in_gib(sim):
    result = two_polls(sim, "sc", "dell-storage-sc")
    assert by_tag(result, "volume", "volume") == {"esx-lun-1": {"status": 1.0}, "esx-lun-2": {"status": 3.0}}
    pool = by_tag(result, "pool", "pool")["1"]
    assert pool["size_bytes"] == 100 * 2**30 and pool["free_bytes"] == 55 * 2**30
    assert pool["volume_used_bytes"] == 40 * 2**30 and pool["allocated_bytes"] == 5 * 2**30
    assert pool["used_bytes"] == 45 * 2**30  # no longer free: TotalSpace2 - FreeSpace (= AllocSpace + UsedSpace2)


def test_storage_center_hardware_as_parts_with_states(sim):
    """Controllers, their fans and sensors (named by their controller), the enclosure and its parts, disks and the
    cache battery, each status in the one vocabulary with the MIB's word; a part of a controller is told apart from
    the same part of the other controller."""
    from monitor.storage.health import readings

    result = two_polls(sim, "schw", "dell-storage-sc")
    assert result.errors == []
    temps = {
        s.tags["name"]: s.fields
        for s in result.samples
        if s.measurement == "sensor" and s.tags.get("kind") == "temperature" and s.tags.get("owner") == "controller"
    }
    assert temps == {  # each named by its controller first: two series, two graphs
        "SN 60001 CPU One": {"status": 1.0, "value": 51.0, "warning_high": 84.0, "critical_high": 91.0},
        "SN 60002 CPU One": {"status": 1.0, "value": 52.0, "warning_high": 84.0, "critical_high": 91.0},
    }
    assert by_tag(result, "disk", "disk") == {
        "01-01": {"status": 1.0, "healthy": 1.0, "size_bytes": 960 * 2**30},
        "01-02": {"status": 1.0, "healthy": 2.0, "size_bytes": 960 * 2**30},
    }
    states = {part: (state, word) for part, state, word in readings(registry()["dell-storage-sc"], result.samples)}
    assert states == {
        "System status the device": ("warning", "noncritical"),
        "Controller SN 60001": ("ok", "up"),
        "Controller SN 60002": ("ok", "up"),
        "Fan SN 60001 Fan 1": ("ok", "up"),
        "Fan SN 60002 Fan 1": ("degraded", "degraded"),
        "Temperature SN 60001 CPU One": ("ok", "up"),
        "Temperature SN 60002 CPU One": ("ok", "up"),
        "Cache Cache 1": ("ok", "up"),
        "Cache battery Cache 1": ("warning", "expirationPending"),
        "Enclosure Enclosure - 1": ("degraded", "degraded"),
        "Power supply Enclosure - 1 Power Supply 1": ("ok", "up"),
        "Power supply Enclosure - 1 Power Supply 2": ("failed", "down"),
        "Temperature Enclosure - 1 Temp Sensor 1": ("ok", "up"),
        "Disk 01-01": ("ok", "up"),
        "Disk 01-02": ("ok", "up"),
        "Disk health 01-01": ("ok", "healthy"),
        "Disk health 01-02": ("warning", "not healthy"),
        "Alert SN 60001 17 Disk 01-02 is predicted to fail": ("degraded", "degraded"),
        "Alert SN 60002 18 Power Supply 2 is <b>down</b>": ("ok", "cleared"),  # the array cleared it
        "Alert SN 60001 19 Replay completed": ("ok", "inform"),
        "Alert SN 60002 20 Controller SN 60002 lost its cache": ("failed", "critical"),
        "Server esx-01": ("ok", "up"),
        "Server esx-02": ("degraded", "partial"),  # two of its paths to the SAN lost
        "Server sql-01": ("warning", "down"),  # switched off or cut off: the SC cannot tell
        "UPS UPS rack A": ("ok", "up"),
        "Voltage SN 60001 1.8V": ("ok", "up"),
        "Voltage SN 60002 1.8V": ("degraded", "degraded"),
        "Audible alarm Enclosure - 1 Audible Alarm 1": ("ok", "up"),
        "Storage Center SC-Prod": ("ok", "up"),
        "Storage Center ports SC-Prod": ("warning", "not balanced"),
    }
    assert {name: f["paths"] for name, f in by_tag(result, "server", "server").items()} == {
        "esx-01": 4,
        "esx-02": 2,
        "sql-01": 0,
    }
    from monitor.alerts.rules import METRICS, observe

    seen = {o.instance: (o.value, o.warning) for o in observe(METRICS["temperature"], result.samples, "")}
    assert seen["SN 60001 CPU One"] == (51.0, 84.0) and seen["SN 60002 CPU One"] == (52.0, 84.0)  # two, not one


def test_compellent_mib_volumes_and_disk_folder_in_decimal_gigabytes(sim):
    result = two_polls(sim, "cml", "compellent")
    assert by_tag(result, "volume", "volume") == {"sql-lun": {"status": 2.0}}  # scVolumeName, scVolumeStatus down
    pool = by_tag(result, "pool", "pool")["1"]
    assert pool == {"size_bytes": 2000 * 10**9, "used_bytes": 1500 * 10**9, "free_bytes": 500 * 10**9}
    assert result.errors == []


@pytest.mark.parametrize(
    ("community", "profile"), [("sc", "dell-storage-sc"), ("scboth", "dell-storage-sc"), ("cml", "compellent")]
)
def test_a_storage_center_gets_the_profile_of_the_mib_it_serves(sim, community, profile):
    """Both Storage Center profiles match the FreeBSD sysDescr; the one whose objects the agent serves wins, the
    newer MIB when it serves both."""
    from collectors.discovery import discover

    found = aio.run(discover(target(sim, community), registry(), engine="fast"))
    assert (found.profile, found.matched_by) == (profile, "sysDescr matches a profile pattern")


def test_netapp_recording_volumes_in_bytes_and_filer_counters(sim):
    from collectors.discovery import discover

    found = aio.run(discover(target(sim, "netapp"), registry(), engine="fast"))
    assert found.profile == "netapp-ontap"
    result = two_polls(sim, "netapp", "netapp-ontap")
    volumes = by_tag(result, "volume", "volume")
    assert volumes["aggr1sas"]["size_bytes"] == 16949235920 * 1024  # df64TotalKBytes, kilobytes
    assert volumes["aggr1sas"]["used_bytes"] == 10464239496 * 1024
    assert not [v for v in volumes if ".snapshot" in v]
    system = next(s.fields for s in result.samples if s.measurement == "system" and "cpu_util" in s.fields)
    assert system["cpu_util"] == 22.0
    assert result.errors == []


def test_forecast_of_known_series():
    day = 86400
    growing = [(d * day, 40 + d, 100) for d in range(31)]  # 70 % used now, one point a day
    found = forecast(growing)
    assert 28 <= found.days_low <= found.days_high <= 32 and found.text.startswith("full in")
    noisy = [(d * day / 4, 40 + d / 4 + (0.4 if d % 3 else -0.6), 100) for d in range(121)]
    found = forecast(noisy)
    assert 28 <= found.days_low <= 30 <= found.days_high <= 32
    assert forecast([(d * day, 55.0, 100) for d in range(31)]).text == "not growing"
    assert forecast([(d * day / 4, 55 + (0.5 if d % 2 else -0.5), 100) for d in range(121)]).text == "not growing"
    assert forecast([(0, 10, 100), (day, 11, 100)]).text == "not enough history for a forecast"


def l2(sim: Agent, community: str, fdb: bool = True):
    return aio.run(read_l2(open_session(target(sim, community), "fast"), fdb=fdb))


def test_l2_views_read_macs_fdb_and_lldp(sim):
    array = l2(sim, "array", fdb=False)
    assert [p.mac for p in array.ports.values()] == [f"00:09:8a:07:00:{i:02x}" for i in (1, 2, 3, 4)]
    switch = l2(sim, "both")
    learned = {(e.mac, e.port) for e in switch.fdb}
    assert ("00:09:8a:07:00:01", "1/g7") in learned and ("00:09:8a:07:00:04", "1/g10") in learned
    assert {e.vlan for e in switch.fdb if e.mac.startswith("00:09:8a")} == {100}  # from Q-BRIDGE-MIB
    assert switch.chassis_id == switch.bridge_mac == "00:1e:c9:00:00:00" and switch.sys_name == "sw-both"
    neighbour = next(n for n in switch.neighbours if n.local_port == "1/g8")
    assert (neighbour.sys_name, neighbour.port_id, neighbour.port_desc) == ("eql-path", "00:09:8a:07:00:02", "eth1")
    assert l2(sim, "fdbonly").neighbours == [] and l2(sim, "lldponly").fdb == []


def test_l2_view_of_a_real_switch_recording(tmp_path):
    """BRIDGE-MIB as a real HPE ProCurve serves it (snmpsim-data): every learned MAC on a named port."""
    recording = DATA / "network" / "switch" / "hpe-procurve-516733-b21.snmprec.bz2"
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "procurve.snmprec").write_bytes(bz2.decompress(recording.read_bytes()))
    port = free_udp_port()
    process = services.start_snmpsim(tmp_path / "data", port, tmp_path / "log", name="snmpsim-procurve")
    try:
        view = aio.run(read_l2(open_session(SnmpTarget("127.0.0.1", port, community="procurve", timeout=3), "fast")))
    finally:
        process.stop()
    assert len(view.fdb) > 10
    assert all(len(e.mac) == 17 and e.mac.count(":") == 5 for e in view.fdb)
    names = {p.name for p in view.ports.values()}
    assert {e.port for e in view.fdb} <= names


def devices(sim: Agent, switch: str) -> tuple[Device, Device]:
    array = Device.objects.create(
        name="eql-path", host="127.0.0.1", port=sim.port, community="array", profile="dell-equallogic", timeout_s=3
    )
    other = Device.objects.create(
        name=switch, host="127.0.0.1", port=sim.port, community=switch, profile="dell-powerconnect-62xx", timeout_s=3
    )
    return array, other


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("switch", "fdb", "lldp"), [("fdbonly", True, False), ("lldponly", False, True), ("both", True, True)]
)
def test_the_path_is_found_from_fdb_alone_lldp_alone_and_both(sim, switch, fdb, lldp):
    array, other = devices(sim, switch)
    summary = refresh_paths()
    assert (summary.arrays, summary.switches, summary.links) == (1, 1, 4)
    links = {(link.array_port, link.switch_port): link for link in PathLink.objects.filter(array=array, switch=other)}
    assert set(links) == {("eth0", "1/g7"), ("eth1", "1/g8"), ("eth2", "1/g9"), ("eth3", "1/g10")}
    assert {(link.via_fdb, link.via_lldp) for link in links.values()} == {(fdb, lldp)}
    assert links[("eth0", "1/g7")].mac == "00:09:8a:07:00:01"
    refresh_paths()  # learning again replaces, never doubles
    assert PathLink.objects.filter(array=array).count() == 4


@pytest.mark.django_db
def test_the_path_is_found_from_the_arrays_own_lldp_alone(sim):
    """sw-quiet serves neither forwarding tables nor LLDP: only the array's lldpRemTable names it (by sysName) and
    its ports, by name, by MAC and by a local number whose description is the name."""
    array = Device.objects.create(
        name="eql-lldp", host="127.0.0.1", port=sim.port, community="lldparray", profile="dell-equallogic", timeout_s=3
    )
    switch = Device.objects.create(
        name="sw-quiet", host="127.0.0.1", port=sim.port, community="quiet", profile="dell-powerconnect-62xx"
    )
    view = l2(sim, "lldparray", fdb=False)
    assert [(n.local_port, n.sys_name) for n in view.neighbours][:1] == [("eth0", "sw-quiet")]
    assert l2(sim, "quiet").fdb == [] and l2(sim, "quiet").neighbours == []
    summary = refresh_paths()
    assert summary.links == 4
    links = {(link.array_port, link.switch_port): link for link in PathLink.objects.filter(array=array, switch=switch)}
    assert set(links) == {("eth0", "1/g7"), ("eth1", "1/g8"), ("eth2", "1/g9"), ("eth3", "1/g10")}
    assert {(link.via_fdb, link.via_lldp) for link in links.values()} == {(False, True)}


def test_garbage_layer_2_answers_are_read_as_nothing(sim):
    view = l2(sim, "garbage")
    assert [p.mac for p in view.ports.values()] == ["", ""]  # 5 octets, and text, are no MAC
    assert view.fdb == [] and view.bridge_mac == "" and view.chassis_id == ""
    assert [(n.local_port, n.chassis_id, n.port_id) for n in view.neighbours] == [("1/g1", "", "")]


@pytest.mark.django_db
def test_a_switch_answering_garbage_does_not_stop_the_path_learning(sim):
    array, good = devices(sim, "fdbonly")
    Device.objects.create(name="sw-bad", host="127.0.0.1", port=sim.port, community="garbage", timeout_s=3)
    Device.objects.create(
        name="sw-gone", host="127.0.0.1", port=free_udp_port(), community="x", timeout_s=0.3, retries=0
    )
    summary = refresh_paths()
    assert summary.links == 4 and PathLink.objects.filter(array=array, switch=good).count() == 4
    assert any(p.startswith("sw-gone: interfaces:") for p in summary.problems)  # named, and skipped
    assert "garbage" not in " ".join(summary.problems)  # problems never carry a community


@pytest.mark.django_db
def test_uplinks_towards_another_switch_are_not_the_array_edge(sim):
    """Both switches learned the array's MACs; the access switch names them on 1/g7.., the other only through the
    port where it sees the access switch (its LLDP neighbour): that port is transit, not the array's edge."""
    from monitor.storage.pathfind import find_paths

    array, access, core = l2(sim, "array", fdb=False), l2(sim, "both"), l2(sim, "both")
    core.sys_name, core.chassis_id = "core", "00:1e:c9:ff:ff:00"
    core.fdb = [type(e)(e.mac, "1/xg1", e.vlan) for e in access.fdb]  # everything learned through the uplink
    core.neighbours = [
        type(n)("1/xg1", "00:1e:c9:00:00:00", "1/xg1", False, "", "sw-both") for n in access.neighbours[:1]
    ]
    access.neighbours = [n for n in access.neighbours]
    links = find_paths({"a": array}, {"access": access, "core": core})
    assert {(link.switch, link.switch_port) for link in links} == {("access", f"1/g{n}") for n in (7, 8, 9, 10)}


def test_profiles_with_new_fields_refuse_bad_ones_naming_file_and_field(tmp_path):
    broken = {
        "unit.yaml": "name: unit\ntables:\n  - name: volumes\n    measurement: volume\n"
        "    tags: [{name: volume, index: 0}]\n    metrics:\n"
        "      - {name: a, column: 1.3.6.1.4.1.1.1, type: counter}\n"
        "      - {name: b, type: ratio, numerator: a, denominator: a, unit_check: {gauge: g, units: {us: 0.001}}}\n",
        "sum.yaml": "name: sum\nmetrics:\n  - {name: total, type: sum, parts: [x]}\n",
        "order.yaml": "name: order\nmetrics:\n  - {name: a, oid: 1.3.6.1.2.1.1.3.0}\n"
        "  - {name: q, type: quotient, numerator: a, denominator: s}\n  - {name: s, type: sum, parts: [a, a]}\n",
        "pause.yaml": "name: pause\ninterfaces: {counters: [pause, jumbo]}\n",
    }
    for name, text in broken.items():
        (tmp_path / name).write_text(text)
    _, errors = load_profiles_collecting([BUILTIN_DIR, tmp_path])
    text = "\n".join(errors)
    assert "unit.yaml: tables[0].metrics[1].unit_check.units: needs at least 2 entries" in text
    assert "sum.yaml: metrics[0]: parts: a sum needs the names of two or more other metrics" in text
    assert "order.yaml: metrics.q: 's' is derived too and must be declared before it" in text
    assert "pause.yaml: interfaces.counters: 'jumbo' is not one of errors, discards, unicast, broadcast, pause" in text
    assert len(errors) == 4  # the shipped profiles, new arrays included, are valid


@pytest.mark.django_db
def test_the_array_page_ranks_volumes_and_forecasts_their_capacity(clean_backends, client, admin_user):
    """Thirty days of 5-minute windows planted: vol-a grows a point a day to 70 % used, vol-b is flat; vol-b is
    the busier and vol-a the slower; the page ranks and forecasts them."""
    from django.conf import settings
    from influxdb_client.client.write_api import SYNCHRONOUS

    from monitor.timeseries import client as tsclient

    device = Device.objects.create(name="arr", host="127.0.0.1", community="x", profile="dell-equallogic")
    now = int(time.time()) // 300 * 300
    lines = []
    for step in range(0, 30 * 288, 72):  # every 6 hours for 30 days
        t = now - 30 * 86400 + step * 300
        days = (t - (now - 30 * 86400)) / 86400
        for volume, used, iops, ms in (("vol-a", 40 + days, 100.0, 12.0), ("vol-b", 55.0, 900.0, 2.0)):
            fields = {"used_bytes": used * 1e9, "size_bytes": 100e9, "read_iops": iops, "read_latency_ms": ms}
            text = ",".join(f"{k}_mean={v},{k}_sum={v},{k}_count=1i,{k}_max={v}" for k, v in fields.items())
            lines.append(f"volume,device={device.pk},pool=fast,volume={volume} {text} {t}")
    tsclient.client().write_api(write_options=SYNCHRONOUS).write(
        bucket=f"{settings.INFLUXDB_BUCKET}_5m", org=settings.INFLUXDB_ORG, record=lines, write_precision="s"
    )
    client.force_login(admin_user)
    response = client.get(f"/storage/arrays/{device.pk}/?start=now-20d&end=now")
    assert response.status_code == 200
    summary = response.context["summary"]
    rows = {r.name: r for r in summary.sections[0][2]}
    assert 28 <= rows["vol-a"].forecast.days_low <= rows["vol-a"].forecast.days_high <= 32
    assert rows["vol-b"].forecast.text == "not growing"
    assert [r.name for r in summary.busiest] == ["vol-b", "vol-a"]
    assert [r.name for r in summary.slowest] == ["vol-a", "vol-b"]
    assert [r.name for r in summary.fill_first] == ["vol-a"]
    assert summary.totals["read_iops"] == pytest.approx(1000.0)
    assert summary.totals["read_latency_ms"] == pytest.approx((100 * 12 + 900 * 2) / 1000)  # weighted by IOPS
    pools = {r.name: r for m, _, section in summary.sections if m == "pool" for r in section}
    assert pools["fast"].volumes == 2 and pools["fast"].figures["read_iops"] == pytest.approx(1000.0)
    assert pools["fast"].figures["read_latency_ms"] == pytest.approx(3.0)  # its volumes', weighted by IOPS
    html = response.content.decode()
    assert "(2 volumes)" in html
    assert rows["vol-a"].forecast.text.startswith("full in ") and rows["vol-a"].forecast.text in html
    assert "not growing" in html
    assert (
        client.get(f"/storage/arrays/{Device.objects.create(name='sw', host='h', community='x').pk}/").status_code
        == 404
    )


@pytest.mark.django_db
def test_a_reader_sees_the_path_only_through_switches_they_may_read(clean_backends, client, django_user_model):
    """Dana reads the array's tree, not the switches': the array page, the path page, its data and the device
    page name no switch; the switch's own page is not hers to open."""
    from django.utils import timezone

    from monitor.graphs.trees.models import Tree, TreeNode, place_device

    array = Device.objects.create(name="eql-x", host="127.0.0.1", community="x", profile="dell-equallogic")
    switch = Device.objects.create(name="core-secret", host="127.0.0.2", community="x")
    now = timezone.now()
    for port in ("1/g7", "1/g8"):
        PathLink.objects.create(array=array, array_port="eth0", switch=switch, switch_port=port, learned_at=now)
    tree = Tree.objects.create(name="Storage", position=1)
    place_device(array, TreeNode.objects.create(tree=tree, kind="header", title="Arrays", position=1))
    dana = django_user_model.objects.create_user("dana", "dana@example.com", "s3cret-pass-123")
    tree.read_users.add(dana)
    client.force_login(dana)
    pages = [f"/storage/arrays/{array.pk}/", f"/storage/arrays/{array.pk}/path/", f"/devices/{array.pk}/"]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200 and "core-secret" not in response.content.decode(), url
    data = client.get(f"/storage/api/arrays/{array.pk}/path", {"range": "1h"}).json()
    assert data["ports"] == [] and "core-secret" not in str(data)
    assert client.get(f"/devices/{switch.pk}/").status_code == 404
    admin = django_user_model.objects.create_superuser("root", "root@example.com", "s3cret-pass-123")
    client.force_login(admin)
    assert "core-secret" in client.get(f"/storage/arrays/{array.pk}/path/").content.decode()  # staff see it


@pytest.mark.django_db
def test_a_rule_on_the_polls_read_p95_fires_from_the_histogram(sim, clean_backends):
    """sql-data's reads by bucket put its 95th percentile in the 2-5 ms bucket, every poll: a rule "read p95 above
    2 ms" fires at that bucket's bound, and one above 5 ms does not."""
    from monitor.alerts.models import AlertState, Rule
    from monitor.polling.run import run_polls

    array = Device.objects.create(
        name="nimble-1", host="127.0.0.1", port=sim.port, community="nimble", timeout_s=3, poll_interval_s=5
    )  # polled every 5 s: two readings 3 s apart give counts (a rate needs half an interval)
    run_polls([array.pk])  # discovery: hpe-nimble
    for level, name in ((2.0, "p95 over 2 ms"), (5.0, "p95 over 5 ms")):
        Rule.objects.create(
            name=name, metric="volume_read_p95", scope="device", device=array, direction="above", fire_level=level,
            clear_level=level, for_polls=1,
        )  # fmt: skip
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    time.sleep(3)  # counts need two readings
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    states = {(s.rule.name, s.instance, s.state, s.value) for s in AlertState.objects.all()}
    firing = {(s.rule.name, s.instance, s.value) for s in AlertState.objects.filter(state="firing")}
    assert firing == {("p95 over 2 ms", "sql-data", 5.0)}, states


@pytest.mark.django_db(transaction=True)
def test_a_storage_center_alert_cleared_by_the_array_is_ok_on_its_page_and_an_active_one_is_not(
    sim, clean_backends, client, admin_user
):
    """Through the poller, InfluxDB and the array page: scAlertActive false makes an alert ok whatever its status."""
    from monitor.polling.run import run_polls
    from monitor.storage import health

    device = Device.objects.create(name="sc-hw", host="127.0.0.1", port=sim.port, community="schw", timeout_s=3)
    run_polls([device.pk])
    device.refresh_from_db()
    assert device.profile == "dell-storage-sc"
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())
    alerts = {p.name: (p.state, p.word) for p in health.parts(str(device.pk), registry()[device.profile])
              if p.kind == "Alert"}  # fmt: skip
    assert alerts == {
        "SN 60001 17 Disk 01-02 is predicted to fail": ("degraded", "degraded"),
        "SN 60002 18 Power Supply 2 is <b>down</b>": ("ok", "cleared"),
        "SN 60001 19 Replay completed": ("ok", "inform"),
        "SN 60002 20 Controller SN 60002 lost its cache": ("failed", "critical"),  # no scAlertActive: it stands
    }
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{device.pk}/").content.decode()
    assert "Power Supply 2 is &lt;b&gt;down&lt;/b&gt;" in page and "<b>down</b>" not in page  # a device string
    from monitor.models import Graph

    temperature_graphs = Graph.objects.filter(device=device, template="temperature").values_list("instance", flat=True)
    assert set(temperature_graphs) == {"SN 60001 CPU One", "SN 60002 CPU One", "Enclosure - 1 Temp Sensor 1"}


@pytest.mark.django_db(transaction=True)
def test_an_alert_the_storage_center_deletes_closes_as_no_longer_reported_an_hour_on(sim, clean_backends, admin_user):
    """Through the poller and the built-in array rule: the SC drops alert 17 from scAlertTable while it is still
    degraded; the rule's target closes once no poll has read it for an hour, and what the array still serves stands."""
    from datetime import timedelta

    from django.utils import timezone

    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState, Event
    from monitor.polling.run import run_polls

    device = Device.objects.create(name="sc-gone", host="127.0.0.1", port=sim.port, community="schw", timeout_s=3)
    run_polls([device.pk])
    rule = defaults.enable(Device.objects.get(pk=device.pk), "array_health", admin_user)
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())
    disk_alert = "Alert SN 60001 17 Disk 01-02 is predicted to fail"
    firing = set(AlertState.objects.filter(rule=rule, state="firing").values_list("instance", flat=True))
    assert disk_alert in firing and "Alert SN 60002 20 Controller SN 60002 lost its cache" in firing, firing
    Device.objects.filter(pk=device.pk).update(community="schwlater")
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())
    assert AlertState.objects.get(rule=rule, instance=disk_alert).state == "firing"  # unread for minutes: it stands
    AlertState.objects.filter(rule=rule).update(seen_at=timezone.now() - timedelta(minutes=61))  # an hour on
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())
    assert AlertState.objects.get(rule=rule, instance=disk_alert).state == "firing"  # two polls without it so far
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())  # the third
    now_firing = set(AlertState.objects.filter(rule=rule, state="firing").values_list("instance", flat=True))
    assert now_firing == firing - {disk_alert}  # the rest are served, so they stand
    closed = Event.objects.get(rule=rule, instance=disk_alert, kind="clear")
    assert closed.mail == "queued" and closed.detail.startswith("no longer reported by the device since ")


def test_a_table_stopped_at_its_row_limit_is_said_unread_so_its_missing_rows_are_not_gone(sim):
    """The SC's alert table, four rows, under a limit of two: the poll says the `alert` measurement was not read
    whole (alert rules then count no miss for what it lacks); read whole, nothing is unread."""
    from dataclasses import replace

    profile = registry()["dell-storage-sc"]
    short = replace(profile, tables=tuple(replace(t, max_rows=2) if t.name == "alerts" else t for t in profile.tables))
    result = aio.run(poll_device(target(sim, "schw"), "schw", None, profile=short, engine="fast"))
    assert result.unread == {"alert"}
    assert "alerts: table has more than 2 rows; walk stopped" in result.errors
    whole = aio.run(poll_device(target(sim, "schw"), "schw", None, profile=profile, engine="fast"))
    assert whole.unread == set() and not any(s.startswith("alerts:") for s in whole.errors)
