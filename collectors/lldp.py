"""LLDP neighbours of a device (IEEE 802.1AB): LLDP-MIB (1.0.8802.1.1.2), else LLDP-V2-MIB (802.1AB-2009,
1.3.111.2.802.1.1.13) where only that is served.

- LLDP-MIB: the local chassis id and sysName, lldpLocPortTable (local port number to port id) and lldpRemTable
  (1.0.8802.1.1.2.1.4.1.1, indexed by time mark, local port number and index);
- LLDP-V2-MIB: lldpV2LocChassisIdSubtype, lldpV2LocChassisId, lldpV2LocSysName (1.3.111.2.802.1.1.13.1.3.1-3) and
  lldpV2RemTable (1.3.111.2.802.1.1.13.1.4.1.1: .5 chassis id subtype, .6 chassis id, .7 port id subtype, .8 port
  id, .9 port description, .10 sysName), indexed by time mark, the local port's ifIndex, the destination address
  (nearest bridge, nearest customer bridge, nearest non-TPMR bridge) and index: one neighbour heard on several of
  them is one neighbour.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collectors.l2text import mac_text, text_of
from collectors.sessions import Session
from collectors.snmptypes import SnmpError, SnmpValue

if TYPE_CHECKING:
    from collectors.topology import L2View

LLDP_LOC_CHASSIS_SUBTYPE = "1.0.8802.1.1.2.1.3.1.0"
LLDP_LOC_CHASSIS_ID = "1.0.8802.1.1.2.1.3.2.0"
LLDP_LOC_SYS_NAME = "1.0.8802.1.1.2.1.3.3.0"
LLDP_LOC_PORT_SUBTYPE = "1.0.8802.1.1.2.1.3.7.1.2"
LLDP_LOC_PORT_ID = "1.0.8802.1.1.2.1.3.7.1.3"
LLDP_LOC_PORT_DESC = "1.0.8802.1.1.2.1.3.7.1.4"
LLDP_REM = "1.0.8802.1.1.2.1.4.1.1"
LLDP_REM_COLUMNS = {name: f"{LLDP_REM}.{n}" for name, n in (("chassis_subtype", 4), ("chassis", 5))} | {
    name: f"{LLDP_REM}.{n}" for name, n in (("port_subtype", 6), ("port", 7), ("port_desc", 8), ("sys_name", 9))
}
LLDP_V2 = "1.3.111.2.802.1.1.13.1"
LLDP_V2_LOCAL = [f"{LLDP_V2}.3.{n}.0" for n in (1, 2, 3)]  # chassis id subtype, chassis id, sysName
LLDP_V2_REM = f"{LLDP_V2}.4.1.1"
LLDP_V2_COLUMNS = {
    name: f"{LLDP_V2_REM}.{n}"
    for name, n in (("chassis_subtype", 5), ("chassis", 6), ("port_subtype", 7), ("port", 8), ("port_desc", 9))
} | {"sys_name": f"{LLDP_V2_REM}.10"}
CHASSIS_MAC, PORT_MAC, PORT_NAME, PORT_LOCAL = 4, 3, 5, 7  # LLDP subtypes: macAddress, interfaceName, local


async def read_lldp(session: Session, view: L2View) -> None:
    """The device's LLDP identity and neighbours into `view`: LLDP-MIB, else LLDP-V2-MIB where the first has no
    neighbour and answered."""
    await _read_v1(session, view)
    if not view.neighbours and not any(e.startswith("LLDP") for e in view.errors):
        await _read_v2(session, view)


async def _read_v2(session: Session, view: L2View) -> None:
    try:
        local = await session.get(LLDP_V2_LOCAL)
        remote = await session.walk(list(LLDP_V2_COLUMNS.values()), 10_000)
    except SnmpError as exc:
        view.errors.append(f"LLDP-V2: {exc}")
        return
    columns = {name: remote[oid] for name, oid in LLDP_V2_COLUMNS.items()}
    if not columns["chassis"]:
        return
    subtype, chassis, name = (local[oid] for oid in LLDP_V2_LOCAL)
    view.chassis_id = view.chassis_id or _id_text(chassis, subtype, CHASSIS_MAC)
    view.sys_name = text_of(name) or view.sys_name
    heard = set()
    for index in sorted(columns["chassis"]):
        if len(index) != 4 or index[1] not in view.ports:
            continue
        neighbour = _neighbour(view.ports[index[1]].name, columns, index)
        if (neighbour.local_port, neighbour.chassis_id, neighbour.port_id) not in heard:
            heard.add((neighbour.local_port, neighbour.chassis_id, neighbour.port_id))
            view.neighbours.append(neighbour)


def _neighbour(port_name: str, columns: dict, index: tuple):
    """One remote table row as a Neighbour (LLDP-MIB's and LLDP-V2-MIB's rows say the same)."""
    from collectors.topology import Neighbour  # the view's own type (that module reads LLDP through this one)

    port_kind = columns["port_subtype"].get(index)
    return Neighbour(
        local_port=port_name,
        chassis_id=_id_text(columns["chassis"][index], columns["chassis_subtype"].get(index), CHASSIS_MAC),
        port_id=_id_text(columns["port"].get(index), port_kind, PORT_MAC),
        port_is_mac=port_kind is not None and port_kind.kind == "int" and port_kind.value == PORT_MAC,
        port_desc=text_of(columns["port_desc"].get(index)),
        sys_name=text_of(columns["sys_name"].get(index)),
    )


async def _read_v1(session: Session, view: L2View) -> None:
    try:
        local = await session.get([LLDP_LOC_CHASSIS_SUBTYPE, LLDP_LOC_CHASSIS_ID, LLDP_LOC_SYS_NAME])
        ports = await session.walk([LLDP_LOC_PORT_SUBTYPE, LLDP_LOC_PORT_ID, LLDP_LOC_PORT_DESC], 10_000)
        remote = await session.walk(list(LLDP_REM_COLUMNS.values()), 10_000)
    except SnmpError as exc:
        view.errors.append(f"LLDP: {exc}")
        return
    subtype = local[LLDP_LOC_CHASSIS_SUBTYPE]
    view.chassis_id = _id_text(local[LLDP_LOC_CHASSIS_ID], subtype, CHASSIS_MAC)
    view.sys_name = text_of(local[LLDP_LOC_SYS_NAME]) or view.sys_name
    names = {p.name for p in view.ports.values()}
    by_mac = view.port_by_mac()
    local_ports: dict[int, str] = {}
    for index, port_id in ports[LLDP_LOC_PORT_ID].items():
        if len(index) != 1:
            continue
        kind = ports[LLDP_LOC_PORT_SUBTYPE].get(index)
        desc = ports[LLDP_LOC_PORT_DESC].get(index)
        local_ports[index[0]] = _local_port(view, index[0], port_id, kind, desc, names, by_mac)
    columns = {name: remote[oid] for name, oid in LLDP_REM_COLUMNS.items()}
    for index in sorted(columns["chassis"]):
        if len(index) != 3:
            continue
        number = index[1]
        port_name = local_ports.get(number) or (view.ports[number].name if number in view.ports else "")
        if not port_name:
            continue
        view.neighbours.append(_neighbour(port_name, columns, index))


def _local_port(view, number, port_id, kind, desc, names, by_mac) -> str:
    """The interface name of an LLDP local port: by its id (name, MAC, or ifIndex), else its description."""
    text = port_id.printable() if port_id is not None else ""
    subtype = kind.value if kind is not None and kind.kind == "int" else None
    if subtype == PORT_MAC and mac_text(port_id) in by_mac:
        return by_mac[mac_text(port_id)]
    if text in names:
        return text
    if subtype == PORT_LOCAL and text.isascii() and text.isdigit() and int(text) in view.ports:
        return view.ports[int(text)].name
    described = desc.printable() if desc is not None else ""
    if described in names:
        return described
    return view.ports[number].name if number in view.ports else ""


def _id_text(value: SnmpValue | None, subtype: SnmpValue | None, mac_subtype: int) -> str:
    if value is None or value.missing:
        return ""
    if subtype is not None and subtype.kind == "int" and subtype.value == mac_subtype and mac_text(value):
        return mac_text(value)
    return text_of(value)
