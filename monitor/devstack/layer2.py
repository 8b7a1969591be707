"""A simulated switch's layer 2 (BRIDGE-MIB and Q-BRIDGE-MIB forwarding entries, LLDP-MIB local ports and
neighbours) and the cabling of an array's ports to it: the records the iSCSI path is learned from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from monitor.devstack.fleet import SimDevice, SimPort

BRIDGE_ADDRESS = "1.3.6.1.2.1.17.1.1.0"
BRIDGE_PORT_IFINDEX = "1.3.6.1.2.1.17.1.4.1.2"
FDB = "1.3.6.1.2.1.17.4.3.1"
QFDB = "1.3.6.1.2.1.17.7.1.2.2.1"
PVID = "1.3.6.1.2.1.17.7.1.4.5.1.1"
VLAN_STATIC = "1.3.6.1.2.1.17.7.1.4.3.1"  # .2 egress ports, .4 untagged ports (PortLists), by VLAN id
LLDP_LOC = "1.0.8802.1.1.2.1.3"
LLDP_REM = "1.0.8802.1.1.2.1.4.1.1"
LLDP_V2 = "1.3.111.2.802.1.1.13.1"


@dataclass(frozen=True)
class Attached:
    """A host port cabled to a switch port: its MAC, and what its LLDP says (sysName, port, chassis id)."""

    switch_port: int
    mac: str
    sys_name: str = ""
    port_name: str = ""
    chassis: str = ""


def _mac_index(mac: str) -> str:
    return ".".join(str(int(part, 16)) for part in mac.split(":"))


def l2_records(
    ports: list[SimPort],
    attached: list[Attached],
    chassis: str,
    sys_name: str,
    fdb: bool,
    lldp: bool | str,
    vlan: int = 100,
) -> list[tuple[str, str, str]]:
    """BRIDGE-MIB and Q-BRIDGE-MIB forwarding entries (`fdb`) and LLDP-MIB neighbours (`lldp`; "v2": LLDP-V2-MIB
    alone) of a switch whose ports have these hosts attached."""
    rows: list[tuple[str, str, str]] = []
    if fdb:
        rows.append((BRIDGE_ADDRESS, "4x", chassis.replace(":", "")))  # dot1dBaseBridgeAddress: the chassis MAC
        rows += [(f"{BRIDGE_PORT_IFINDEX}.{p.index}", "2", str(p.index)) for p in ports]
        rows += [(f"{PVID}.{p.index}", "66", str(vlan)) for p in ports]  # every port untagged in `vlan`
        members = port_list([p.index for p in ports])
        rows += [(f"{VLAN_STATIC}.2.{vlan}", "4x", members), (f"{VLAN_STATIC}.4.{vlan}", "4x", members)]
        for host in attached:
            index = _mac_index(host.mac)
            rows += [
                (f"{FDB}.1.{index}", "4x", host.mac.replace(":", "")),
                (f"{FDB}.2.{index}", "2", str(host.switch_port)),
                (f"{FDB}.3.{index}", "2", "3"),  # learned
                (f"{QFDB}.2.{vlan}.{index}", "66", str(host.switch_port)),
                (f"{QFDB}.3.{vlan}.{index}", "2", "3"),
            ]
    if lldp == "v2":
        rows += _lldp_v2(attached, chassis, sys_name)
    elif lldp:
        rows += [
            (f"{LLDP_LOC}.1.0", "2", "4"),  # chassis id subtype macAddress
            (f"{LLDP_LOC}.2.0", "4x", chassis.replace(":", "")),
            (f"{LLDP_LOC}.3.0", "4", sys_name),
        ]
        for p in ports:
            rows += [
                (f"{LLDP_LOC}.7.1.2.{p.index}", "2", "7"),  # port id subtype local: the ifIndex
                (f"{LLDP_LOC}.7.1.3.{p.index}", "4", str(p.index)),
                (f"{LLDP_LOC}.7.1.4.{p.index}", "4", p.name),
            ]
        for host in attached:
            if not host.sys_name:
                continue
            rows += _remote(LLDP_REM, 4, f"0.{host.switch_port}.1", host)
    return rows


def _remote(table: str, first: int, row: str, host: Attached) -> list[tuple[str, str, str]]:
    """One neighbour's row of a remote table (LLDP-MIB's lldpRemTable from column 4, LLDP-V2-MIB's from 5: the same
    six columns): chassis id subtype and id (a MAC), port id subtype and id (a MAC), port description, sysName."""
    values = [
        ("2", "4"), ("4x", (host.chassis or host.mac).replace(":", "")), ("2", "3"),
        ("4x", host.mac.replace(":", "")), ("4", host.port_name), ("4", host.sys_name),
    ]  # fmt: skip
    return [(f"{table}.{first + n}.{row}", tag, value) for n, (tag, value) in enumerate(values)]


def _lldp_v2(attached: list[Attached], chassis: str, sys_name: str) -> list[tuple[str, str, str]]:
    """LLDP-V2-MIB (802.1AB-2009): the local identity, and each neighbour by the local port's ifIndex, heard on the
    nearest bridge address (destination index 1) and, as agents that run LLDP per address list it again, on the
    nearest non-TPMR bridge one (3)."""
    rows = [
        (f"{LLDP_V2}.3.1.0", "2", "4"),  # lldpV2LocChassisIdSubtype: macAddress
        (f"{LLDP_V2}.3.2.0", "4x", chassis.replace(":", "")),
        (f"{LLDP_V2}.3.3.0", "4", sys_name),
    ]
    for host in attached:
        if not host.sys_name:
            continue
        for destination in (1, 3):
            rows += _remote(f"{LLDP_V2}.4.1.1", 5, f"0.{host.switch_port}.{destination}.1", host)
    return rows


def port_list(ports: list[int]) -> str:
    """A Q-BRIDGE-MIB PortList as hex: one bit a bridge port, the first octet's high bit port 1."""
    bits = bytearray((max(ports, default=0) + 7) // 8)
    for port in ports:
        bits[(port - 1) // 8] |= 0x80 >> ((port - 1) % 8)
    return bits.hex()


def array_attachments(array: SimDevice, first_port: int = 7) -> list[Attached]:
    """The array's ports cabled to consecutive switch ports from `first_port` (1/g7, 1/g8, ...)."""
    chassis = array.ports[0].mac[:-2] + "00" if array.ports and array.ports[0].mac else ""
    return [
        Attached(first_port + n, p.mac, array.sys_name, p.name, chassis) for n, p in enumerate(array.ports) if p.mac
    ]
