"""NetApp's health as ONTAP shows it (issue 43): NETAPP-MIB's disk summary (failed, pre-failed, reconstructing and
spare disks), failed fans and power supplies, and SnapMirror relationships (7-Mode's snapmirrorStatusTable and
clustered ONTAP's snapmirrorRelStatusTable) with their lag; read from two real recordings and from a simulated filer
through the product's own poll path, where the built-in replication lag alert fires and clears."""

from __future__ import annotations

import bz2
from pathlib import Path

import pytest
import snmpsim_data

from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_polls

NA = "1.3.6.1.4.1.789.1"
RECORDINGS = Path(snmpsim_data.__file__).parent / "data" / "storage"
HOUR_TICKS = 360_000  # TimeTicks are hundredths of a second


def filer(community: str, sick: bool) -> fleet.SimDevice:
    """A 7-Mode filer with two mirrors and a clustered relationship; `sick`: a failed disk, two pre-failed, one
    reconstructing (40 % done), no spare, a failed fan, mirror vol_db 40 hours behind, vol_home broken off, the
    clustered one quiesced and unhealthy. Not sick: every count healthy and each mirror an hour behind."""
    device = fleet.SimDevice(community, "NetApp Release 8.1.4P1 7-Mode", "1.3.6.1.4.1.789.2.3", "fas-a")
    counts = {7: 1, 11: 2, 3: 1, 4: 0, 8: 0} if sick else {7: 0, 11: 0, 3: 0, 4: 0, 8: 4}
    device.extra += [(f"{NA}.6.4.{n}.0", "2", str(v)) for n, v in counts.items()]
    device.extra += [(f"{NA}.2.4.2.0", "2", "1" if sick else "0"), (f"{NA}.2.4.4.0", "2", "0")]
    device.extra += [  # raidVTable: a disk reconstructing, 40 % done (raidVStatus, raidVCompletionPerCent)
        (f"{NA}.6.2.1.2.1.1.1", "4", "data disk 0a.00.5"),
        (f"{NA}.6.2.1.3.1.1.1", "2", "2" if sick else "1"),
        (f"{NA}.6.2.1.11.1.1.1", "2", "40" if sick else "0"),
    ]
    device.extra += [
        (f"{NA}.5.4.1.2.1", "4", "/vol/vol_db/"),  # dfFileSys: a file system, so the filer is an array
        (f"{NA}.5.4.1.29.1", "70", str(100 * 2**20)),  # df64TotalKBytes: 100 GiB
        (f"{NA}.5.4.1.30.1", "70", str(40 * 2**20)),
        (f"{NA}.5.4.1.31.1", "70", str(60 * 2**20)),
    ]
    mirrors = [  # (source, destination, status, state, lag in hours)
        ("fas-a:vol_db", "fas-b:vol_db_mirror", 2, 2, 40 if sick else 1),  # transferring, snapmirrored
        ("fas-a:vol_home", "fas-b:vol_home_mirror", 1, 3 if sick else 2, 2 if sick else 1),  # idle, brokenOff
    ]
    for row, (src, dst, status, state, hours) in enumerate(mirrors, 1):
        device.extra += [
            (f"{NA}.9.20.1.2.{row}", "4", src),
            (f"{NA}.9.20.1.3.{row}", "4", dst),
            (f"{NA}.9.20.1.4.{row}", "2", str(status)),
            (f"{NA}.9.20.1.5.{row}", "2", str(state)),
            (f"{NA}.9.20.1.6.{row}", "67", str(hours * HOUR_TICKS)),
        ]
    device.extra += [
        (f"{NA}.29.1.1.2.1", "4", "svm1:vol_a"),
        (f"{NA}.29.1.1.3.1", "4", "svm2:vol_a_dr"),
        (f"{NA}.29.1.1.5.1", "2", "5" if sick else "0"),  # quiesced / idle
        (f"{NA}.29.1.1.6.1", "2", "1"),  # snapmirrored
        (f"{NA}.29.1.1.7.1", "67", str(HOUR_TICKS)),
        (f"{NA}.29.1.1.16.1", "2", "0" if sick else "1"),  # healthy false / true
    ]
    return device


def implied(name: str) -> str:
    """An IMPLIED DisplayString index: the name's octets, without the length before them (RFC 2578 7.7)."""
    return ".".join(str(octet) for octet in name.encode())


# What NETAPP-MIB's enumerations name the codes served below (nodeTable, haTable), the words the page must show
BATTERY = {1: "ok", 5: "nearEndOfLife"}  # nodeNvramBatteryStatus ok(1) ... nearEndOfLife(5) ...
OVER_TEMPERATURE = {1: "no", 2: "yes"}  # nodeEnvOverTemperature
HEALTH = {0: "false", 1: "true"}  # nodeHealth, Boolean TC false(0) true(1)
HA_STATE = {2: "canTakeover", 3: "cannotTakeover"}  # haState dead(1) canTakeover(2) cannotTakeover(3) ...
HA_PARTNER = {1: "maybeDown", 2: "ok"}  # haPartnerStatus maybeDown(1) ok(2) dead(3)
# Each node's codes: (nodeHealth, nodeNvramBatteryStatus, nodeEnvOverTemperature, failed fans, failed power
# supplies, haState, haPartnerStatus); cl-02 cannot communicate with the cluster, two fans have failed, its battery
# nears its end of life, it cannot take over and its partner may be down
NODES = {"cl-01": (1, 1, 1, 0, 0, 2, 2), "cl-02": (0, 5, 1, 2, 0, 3, 1)}


def cluster(community: str) -> fleet.SimDevice:
    """A two-node clustered ONTAP cluster: nodeTable and haTable rows, indexed by the node's name (IMPLIED), and none
    of 7-Mode's health scalars."""
    release = "NetApp Release 9.8P1: Thu Mar 11 04:48:59 UTC 2021"
    device = fleet.SimDevice(community, release, "1.3.6.1.4.1.789.2.5", "cl")  # netappCluster
    for name, codes in NODES.items():
        row = implied(name)
        device.extra += [(f"{NA}.25.2.1.1.{row}", "4", name)]  # nodeName
        # nodeHealth, nodeNvramBatteryStatus, nodeEnvOverTemperature, nodeEnvFailedFanCount, ...PowerSupplyCount
        columns = (f"25.2.1.{c}" for c in (11, 17, 18, 19, 21))
        device.extra += [(f"{NA}.{c}.{row}", "2", str(v)) for c, v in zip(columns, codes[:5], strict=True)]
        device.extra += [(f"{NA}.21.2.1.1.{row}", "4", name)]  # haNodeName
        columns = ("21.2.1.4", "21.2.1.6")  # haState, haPartnerStatus
        device.extra += [(f"{NA}.{c}.{row}", "2", str(v)) for c, v in zip(columns, codes[5:], strict=True)]
    return device


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    root = tmp_path_factory.mktemp("netapp")
    filer("sick", sick=True).write(root / "data")
    filer("well", sick=False).write(root / "data")
    cluster("cdot").write(root / "data")
    for name in ("netapp-fas3270", "netapp-ontap-8-2-3"):
        recording = (RECORDINGS / f"{name}.snmprec.bz2").read_bytes()
        (root / "data" / f"{name}.snmprec").write_bytes(bz2.decompress(recording))
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-netapp")
    yield port, root / "data"
    process.stop()


def recorded(path: Path, oid: str) -> str:
    """A value as the recording holds it (its own truth, read from the file)."""
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(oid + "|"):
            return line.split("|", 2)[2]
    raise AssertionError(f"{oid} is not in {path.name}")


def poll(port: int, community: str):
    profile = registry()["netapp-ontap"]
    target = SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)
    return profile, aio.run(poll_device(target, community, None, profile=profile, engine="fast"))


@pytest.mark.parametrize("name", ["netapp-fas3270", "netapp-ontap-8-2-3"])
def test_real_filers_disk_summary_reads_as_states_with_their_counts(agent, name):
    from monitor.storage.health import readings

    port, data = agent
    profile, result = poll(port, name)
    spares = int(recorded(data / f"{name}.snmprec", f"{NA}.6.4.8.0"))  # diskSpareCount: 4 and 8
    assert spares > 0 and int(recorded(data / f"{name}.snmprec", f"{NA}.6.4.7.0")) == 0
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["System spare disks the device"] == ("ok", f"{spares} spare(s)")
    for part in ("failed disks", "pre-failed disks", "disks reconstructing", "failed fans", "failed power supplies"):
        assert found[f"System {part} the device"] == ("ok", "none")


def test_a_real_7_mode_mirror_is_a_replication_part_with_its_lag(agent):
    """The FAS3270 recording's one relationship: Fas3270a:vol_DR_mh01 to Fas3240a:vol_DR_xh01, idle(1), the source
    side (source(5)), snapmirrorLag 2691705304 ticks: 311 days behind, a mirror long abandoned."""
    from monitor.storage.health import readings

    port, data = agent
    profile, result = poll(port, "netapp-fas3270")
    rows = {(s.tags["volume"], s.tags["partner"]): s.fields for s in result.samples if s.measurement == "replication"}
    assert list(rows) == [("Fas3270a:vol_DR_mh01", "Fas3240a:vol_DR_xh01")]
    ticks = int(recorded(data / "netapp-fas3270.snmprec", f"{NA}.9.20.1.6.1"))
    assert rows[("Fas3270a:vol_DR_mh01", "Fas3240a:vol_DR_xh01")]["lag_s"] == pytest.approx(ticks / 100)
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["Replication Fas3270a:vol_DR_mh01 Fas3240a:vol_DR_xh01"] == ("ok", "idle")
    assert found["Replication state Fas3270a:vol_DR_mh01 Fas3240a:vol_DR_xh01"] == ("ok", "source")


@pytest.mark.django_db(transaction=True)
def test_a_sick_filer_shows_what_is_wrong_and_a_late_mirror_alerts_until_it_catches_up(
    agent, clean_backends, client, admin_user
):
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState, Event

    port, _ = agent
    device = Device.objects.create(name="fas-a", host="127.0.0.1", port=port, community="sick", timeout_s=3)
    run_polls([device.pk])  # discovery
    device.refresh_from_db()
    assert device.profile == "netapp-ontap"
    defaults.enable(device, "replication_lag", admin_user)
    defaults.enable(device, "array_health", admin_user)
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())

    firing = dict(
        AlertState.objects.filter(state="firing", rule__builtin="replication_lag").values_list("instance", "value")
    )
    assert firing == {"fas-a:vol_db fas-b:vol_db_mirror": 40 * 3600.0}  # 40 h behind, past 36; vol_home's 2 h not
    parts = dict(
        AlertState.objects.filter(state="firing", rule__builtin="array_health").values_list("instance", "value")
    )
    assert parts == {
        "Disk data disk 0a.00.5": 3.0,  # reconstructionInProgress
        "System failed disks the device": 4.0,
        "System pre-failed disks the device": 1.0,
        "System disks reconstructing the device": 3.0,
        "System spare disks the device": 1.0,  # no spare: a warning
        "System failed fans the device": 2.0,
        "Replication state fas-a:vol_home fas-b:vol_home_mirror": 2.0,  # broken off
        "Replication svm1:vol_a svm2:vol_a_dr": 2.0,  # quiesced
        "Replication health svm1:vol_a svm2:vol_a_dr": 2.0,  # ONTAP says unhealthy
    }

    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{device.pk}/").content.decode()
    assert "1 failed" in page and "2 prefailed" in page and "no spare" in page and "brokenOff" in page
    assert "1 d 16 h behind" in page  # vol_db's lag beside its status
    assert 'reconstructionInProgress <span class="progress">40 % done' in page
    mail = [e for e in Event.objects.filter(kind="fire") if e.state.rule.builtin == "replication_lag"]
    assert len(mail) == 1 and mail[0].state.instance == "fas-a:vol_db fas-b:vol_db_mirror"

    Device.objects.filter(pk=device.pk).update(community="well")  # caught up: an hour behind, all healthy
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())
    assert not AlertState.objects.filter(state="firing").exists()
    cleared = {e.state.instance for e in Event.objects.filter(kind="clear")}
    assert "fas-a:vol_db fas-b:vol_db_mirror" in cleared and "System failed disks the device" in cleared


def test_each_volumes_snapshot_reserve_is_read_from_its_snapshot_row(agent):
    """dfTable lists "/vol/vol0/" and "/vol/vol0/.snapshot" (and "aggr0sas", "aggr0sas/.snapshot"): the second row's
    size is the reserve and its used what snapshots hold, written to the first's series."""
    port, data = agent
    text = (data / "netapp-fas3270.snmprec").read_text(errors="replace")
    names = {}
    for line in filter(lambda line: line.count("|") >= 2, text.splitlines()):
        oid, kind, value = line.split("|", 2)
        if oid.startswith(f"{NA}.5.4.1.2."):
            names[oid.rsplit(".", 1)[1]] = bytes.fromhex(value).decode() if kind == "4x" else value
    snap = {name: index for index, name in names.items() if name.endswith(".snapshot")}
    assert {"/vol/vol0/.snapshot", "aggr0sas/.snapshot"} <= set(snap)
    _, result = poll(port, "netapp-fas3270")
    reserves = {
        s.tags["volume"]: s.fields
        for s in result.samples
        if s.measurement == "volume" and "snapshot_reserve_bytes" in s.fields
    }
    assert len(reserves) == len(snap)  # every .snapshot row, none of the others
    for volume, row in (("/vol/vol0/", snap["/vol/vol0/.snapshot"]), ("aggr0sas", snap["aggr0sas/.snapshot"])):
        total = int(recorded(data / "netapp-fas3270.snmprec", f"{NA}.5.4.1.29.{row}")) * 1024
        used = int(recorded(data / "netapp-fas3270.snmprec", f"{NA}.5.4.1.30.{row}")) * 1024
        assert reserves[volume]["snapshot_reserve_bytes"] == total
        assert reserves[volume]["snapshot_used_bytes"] == used
        if total:
            assert reserves[volume]["snapshot_used_pct"] == pytest.approx(100 * used / total)
        else:  # no reserve: no share of it
            assert "snapshot_used_pct" not in reserves[volume]
    volumes = {s.tags["volume"] for s in result.samples if s.measurement == "volume" and "size_bytes" in s.fields}
    assert not any(v.endswith(".snapshot") for v in volumes) and set(reserves) <= volumes


# cfState's words (NETAPP-MIB: dead(1) canTakeover(2) cannotTakeover(3) takeover(4)), envOverTemperature's and
# nvramBatteryStatus's (the same enumerations as the nodeTable columns above)
CF_STATE = {1: "dead", 2: "canTakeover", 3: "cannotTakeover", 4: "takeover"}


@pytest.mark.parametrize("name", ["netapp-fas3270", "netapp-ontap-8-2-3"])
def test_real_7_mode_filers_still_read_their_health_scalars_and_have_no_nodes(agent, name):
    """The two 7-Mode recordings serve no nodeTable or haTable: their health is the filer-wide scalars, as before."""
    from monitor.storage.health import readings

    port, data = agent
    profile, result = poll(port, name)
    code = {oid: int(recorded(data / f"{name}.snmprec", f"{NA}.{oid}.0")) for oid in ("2.3.2", "2.4.1", "2.5.1")}
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["System failover the device"][1] == CF_STATE[code["2.3.2"]]
    assert found["System temperature the device"][1] == OVER_TEMPERATURE[code["2.4.1"]]
    assert found["System NVRAM battery the device"][1] == BATTERY[code["2.5.1"]]
    assert code == {"2.3.2": 2, "2.4.1": 1, "2.5.1": 1}  # canTakeover, not over temperature, battery ok
    assert {found[f"System {p} the device"][0] for p in ("failover", "temperature", "NVRAM battery")} == {"ok"}
    assert not [part for part in found if part.startswith("Controller")]
    assert not [s for s in result.samples if s.measurement == "controller"]


@pytest.mark.django_db(transaction=True)
def test_a_clustered_ontap_shows_each_nodes_health_on_its_page(agent, clean_backends, client, admin_user):
    """Through the poll path and InfluxDB to the health panel: each node of nodeTable and haTable a part per status,
    named by its node, in the state its code means with NETAPP-MIB's word; a node that cannot communicate with the
    cluster is failed."""
    from monitor.storage import health

    port, _ = agent
    device = Device.objects.create(name="cl", host="127.0.0.1", port=port, community="cdot", timeout_s=3)
    run_polls([device.pk])  # discovery
    device.refresh_from_db()
    assert device.profile == "netapp-ontap"
    assert all(o.startswith("ok") for o in run_polls([device.pk]).values())

    shown = health.parts(str(device.pk), registry()[device.profile])
    found = {(p.kind, p.name): (p.state, p.word) for p in shown}
    well, sick = NODES["cl-01"], NODES["cl-02"]
    assert found == {
        ("Controller cluster health", "cl-01"): ("ok", HEALTH[well[0]]),
        ("Controller NVRAM battery", "cl-01"): ("ok", BATTERY[well[1]]),
        ("Controller temperature", "cl-01"): ("ok", OVER_TEMPERATURE[well[2]]),
        ("Controller failed fans", "cl-01"): ("ok", "none"),
        ("Controller failed power supplies", "cl-01"): ("ok", "none"),
        ("Controller HA state", "cl-01"): ("ok", HA_STATE[well[5]]),
        ("Controller HA partner", "cl-01"): ("ok", HA_PARTNER[well[6]]),
        ("Controller cluster health", "cl-02"): ("failed", HEALTH[sick[0]]),  # cannot communicate with the cluster
        ("Controller NVRAM battery", "cl-02"): ("warning", BATTERY[sick[1]]),  # nearEndOfLife: replace it soon
        ("Controller temperature", "cl-02"): ("ok", OVER_TEMPERATURE[sick[2]]),
        ("Controller failed fans", "cl-02"): ("degraded", "2 failed"),  # a count: two of its fans
        ("Controller failed power supplies", "cl-02"): ("ok", "none"),
        ("Controller HA state", "cl-02"): ("degraded", HA_STATE[sick[5]]),  # no takeover: no redundancy
        ("Controller HA partner", "cl-02"): ("warning", HA_PARTNER[sick[6]]),
    }
    assert shown[0].name == "cl-02" and shown[0].state == "failed"  # the worst first
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{device.pk}/").content.decode()
    assert "nearEndOfLife" in page and "2 failed" in page and "cannotTakeover" in page
