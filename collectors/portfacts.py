"""What a switch says of each port beyond its traffic, for the port inventory: read with the layer-2 view, once a day.

Sources, all standard:
- IF-MIB ifAdminStatus (1.3.6.1.2.1.2.2.1.7: up 1, down 2, testing 3), by ifIndex;
- EtherLike-MIB dot3StatsDuplexStatus (1.3.6.1.2.1.10.7.2.1.19: unknown 1, halfDuplex 2, fullDuplex 3), by ifIndex;
- Q-BRIDGE-MIB dot1qPvid (1.3.6.1.2.1.17.7.1.4.5.1.1), by bridge port, which BRIDGE-MIB dot1dBasePortIfIndex
  (1.3.6.1.2.1.17.1.4.1.2) turns into an ifIndex;
- Q-BRIDGE-MIB VLAN membership: dot1qVlanCurrentEgressPorts and dot1qVlanCurrentUntaggedPorts
  (1.3.6.1.2.1.17.7.1.4.2.1.4 and .5, by time mark and VLAN id), else the static dot1qVlanStaticEgressPorts and
  dot1qVlanStaticUntaggedPorts (1.3.6.1.2.1.17.7.1.4.3.1.2 and .4, by VLAN id): PortLists, one bit a bridge port,
  the first octet's high bit port 1 (RFC 4363).
A table the device does not serve leaves its part unknown; it fails nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass

from collectors.sessions import Session
from collectors.snmptypes import SnmpError, SnmpValue

IF_ADMIN_STATUS = "1.3.6.1.2.1.2.2.1.7"
DUPLEX_STATUS = "1.3.6.1.2.1.10.7.2.1.19"
BASE_PORT_IFINDEX = "1.3.6.1.2.1.17.1.4.1.2"
PVID = "1.3.6.1.2.1.17.7.1.4.5.1.1"
CURRENT_EGRESS, CURRENT_UNTAGGED = "1.3.6.1.2.1.17.7.1.4.2.1.4", "1.3.6.1.2.1.17.7.1.4.2.1.5"
STATIC_EGRESS, STATIC_UNTAGGED = "1.3.6.1.2.1.17.7.1.4.3.1.2", "1.3.6.1.2.1.17.7.1.4.3.1.4"
DUPLEX = {2: "half", 3: "full"}  # unknown(1): ""
MAX_VLANS = 4094


@dataclass(frozen=True)
class PortFacts:
    """One port: admin up (None: not said), duplex ("full", "half", "" unknown), PVID, and the VLANs it carries."""

    admin_up: bool | None = None
    duplex: str = ""
    pvid: int | None = None
    vlans: tuple[int, ...] = ()  # egress member of these VLANs
    untagged: tuple[int, ...] = ()  # of which untagged


def port_list(value: SnmpValue | None) -> set[int]:
    """The bridge ports (1-based) a PortList's bits name."""
    raw = value.value if value is not None and value.kind == "octets" else b""
    if not isinstance(raw, (bytes, bytearray)):
        return set()
    return {octet * 8 + bit + 1 for octet, byte in enumerate(raw) for bit in range(8) if byte & (0x80 >> bit)}


def _int(value: SnmpValue | None) -> int | None:
    return int(value.value) if value is not None and value.kind in ("int", "gauge") else None


async def read_port_facts(session: Session, names: dict[int, str]) -> tuple[dict[str, PortFacts], list[str]]:
    """Facts of the ports `names` (ifIndex -> name), by name; and what could not be read."""
    errors: list[str] = []
    try:
        status = await session.walk([IF_ADMIN_STATUS, DUPLEX_STATUS], 10_000)
    except SnmpError as exc:
        return {}, [f"port status: {exc}"]
    try:
        bridge = await session.walk([BASE_PORT_IFINDEX, PVID], 10_000)
        current = await session.walk([CURRENT_EGRESS, CURRENT_UNTAGGED], MAX_VLANS)
        static = {} if current[CURRENT_EGRESS] else await session.walk([STATIC_EGRESS, STATIC_UNTAGGED], MAX_VLANS)
    except SnmpError as exc:
        errors.append(f"VLANs: {exc}")
        bridge, current, static = {BASE_PORT_IFINDEX: {}, PVID: {}}, {CURRENT_EGRESS: {}, CURRENT_UNTAGGED: {}}, {}
    to_if = {i[0]: _int(v) for i, v in bridge[BASE_PORT_IFINDEX].items() if len(i) == 1 and _int(v)}

    def interface(port: int) -> int:
        return to_if.get(port) or port  # without BRIDGE-MIB's map, a bridge port is its ifIndex

    egress: dict[int, set[int]] = {}
    untagged: dict[int, set[int]] = {}
    members = (
        [(i[-1], v, current[CURRENT_UNTAGGED].get(i)) for i, v in current[CURRENT_EGRESS].items() if len(i) == 2]
        if current[CURRENT_EGRESS]
        else [
            (i[-1], v, static[STATIC_UNTAGGED].get(i)) for i, v in static.get(STATIC_EGRESS, {}).items() if len(i) == 1
        ]
    )
    for vlan, out, plain in members:
        for port in port_list(out):
            egress.setdefault(interface(port), set()).add(vlan)
        for port in port_list(plain):
            untagged.setdefault(interface(port), set()).add(vlan)
    pvid = {interface(i[0]): _int(v) for i, v in bridge[PVID].items() if len(i) == 1}
    found = {}
    for index, name in names.items():
        admin = _int(status[IF_ADMIN_STATUS].get((index,)))
        found[name] = PortFacts(
            admin_up=None if admin not in (1, 2) else admin == 1,
            duplex=DUPLEX.get(_int(status[DUPLEX_STATUS].get((index,))) or 0, ""),
            pvid=pvid.get(index) or None,
            vlans=tuple(sorted(egress.get(index, ()))),
            untagged=tuple(sorted(untagged.get(index, set()) & egress.get(index, set()))),
        )
    return found, errors
