"""Build snmpsim recordings for a simulated fleet whose counters move at known rates (our own data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

SYS = "1.3.6.1.2.1.1"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
IFX_TABLE = "1.3.6.1.2.1.31.1.1.1"


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


@dataclass
class SimDevice:
    """One agent's data: identity, ports and any extra records (OID, tag, value)."""

    community: str
    sys_descr: str
    sys_object_id: str
    sys_name: str
    ports: list[SimPort] = field(default_factory=list)
    extra: list[tuple[str, str, str]] = field(default_factory=list)

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
                (f"{IF_TABLE}.7.{i}", "2", "1"),
                (f"{IF_TABLE}.8.{i}", "2", "1" if p.oper_up else "2"),
                (f"{IF_TABLE}.10.{i}", "65:simdev", _counter(p.in_rate, p, 32, f"{p.name}-in")),
                (f"{IF_TABLE}.16.{i}", "65:simdev", _counter(p.out_rate, p, 32, f"{p.name}-out")),
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
                    (19, 0.0, "out-discards"),
                    (20, 0.0, "out-errors"),
                )
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
                    (f"{IFX_TABLE}.10.{i}", "70:simdev", _counter(p.out_rate, p, 64, f"{p.name}-out")),
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


def _counter(rate: float, port: SimPort, bits: int, key: str) -> str:
    initial = (
        port.initial if port.initial is not None else (port.index * 7_919_000_003) % (2**32 if bits == 32 else 2**40)
    )
    text = f"r={rate},o={initial},b={bits},k={key}"
    if port.amplitude:
        text += f",a={port.amplitude},p={port.period_s}"
    return text


def _escape(value: str) -> str:
    return value.replace("\n", " ").replace("|", "/")


def powerconnect_6248(community: str = "pc6248", name: str = "pc6248-demo", busy: bool = True) -> SimDevice:
    """A Dell PowerConnect 6248: 48 gigabit ports 1/g1..1/g48, four 10G uplinks, traffic that breathes."""
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
                amplitude=0.5 if busy else 0.0,
                period_s=900 + 60 * n,
            )
        )
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
            )
        )
    extra = [
        ("1.3.6.1.4.1.674.10895.3000.1.2.100.1.0", "4", "PowerConnect 6248"),
        ("1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.1.0", "2", "23127"),
        ("1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.2.0", "2", "262144"),
        (
            "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.4.0",
            "4",
            "    5 Secs ( 12.4918%)   60 Secs ( 9.2271%)  300 Secs ( 8.2591%)",
        ),
    ]
    return SimDevice(
        community, "PowerConnect 6248, 3.3.7.3, VxWorks 6.5", "1.3.6.1.4.1.674.10895.3011", name, ports, extra
    )


def equallogic_array(community: str = "eql", name: str = "eql-demo", volumes: int = 3) -> SimDevice:
    """A Dell EqualLogic PS-like member: iSCSI ports, health, sensors, a pool and volumes with I/O counters.

    Volume v (1-based) does 100*v read and 50*v write operations per second at (1.5*v) ms and (0.5*v) ms
    average latency, moving 8 KiB per operation; latency sums count microseconds, as real arrays do.
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
        (f"{eql}.16.1.1.1.3.1.1", "4", "default"),
        (f"{eql}.16.1.2.1.1.1.1", "70", "4194304"),
        (f"{eql}.16.1.2.1.2.1.1", "70", "1572864"),
    ]
    for n, (sensor, celsius) in enumerate([("Backplane sensor 0", 31), ("Control module 0 processor", 54)], 1):
        extra += [
            (f"{eql}.2.1.6.1.2.{member}.{n}", "4", sensor),
            (f"{eql}.2.1.6.1.3.{member}.{n}", "2:simdev", f"g={celsius},k=temp{n}"),
            (f"{eql}.2.1.6.1.4.{member}.{n}", "2", "1"),
            (f"{eql}.2.1.6.1.5.{member}.{n}", "2", "70"),
            (f"{eql}.2.1.6.1.6.{member}.{n}", "2", "60"),
        ]
    member_idx = "1841966935"
    for v in range(1, volumes + 1):
        idx = f"{member_idx}.{v}"
        reads, writes = 100.0 * v, 50.0 * v
        extra += [
            (f"{eql}.5.1.7.1.1.4.{idx}", "4", f"vmfs-datastore-{v}"),
            (f"{eql}.5.1.7.1.1.8.{idx}", "2", str(512000 * v)),
            (f"{eql}.5.1.7.7.1.9.{idx}", "2", "4"),
            (f"{eql}.5.1.7.7.1.13.{idx}", "66", str(200000 * v)),
            (f"{eql}.5.1.7.34.1.3.{idx}", "70:simdev", f"r={reads * 8192},b=64,k=vol{v}-rx"),
            (f"{eql}.5.1.7.34.1.4.{idx}", "70:simdev", f"r={writes * 8192},b=64,k=vol{v}-wx"),
            (f"{eql}.5.1.7.34.1.6.{idx}", "70:simdev", f"r={reads * 1500 * v},b=64,k=vol{v}-rlat"),
            (f"{eql}.5.1.7.34.1.7.{idx}", "70:simdev", f"r={writes * 500 * v},b=64,k=vol{v}-wlat"),
            (f"{eql}.5.1.7.34.1.8.{idx}", "70:simdev", f"r={reads},b=64,k=vol{v}-rops"),
            (f"{eql}.5.1.7.34.1.9.{idx}", "70:simdev", f"r={writes},b=64,k=vol{v}-wops"),
        ]
    return SimDevice(community, "Storage Array", "1.3.6.1.4.1.12740.17.1", name, ports, extra)


def demo_fleet() -> list[SimDevice]:
    return [powerconnect_6248(), equallogic_array()]
