"""What a device says about its layer 2 neighbourhood: its ports' MACs, its forwarding table and its LLDP neighbours.

Read through the session interface (collectors/sessions.py), so any engine serves it. Sources, all standard:
- SNMPv2-MIB sysName.0 and BRIDGE-MIB dot1dBaseBridgeAddress (1.3.6.1.2.1.17.1.1.0): names a neighbour may give;
- IF-MIB ifPhysAddress (1.3.6.1.2.1.2.2.1.6) with ifName / ifDescr: each port's MAC;
- BRIDGE-MIB dot1dTpFdbTable (1.3.6.1.2.1.17.4.3.1: .2 port, .3 status, indexed by the MAC) and Q-BRIDGE-MIB
  dot1qTpFdbTable (1.3.6.1.2.1.17.7.1.2.2.1: .2 port, .3 status, indexed by FDB id and MAC), whose bridge ports
  become interfaces through dot1dBasePortIfIndex (1.3.6.1.2.1.17.1.4.1.2);
- LLDP (IEEE 802.1AB): LLDP-MIB, else LLDP-V2-MIB (collectors/lldp.py).
Nothing here knows about arrays or paths: monitor/storage/pathfind.py puts the views together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from collectors.arp import ArpEntry, read_arp
from collectors.chassis import Chassis, read_chassis
from collectors.l2text import mac_text, text_of
from collectors.lldp import read_lldp
from collectors.portfacts import PortFacts, read_port_facts
from collectors.sessions import Session
from collectors.snmptypes import SnmpError, SnmpValue
from collectors.tags import tag_value

SYS_NAME = "1.3.6.1.2.1.1.5.0"
BRIDGE_ADDRESS = "1.3.6.1.2.1.17.1.1.0"  # dot1dBaseBridgeAddress: the bridge's own MAC, often its LLDP chassis id
IF_DESCR = "1.3.6.1.2.1.2.2.1.2"
IF_PHYS_ADDRESS = "1.3.6.1.2.1.2.2.1.6"
IF_NAME = "1.3.6.1.2.1.31.1.1.1.1"
BASE_PORT_IFINDEX = "1.3.6.1.2.1.17.1.4.1.2"
FDB_PORT = "1.3.6.1.2.1.17.4.3.1.2"
FDB_STATUS = "1.3.6.1.2.1.17.4.3.1.3"
QFDB_PORT = "1.3.6.1.2.1.17.7.1.2.2.1.2"
QFDB_STATUS = "1.3.6.1.2.1.17.7.1.2.2.1.3"
FDB_IGNORED = {2, 4, 5}  # invalid(2), self(4: the bridge's own addresses), mgmt(5); learned(3) and other(1) count
MAX_FDB_ROWS = 50_000


@dataclass(frozen=True)
class L2Port:
    """One interface: its ifIndex, name (as the poller names it) and MAC ("" when it has none)."""

    if_index: int
    name: str
    mac: str


@dataclass(frozen=True)
class FdbEntry:
    """A forwarding-table row: this MAC was learned on this port (in this FDB/VLAN when Q-BRIDGE says so)."""

    mac: str
    port: str
    vlan: int | None = None


@dataclass(frozen=True)
class Neighbour:
    """An LLDP neighbour seen on a local port: its chassis id, port id (MACs as aa:bb:.., else text) and name."""

    local_port: str
    chassis_id: str
    port_id: str
    port_is_mac: bool
    port_desc: str
    sys_name: str


@dataclass
class L2View:
    """Everything one device told about layer 2; a table it does not serve is simply empty (errors say why)."""

    ports: dict[int, L2Port] = field(default_factory=dict)
    fdb: list[FdbEntry] = field(default_factory=list)
    neighbours: list[Neighbour] = field(default_factory=list)
    chassis_id: str = ""  # LLDP's local chassis id (a MAC as aa:bb:..)
    sys_name: str = ""  # LLDP's local sysName, else SNMPv2-MIB sysName.0
    bridge_mac: str = ""  # BRIDGE-MIB dot1dBaseBridgeAddress
    arp: list[ArpEntry] = field(default_factory=list)  # IP-MIB: the IP addresses it resolved (collectors/arp.py)
    errors: list[str] = field(default_factory=list)
    arp_errors: list[str] = field(default_factory=list)  # apart: a cache that did not answer fails no layer-2 view
    facts: dict[str, PortFacts] = field(default_factory=dict)  # by port name (collectors/portfacts.py)
    facts_errors: list[str] = field(default_factory=list)  # apart too: the inventory's, not the links'
    chassis: list[Chassis] = field(default_factory=list)  # ENTITY-MIB's chassis (collectors/chassis.py)
    chassis_errors: list[str] = field(default_factory=list)  # apart too

    def port_by_mac(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for port in sorted(self.ports.values(), key=lambda p: p.if_index):
            if port.mac:
                found.setdefault(port.mac, port.name)
        return found


def _mac_of_index(index: tuple[int, ...]) -> str:
    return mac_text(bytes(index)) if len(index) == 6 and all(0 <= b <= 255 for b in index) else ""


async def read_l2(session: Session, fdb: bool = True, lldp: bool = True, arp: bool = False) -> L2View:
    """Ports and MACs, then (when asked) the forwarding tables, LLDP and the ARP cache; a failing part costs only
    itself."""
    view = L2View()
    try:
        system = await session.get([SYS_NAME, BRIDGE_ADDRESS])
        table = await session.walk([IF_NAME, IF_DESCR, IF_PHYS_ADDRESS], 10_000)
    except SnmpError as exc:
        view.errors.append(f"interfaces: {exc}")
        return view
    view.sys_name = text_of(system.get(SYS_NAME))
    view.bridge_mac = mac_text(system.get(BRIDGE_ADDRESS))
    for index in sorted({i for column in table.values() for i in column if len(i) == 1}):
        name = table[IF_NAME].get(index)
        descr = table[IF_DESCR].get(index)
        text = (name.printable() if name else "") or (descr.printable() if descr else "") or f"ifIndex {index[0]}"
        view.ports[index[0]] = L2Port(index[0], tag_value(text), mac_text(table[IF_PHYS_ADDRESS].get(index)))
    if fdb:
        await _read_fdb(session, view)
    if lldp:
        await read_lldp(session, view)
    if arp:
        view.arp, view.arp_errors = await read_arp(session)
    view.chassis, view.chassis_errors = await read_chassis(session)
    if fdb:
        view.facts, view.facts_errors = await read_port_facts(
            session, {p.if_index: p.name for p in view.ports.values()}
        )
    return view


async def _read_fdb(session: Session, view: L2View) -> None:
    try:
        bridge = await session.walk([BASE_PORT_IFINDEX], 10_000)
        plain = await session.walk([FDB_PORT, FDB_STATUS], MAX_FDB_ROWS)
        tagged = await session.walk([QFDB_PORT, QFDB_STATUS], MAX_FDB_ROWS)
    except SnmpError as exc:
        view.errors.append(f"forwarding table: {exc}")
        return
    if_index = {i[0]: v.value for i, v in bridge[BASE_PORT_IFINDEX].items() if len(i) == 1 and v.kind == "int"}

    def port_name(base_port: SnmpValue | None) -> str:
        if base_port is None or base_port.kind not in ("int", "gauge") or not base_port.value:
            return ""
        number = int(base_port.value)
        port = view.ports.get(if_index.get(number, number))  # without BRIDGE-MIB's map, bridge port = ifIndex
        return port.name if port is not None else ""

    seen: set[tuple[str, str]] = set()
    for index, value in tagged[QFDB_PORT].items():
        status = tagged[QFDB_STATUS].get(index)
        mac, name = _mac_of_index(index[1:]), port_name(value)
        if mac and name and not (status is not None and status.kind == "int" and status.value in FDB_IGNORED):
            view.fdb.append(FdbEntry(mac, name, index[0]))
            seen.add((mac, name))
    for index, value in plain[FDB_PORT].items():
        status = plain[FDB_STATUS].get(index)
        mac, name = _mac_of_index(index), port_name(value)
        ignored = status is not None and status.kind == "int" and status.value in FDB_IGNORED
        if mac and name and not ignored and (mac, name) not in seen:
            view.fdb.append(FdbEntry(mac, name))
