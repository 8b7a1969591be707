"""Build snmpsim recordings for a simulated fleet whose counters move at known rates (our own data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from monitor.devstack.layer2 import (  # noqa: F401 - re-exported: tests and the demo build switches from here
    BRIDGE_PORT_IFINDEX,
    FDB,
    LLDP_LOC,
    LLDP_REM,
    QFDB,
    Attached,
    array_attachments,
    l2_records,
)
from monitor.devstack.optics import Optic, contained

SYS = "1.3.6.1.2.1.1"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
IFX_TABLE = "1.3.6.1.2.1.31.1.1.1"
DOT3_PAUSE = "1.3.6.1.2.1.10.7.10.1"
DOT3_STATS = "1.3.6.1.2.1.10.7.2.1"
# The demo's hourly storage spike: 5 minutes from 20 past every hour (the array's latency and the switch port
# on its path together; tests move it with the control file's "pulse").
SPIKE = (3600, 1200, 300)
DAILY_PHASE = 57600  # a sine of period one day peaks at 14:00 UTC with this phase
# The demo array's bad afternoon, every day (period, offset, duration): disk 5 fails at 13:00 UTC and is replaced
# at 16:00; its RAID set reconstructs onto the spare from 13:00 to 15:00 (the array page's "Health now", the
# built-in array alert)
DISK_FAILURE = (86400, 13 * 3600, 3 * 3600)
REBUILD = (86400, 13 * 3600, 2 * 3600)
FAILING_DISK = 5
# Unused share of each volume's snapshot reserve, by volume number modulo 3: volumes 1, 2 and 3 have used 40, 85
# and 10 % of theirs (volume 2 past the array's warning level, 20 % unused; the built-in snapshot reserve alert)
SNAPSHOT_FREE_PCT = (90, 60, 15)


@dataclass
class SimPort:
    """A simulated interface; rates in bytes per second (sine-modulated when amplitude > 0)."""

    index: int
    name: str
    speed_bps: int = 1_000_000_000
    in_rate: float = 0.0
    out_rate: float = 0.0
    alias: str = ""
    oper_up: bool = True
    hc: bool = True
    amplitude: float = 0.0
    period_s: float = 3600.0
    initial: int | None = None  # counter value at the agent's boot (default: a per-port spread)
    mac: str = ""  # ifPhysAddress, aa:bb:cc:dd:ee:ff
    pulse: tuple[int, int, int] | None = None  # (period, offset, duration) s of a recurring burst
    pulse_out_rate: float = 0.0  # bytes/s more sent during the burst
    pulse_out_discards: float = 0.0  # frames/s discarded outbound during the burst
    pulse_in_pause: float = 0.0  # pause frames/s received during the burst
    pause: bool = False  # serves EtherLike-MIB dot3PauseTable
    admin_up: bool = True  # IF-MIB ifAdminStatus
    duplex: str = "full"  # EtherLike-MIB dot3StatsDuplexStatus: "full", "half", or "" (not served)


@dataclass(frozen=True)
class ArrayIo:
    """How a simulated array's I/O moves (monitor/devstack/story.py writes the demo's past from it): the day's
    shape of every I/O rate, and each volume's and member's read latency, usually and during the hourly spike."""

    daily: tuple[float, float, float]  # amplitude, period s, phase s: rate x (1 + a sin(2 pi (t + phase) / period))
    spike: tuple[int, int, int]  # period, offset, duration s
    read_ms: dict[tuple[str, str], tuple[float, float]]  # (measurement, name) -> (usual ms, ms during the spike)


@dataclass
class SimDevice:
    """One agent's data: identity, ports and any extra records (OID, tag, value)."""

    community: str
    sys_descr: str
    sys_object_id: str
    sys_name: str
    ports: list[SimPort] = field(default_factory=list)
    extra: list[tuple[str, str, str]] = field(default_factory=list)
    io: ArrayIo | None = None  # a breathing array's I/O model

    def records(self) -> list[tuple[str, str, str]]:
        rows = [
            (f"{SYS}.1.0", "4", self.sys_descr),
            (f"{SYS}.2.0", "6", self.sys_object_id),
            (f"{SYS}.3.0", "67:simdev", "u=1"),
            (f"{SYS}.5.0", "4", self.sys_name),
            ("1.3.6.1.2.1.2.1.0", "2", str(len(self.ports))),
        ]
        for p in self.ports:
            i = p.index
            rows += [
                (f"{IF_TABLE}.1.{i}", "2", str(i)),
                (f"{IF_TABLE}.2.{i}", "4", p.name),
                (f"{IF_TABLE}.3.{i}", "2", "6"),
                (f"{IF_TABLE}.5.{i}", "66", str(min(p.speed_bps, 4_294_967_295))),
                *([(f"{IF_TABLE}.6.{i}", "4x", p.mac.replace(":", ""))] if p.mac else []),
                (f"{IF_TABLE}.7.{i}", "2", "1" if p.admin_up else "2"),
                *([(f"{DOT3_STATS}.19.{i}", "2", "3" if p.duplex == "full" else "2")] if p.duplex else []),
                (f"{IF_TABLE}.8.{i}", "2", "1" if p.oper_up else "2"),
                (f"{IF_TABLE}.10.{i}", "65:simdev", _counter(p.in_rate, p, 32, f"{p.name}-in")),
                (f"{IF_TABLE}.16.{i}", "65:simdev", _counter(p.out_rate, p, 32, f"{p.name}-out", p.pulse_out_rate)),
                (f"{IFX_TABLE}.1.{i}", "4", p.name),
                (f"{IFX_TABLE}.15.{i}", "66", str(p.speed_bps // 1_000_000)),
                (f"{IFX_TABLE}.18.{i}", "4", p.alias),
            ]
            # Errors, discards and packets, as a real switch serves them (a frame of 800 bytes on average).
            in_pps, out_pps = p.in_rate / 800, p.out_rate / 800
            rows += [
                (f"{IF_TABLE}.{column}.{i}", "65:simdev", _counter(rate, p, 32, f"{p.name}-{key}"))
                for column, rate, key in (
                    (11, in_pps, "in-ucast32"),
                    (13, 0.0, "in-discards"),
                    (14, 0.01, "in-errors"),
                    (17, out_pps, "out-ucast32"),
                    (20, 0.0, "out-errors"),
                )
            ]
            rows.append(
                (
                    f"{IF_TABLE}.19.{i}",
                    "65:simdev",
                    _counter(0.0, p, 32, f"{p.name}-out-discards", p.pulse_out_discards),
                )
            )
            if p.pause:  # EtherLike-MIB dot3InPauseFrames / dot3OutPauseFrames
                rows += [
                    (f"{DOT3_PAUSE}.3.{i}", "65:simdev", _counter(0.0, p, 32, f"{p.name}-in-pause", p.pulse_in_pause)),
                    (f"{DOT3_PAUSE}.4.{i}", "65:simdev", _counter(0.0, p, 32, f"{p.name}-out-pause")),
                ]
            rows += [
                (f"{IFX_TABLE}.3.{i}", "65:simdev", _counter(1.0, p, 32, f"{p.name}-in-bcast32")),
                (f"{IFX_TABLE}.5.{i}", "65:simdev", _counter(0.5, p, 32, f"{p.name}-out-bcast32")),
            ]
            if p.hc:
                rows += [
                    (f"{IFX_TABLE}.6.{i}", "70:simdev", _counter(p.in_rate, p, 64, f"{p.name}-in")),
                    (f"{IFX_TABLE}.7.{i}", "70:simdev", _counter(in_pps, p, 64, f"{p.name}-in-ucast")),
                    (f"{IFX_TABLE}.9.{i}", "70:simdev", _counter(1.0, p, 64, f"{p.name}-in-bcast")),
                    (
                        f"{IFX_TABLE}.10.{i}",
                        "70:simdev",
                        _counter(p.out_rate, p, 64, f"{p.name}-out", p.pulse_out_rate),
                    ),
                    (f"{IFX_TABLE}.11.{i}", "70:simdev", _counter(out_pps, p, 64, f"{p.name}-out-ucast")),
                    (f"{IFX_TABLE}.13.{i}", "70:simdev", _counter(0.5, p, 64, f"{p.name}-out-bcast")),
                ]
        return rows + list(self.extra)

    def write(self, data_dir: Path) -> Path:
        """Write <community>.snmprec in OID order (snmpsim binary-searches the file)."""
        data_dir.mkdir(parents=True, exist_ok=True)
        path = data_dir / f"{self.community}.snmprec"
        rows = sorted(self.records(), key=lambda row: tuple(int(x) for x in row[0].split(".")))
        path.write_text("".join(f"{oid}|{tag}|{_escape(value)}\n" for oid, tag, value in rows))
        return path


def _counter(rate: float, port: SimPort, bits: int, key: str, burst: float = 0.0) -> str:
    initial = (
        port.initial if port.initial is not None else (port.index * 7_919_000_003) % (2**32 if bits == 32 else 2**40)
    )
    text = f"r={rate},o={initial},b={bits},k={key}"
    if port.amplitude:
        text += f",a={port.amplitude},p={port.period_s}"
    if burst and port.pulse:
        text += ",s={},sp={},so={},sd={}".format(burst, *port.pulse)
    return text


def _escape(value: str) -> str:
    return value.replace("\n", " ").replace("|", "/")


def powerconnect_6248(
    community: str = "pc6248",
    name: str = "pc6248-demo",
    busy: bool = True,
    attached: list[Attached] | None = None,
    fdb: bool = True,
    lldp: bool | str = True,
    spike: tuple[int, int, int] | None = None,
    mac_prefix: str = "00:1e:c9:00",
    extra: list[tuple[str, str, str]] | None = None,
) -> SimDevice:
    """A Dell PowerConnect 6248: 48 gigabit ports 1/g1..1/g48, four 10G uplinks, traffic that breathes.

    Its chassis MAC is `mac_prefix`:00:00, port n's `mac_prefix`:00:n and uplink n's `mac_prefix`:01:n; `extra`:
    more records (an ARP cache).

    `attached`: hosts on its ports, served in its forwarding tables (`fdb`) and LLDP neighbours (`lldp`); with a
    `spike`, the first attached port carries a burst near line rate (96 %) with discards and pause frames then."""
    attached = attached or []
    busy_port = attached[0].switch_port if attached and spike else None
    ports = []
    for n in range(1, 49):
        up = n % 11 != 0
        base = (n % 8 + 1) * 2_500_000.0 if busy and up else 0.0
        ports.append(
            SimPort(
                index=n,
                name=f"1/g{n}",
                alias=f"server-{n:02d}" if up else "",
                oper_up=up,
                in_rate=base,
                out_rate=base * 0.6,
                amplitude=0.5 if busy and n != busy_port else 0.0,
                period_s=900 + 60 * n,
                mac=f"{mac_prefix}:00:{n:02x}",
                pause=True,
            )
        )
    if busy_port is not None:
        port = ports[busy_port - 1]
        port.alias = f"{attached[0].sys_name} {attached[0].port_name}"
        port.pulse, port.pulse_out_rate = spike, 120_000_000.0 - port.out_rate  # 96 % of 1 Gbit/s
        port.pulse_out_discards, port.pulse_in_pause = 40.0, 150.0
    for n in range(1, 5):
        ports.append(
            SimPort(
                index=48 + n,
                name=f"1/xg{n}",
                speed_bps=10_000_000_000,
                alias=f"iSCSI uplink {n}",
                in_rate=60_000_000.0 * n if busy else 0.0,
                out_rate=45_000_000.0 * n if busy else 0.0,
                amplitude=0.3 if busy else 0.0,
                period_s=1200,
                mac=f"{mac_prefix}:01:{n:02x}",
                pause=True,
            )
        )
    extra = [
        *(extra or []),
        ("1.3.6.1.4.1.674.10895.3000.1.2.100.1.0", "4", "PowerConnect 6248"),
        ("1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.1.0", "2", "23127"),
        ("1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.2.0", "2", "262144"),
        (
            "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.4.0",
            "4",
            "    5 Secs ( 12.4918%)   60 Secs ( 9.2271%)  300 Secs ( 8.2591%)",
        ),
    ]
    own = mac_prefix.split(":")[-1]
    servers = [Attached(n, f"00:50:56:{own}:00:{n:02x}") for n in range(1, 7)]  # VMware hosts' NICs, no LLDP
    extra += l2_records(ports, servers + attached, f"{mac_prefix}:00:00", name, fdb, lldp)
    return SimDevice(
        community, "PowerConnect 6248, 3.3.7.3, VxWorks 6.5", "1.3.6.1.4.1.674.10895.3011", name, ports, extra
    )


def equallogic_array(
    community: str = "eql",
    name: str = "eql-demo",
    volumes: int = 3,
    breathing: bool = False,
    replication: dict[int, int] | None = None,
) -> SimDevice:
    """A Dell EqualLogic PS-like member: iSCSI ports, health, sensors, two pools and volumes with I/O counters.

    Volume v (1-based) does 100*v read and 50*v write operations per second at (1.5*v) ms and (0.5*v) ms
    average latency, moving 8 KiB per operation, with an average queue depth of 2*v, in pool "default" (volumes 1
    and 2) or "ssd" (the others); latency sums count microseconds, as real arrays do, and the average-latency
    gauges say so in whole milliseconds. `breathing`: operations follow the day (peak at 14:00 UTC, half at
    night) and, during the hourly spike (SPIKE), volumes 1 and 2 read at 65 ms and 35 ms whatever the hour.
    """
    ports = [
        SimPort(
            index=i + 1,
            name=f"eth{i}",
            alias="iSCSI" if i < 3 else "management",
            in_rate=40_000_000.0 if i < 3 else 20_000.0,
            out_rate=55_000_000.0 if i < 3 else 30_000.0,
            amplitude=0.4,
            period_s=1800,
            mac=f"00:09:8a:07:00:{i + 1:02x}",
        )
        for i in range(4)
    ]
    member = "1.1841966935"
    eql = "1.3.6.1.4.1.12740"
    extra = [
        (f"{eql}.2.1.1.1.9.{member}", "4", "eql-member-1"),
        (f"{eql}.2.1.5.1.1.{member}", "2", "1"),
        (f"{eql}.2.1.10.1.1.{member}", "2", "4194304"),
        (f"{eql}.2.1.10.1.2.{member}", "2", "1572864"),
        (f"{eql}.2.1.12.1.1.{member}", "66", str(4 * volumes)),
        (f"{eql}.16.1.1.1.3.1.1", "4", "default"),  # eqlStoragePoolName, index eqlGroupId.eqlStoragePoolIndex
        (f"{eql}.16.1.2.1.1.1.1", "70", "4194304"),
        (f"{eql}.16.1.2.1.2.1.1", "70", "1572864"),
        (f"{eql}.16.1.1.1.3.1.2", "4", "ssd"),
        (f"{eql}.16.1.2.1.1.1.2", "70", "2097152"),
        (f"{eql}.16.1.2.1.2.1.2", "70", "614400"),
    ]
    for n, (sensor, celsius) in enumerate([("Backplane sensor 0", 31), ("Control module 0 processor", 54)], 1):
        extra += [
            (f"{eql}.2.1.6.1.2.{member}.{n}", "4", sensor),
            (f"{eql}.2.1.6.1.3.{member}.{n}", "2:simdev", f"g={celsius},k=temp{n}"),
            (f"{eql}.2.1.6.1.4.{member}.{n}", "2", "1"),
            (f"{eql}.2.1.6.1.5.{member}.{n}", "2", "70"),
            (f"{eql}.2.1.6.1.6.{member}.{n}", "2", "60"),
        ]
    if breathing:
        extra += _health_story(eql, member)
    shape = f",a=0.5,p=86400,f={DAILY_PHASE}" if breathing else ""
    spike_ms = {1: 65.0, 2: 35.0}
    member_reads = member_writes = 0.0
    member_read_us = member_write_us = member_spike_us = 0.0
    member_idx = "1841966935"
    for v in range(1, volumes + 1):
        idx = f"{member_idx}.{v}"
        reads, writes = 100.0 * v, 50.0 * v
        read_ms, write_ms, depth = 1.5 * v, 0.5 * v, 2.0 * v
        burst = ""
        gauge_burst = ""
        if breathing and v in spike_ms:
            extra_us = reads * (spike_ms[v] - read_ms) * 1000  # rides on the day's shape as the reads do
            member_spike_us += extra_us
            burst = ",s={},sp={},so={},sd={}".format(extra_us, *SPIKE)
            gauge_burst = ",gs={},sp={},so={},sd={}".format(round(spike_ms[v]), *SPIKE)
        member_reads, member_writes = member_reads + reads, member_writes + writes
        member_read_us += reads * read_ms * 1000
        member_write_us += writes * write_ms * 1000
        extra += [
            (f"{eql}.5.1.7.1.1.4.{idx}", "4", f"vmfs-datastore-{v}"),
            (f"{eql}.5.1.7.1.1.8.{idx}", "2", str(512000 * v)),
            (f"{eql}.5.1.7.1.1.22.{idx}", "66", "1" if v < 3 else "2"),  # eqliscsiVolumeStoragePoolIndex
            (f"{eql}.5.1.7.1.1.11.{idx}", "2", "20"),  # eqliscsiVolumeSnapWarningLevel: warn below 20 % unused
            (f"{eql}.5.1.7.7.1.2.{idx}", "2", str(100000 * v)),  # snapshot reserve, MB
            (f"{eql}.5.1.7.7.1.3.{idx}", "2", str(SNAPSHOT_FREE_PCT[v % 3] * 1000 * v)),  # of it unused, MB
            (f"{eql}.5.1.7.7.1.8.{idx}", "2", "1"),  # eqliscsiVolumeStatusOperStatus: available
            (f"{eql}.5.1.7.7.1.9.{idx}", "2", "4"),
            (f"{eql}.5.1.7.7.1.13.{idx}", "66", str(200000 * v)),
            (f"{eql}.5.1.7.34.1.3.{idx}", "70:simdev", f"r={reads * 8192},b=64,k=vol{v}-rx{shape}"),
            (f"{eql}.5.1.7.34.1.4.{idx}", "70:simdev", f"r={writes * 8192},b=64,k=vol{v}-wx{shape}"),
            (f"{eql}.5.1.7.34.1.6.{idx}", "70:simdev", f"r={reads * read_ms * 1000},b=64,k=vol{v}-rlat{shape}{burst}"),
            (f"{eql}.5.1.7.34.1.7.{idx}", "70:simdev", f"r={writes * write_ms * 1000},b=64,k=vol{v}-wlat{shape}"),
            (f"{eql}.5.1.7.34.1.8.{idx}", "70:simdev", f"r={reads},b=64,k=vol{v}-rops{shape}"),
            (f"{eql}.5.1.7.34.1.9.{idx}", "70:simdev", f"r={writes},b=64,k=vol{v}-wops{shape}"),
            (f"{eql}.5.1.7.34.1.10.{idx}", "66:simdev", f"g={round(read_ms)},k=vol{v}-ravg{gauge_burst}"),
            (f"{eql}.5.1.7.34.1.11.{idx}", "66:simdev", f"g={round(write_ms)},k=vol{v}-wavg"),
            (f"{eql}.5.1.7.34.1.14.{idx}", "70:simdev", f"r={reads + writes},b=64,k=vol{v}-cmds{shape}"),
            (f"{eql}.5.1.7.34.1.15.{idx}", "70:simdev", f"r={(reads + writes) * depth},b=64,k=vol{v}-qd{shape}"),
        ]
    member_burst = member_gauge_burst = ""
    if member_spike_us:  # the member's reads during the spike: its volumes' together
        member_burst = ",s={},sp={},so={},sd={}".format(member_spike_us, *SPIKE)
        spike_gauge = round((member_read_us + member_spike_us) / member_reads / 1000)
        member_gauge_burst = ",gs={},sp={},so={},sd={}".format(spike_gauge, *SPIKE)
    read_gauge = round(member_read_us / member_reads / 1000)
    extra += [  # the member's own I/O: the sum of its volumes
        (f"{eql}.2.1.12.1.2.{member}", "70:simdev", f"r={member_read_us},b=64,k=member-rlat{shape}{member_burst}"),
        (f"{eql}.2.1.12.1.3.{member}", "70:simdev", f"r={member_write_us},b=64,k=member-wlat{shape}"),
        (f"{eql}.2.1.12.1.4.{member}", "66:simdev", f"g={read_gauge},k=member-ravg{member_gauge_burst}"),
        (f"{eql}.2.1.12.1.5.{member}", "66", str(round(member_write_us / member_writes / 1000))),
        (f"{eql}.2.1.12.1.6.{member}", "70:simdev", f"r={member_reads},b=64,k=member-rops{shape}"),
        (f"{eql}.2.1.12.1.7.{member}", "70:simdev", f"r={member_writes},b=64,k=member-wops{shape}"),
        (f"{eql}.2.1.12.1.8.{member}", "70:simdev", f"r={member_reads * 8192},b=64,k=member-tx{shape}"),
        (f"{eql}.2.1.12.1.9.{member}", "70:simdev", f"r={member_writes * 8192},b=64,k=member-rx{shape}"),
    ]
    if replication:
        extra.append((f"{eql}.5.1.7.14.1.3.1", "4", "dr-site"))  # eqliscsiVolumeReplSiteName of site 1
    for v, status in (replication or {}).items():  # volume v replicating to site 1: its oper status, MB left
        extra += [
            (f"{eql}.5.1.7.16.1.1.{member_idx}.{v}.1", "2", str(status)),  # eqliscsiVolumeReplOperStatus
            (f"{eql}.5.1.7.16.1.2.{member_idx}.{v}.1", "70", str(1024 * v)),  # eqliscsiVolumeReplMBRemaining
        ]
    io = None
    if breathing:
        read_ms = {
            ("volume", f"vmfs-datastore-{v}"): (1.5 * v, spike_ms.get(v, 1.5 * v)) for v in range(1, volumes + 1)
        }
        read_ms[("member", "eql-member-1")] = (
            member_read_us / member_reads / 1000,
            (member_read_us + member_spike_us) / member_reads / 1000,
        )
        io = ArrayIo((0.5, 86400.0, float(DAILY_PHASE)), SPIKE, read_ms)
    return SimDevice(community, "Storage Array", "1.3.6.1.4.1.12740.17.1", name, ports, extra, io)


def _health_story(eql: str, member: str) -> list[tuple[str, str, str]]:
    """Eight disks (EQLDISK-MIB), one of them failing each afternoon (DISK_FAILURE), the member's RAID set
    reconstructing meanwhile (REBUILD) with its progress, two power supplies: the statuses the array's profile maps to
    states."""
    rows = [(f"{eql}.2.1.13.1.1.{member}", "2:simdev", "g=1,gs=4,sp={},so={},sd={}".format(*REBUILD))]
    # eqlMemberRaidProgress, thousandths of a percent: 0 to 100 % through the rebuild
    rows += [(f"{eql}.2.1.13.1.5.{member}", "66:simdev", "g=0,gr=100000,sp={},so={},sd={}".format(*REBUILD))]
    for n, psu in enumerate(("Power Cooling Module 0", "Power Cooling Module 1"), 1):
        rows += [(f"{eql}.2.1.8.1.2.{member}.{n}", "4", psu), (f"{eql}.2.1.8.1.3.{member}.{n}", "2", "1")]
    for slot in range(8):
        status = "2" if slot == 7 else "1"  # on-line, the last a spare
        value = "g=1,gs=3,sp={},so={},sd={}".format(*DISK_FAILURE) if slot == FAILING_DISK else f"g={status}"
        rows += [
            (f"{eql}.3.1.1.1.11.{member}.{slot + 1}", "4", str(slot)),
            (f"{eql}.3.1.1.1.8.{member}.{slot + 1}", "2:simdev", value),
            (f"{eql}.3.1.1.1.6.{member}.{slot + 1}", "2", "953869"),
        ]
    return rows


def demo_fleet() -> list[SimDevice]:
    """The demo: a breathing EqualLogic array cabled to a PowerConnect 6248 (eth0..eth3 on 1/g7..1/g10), whose
    forwarding tables and LLDP tie those ports to the array, and whose 1/g7 is near line rate during the spike."""
    array = equallogic_array(breathing=True)
    return [powerconnect_6248(attached=array_attachments(array), spike=SPIKE), array]


CORE_MACS, ACCESS_MACS = "00:1e:c9:10", "00:1e:c9:20"
CAMPUS_HOSTS = 12  # servers on access2-demo's ports 1/g1..1/g12, with the addresses core-demo's ARP cache has


def campus_fleet() -> list[SimDevice]:
    """The demo's campus around its story pair (issue 42's map and dependencies): core-demo, its 1/xg1 cabled to
    pc6248-demo's 1/xg1 and its 1/xg2 to access2-demo's 1/xg1 (LLDP both ways to access2-demo, from the core's side
    to pc6248-demo), servers with MACs on access2-demo's edge ports and their IP addresses in the core's ARP cache,
    and the light levels of the core's two SFP+ modules (ENTITY-SENSOR-MIB)."""
    story = "00:1e:c9:00"  # pc6248-demo's (powerconnect_6248's default)
    hosts = [Attached(n, f"00:50:56:21:00:{n:02x}") for n in range(1, CAMPUS_HOSTS + 1)]
    arp = []
    for host in hosts:
        ip = f"10.20.0.{10 + host.switch_port}"
        arp += [(f"1.3.6.1.2.1.4.22.1.2.50.{ip}", "4x", host.mac.replace(":", "")),
                (f"1.3.6.1.2.1.4.22.1.4.50.{ip}", "2", "3")]  # fmt: skip
    sfps = [Optic(49, "1/xg1", -2.8, -2.1, 36.5), Optic(50, "1/xg2", -7.9, -2.3, 41.0)]  # SFP+ DOM on both uplinks
    core = powerconnect_6248("core", "core-demo", mac_prefix=CORE_MACS, extra=arp + contained(sfps), attached=[
        Attached(49, f"{story}:01:01", "pc6248-demo", "1/xg1", f"{story}:00:00"),
        Attached(50, f"{ACCESS_MACS}:01:01", "access2-demo", "1/xg1", f"{ACCESS_MACS}:00:00"),
    ])  # fmt: skip
    access = powerconnect_6248("access2", "access2-demo", mac_prefix=ACCESS_MACS, attached=[
        Attached(49, f"{CORE_MACS}:01:02", "core-demo", "1/xg2", f"{CORE_MACS}:00:00"), *hosts,
    ])  # fmt: skip
    return [core, access]
