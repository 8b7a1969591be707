"""Which switch ports carry an array's traffic, from what the devices say about layer 2 (collectors/topology.py).

Two independent sources, each enough on its own:
- forwarding tables: a switch that learned one of the array's port MACs (IF-MIB ifPhysAddress) on a port;
  ports towards other switches (known from LLDP, or from learning another monitored switch's own MACs) are
  transit, not the array's edge, and among the remaining candidates of one MAC those with the fewest learned MACs
  win (monitor/topology/edges.py: the rule every host's port is found by too);
- LLDP: a switch port whose neighbour is the array (its chassis id or one of its port MACs, or its sysName), or
  an array port whose neighbour is the switch (its chassis id, a port MAC, or its sysName) and the port it names.
A link found both ways says so. A switch whose view failed (`silent`) adds no link and no candidate; what is
known of it (its ports' MACs and names read before it stopped, else its sysName from discovery) still makes the
ports towards it transit, so another switch's uplink never looks like the edge it hides.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from collectors.topology import L2View
from monitor.topology.edges import edge_ports, identity


@dataclass
class Link:
    """An array port reached through a switch port, and how that was learned."""

    array: str
    array_port: str
    switch: str
    switch_port: str
    via: set[str] = field(default_factory=set)  # "fdb", "lldp"
    mac: str = ""
    vlan: int | None = None

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.array, self.array_port, self.switch, self.switch_port)


def find_paths(
    arrays: dict[str, L2View],
    switches: dict[str, L2View],
    silent: dict[str, L2View] | None = None,
    transit: dict[str, set[str]] | None = None,
) -> list[Link]:
    """Every (array port, switch port) link, keyed by the names given in the dicts (device ids); `silent`: the
    switches whose view failed, known only by what they said before (for transit, never for a link); `transit`:
    `transit_ports` of them, where the caller has it already."""
    links: dict[tuple, Link] = {}

    def add(array: str, array_port: str, switch: str, switch_port: str, via: str, mac: str = "", vlan=None) -> None:
        link = links.setdefault((array, array_port, switch, switch_port), Link(array, array_port, switch, switch_port))
        link.via.add(via)
        link.mac = link.mac or mac
        link.vlan = link.vlan if link.vlan is not None else vlan

    transit = transit if transit is not None else transit_ports(switches, silent or {})
    for array, view in arrays.items():
        macs = view.port_by_mac()
        _from_fdb(array, macs, switches, transit, add)
        _from_switch_lldp(array, view, macs, switches, add)
        _from_array_lldp(array, view, switches, add)
    return sorted(links.values(), key=lambda link: link.key)


def transit_ports(switches: dict[str, L2View], silent: dict[str, L2View]) -> dict[str, set[str]]:
    """Each switch's ports towards another monitored switch (a silent one too): an LLDP neighbour that is one, or
    its MACs learned."""
    owners: dict[str, set[str]] = defaultdict(set)  # identity -> the switches it identifies (linear, not N x N)
    for name, view in {**silent, **switches}.items():
        for said in identity(view):
            owners[said].add(name)

    def another(text: str, name: str) -> bool:
        found = owners.get(text)
        return bool(found) and (len(found) > 1 or name not in found)

    transit: dict[str, set[str]] = defaultdict(set)
    for name, view in switches.items():
        for neighbour in view.neighbours:
            said = (neighbour.chassis_id.lower(), neighbour.sys_name.lower(), neighbour.port_id.lower())
            if any(another(text, name) for text in said):
                transit[name].add(neighbour.local_port)
        for entry in view.fdb:
            if another(entry.mac, name):
                transit[name].add(entry.port)
    return transit


def _from_fdb(array: str, macs: dict[str, str], switches: dict[str, L2View], transit, add) -> None:
    for mac, places in edge_ports(switches, transit, macs).items():
        for switch, port, vlan in places:
            add(array, macs[mac], switch, port, "fdb", mac, vlan)


def _from_switch_lldp(array: str, view: L2View, macs: dict[str, str], switches: dict[str, L2View], add) -> None:
    """A switch port whose LLDP neighbour is the array; the array port from the neighbour's port id."""
    ids_of_array = identity(view)
    names = {p.name for p in view.ports.values()}
    for switch, switch_view in switches.items():
        for neighbour in switch_view.neighbours:
            ids = {neighbour.chassis_id.lower(), neighbour.sys_name.lower()} - {""}
            port_mac = neighbour.port_id.lower() if neighbour.port_is_mac else ""
            if not (ids & ids_of_array or port_mac in macs):
                continue
            if port_mac in macs:
                array_port = macs[port_mac]
            elif neighbour.port_id in names:
                array_port = neighbour.port_id
            elif neighbour.port_desc in names:
                array_port = neighbour.port_desc
            else:
                array_port = neighbour.port_desc or neighbour.port_id or "?"
            add(array, array_port, switch, neighbour.local_port, "lldp", port_mac)


def _from_array_lldp(array: str, view: L2View, switches: dict[str, L2View], add) -> None:
    """An array port whose LLDP neighbour is a monitored switch; the switch port from the port id it gives."""
    for switch, switch_view in switches.items():
        ids_of_switch = identity(switch_view)
        by_mac = switch_view.port_by_mac()
        names = {p.name for p in switch_view.ports.values()}
        for neighbour in view.neighbours:
            if not ({neighbour.chassis_id.lower(), neighbour.sys_name.lower()} - {""}) & ids_of_switch:
                continue
            if neighbour.port_is_mac and neighbour.port_id.lower() in by_mac:
                port = by_mac[neighbour.port_id.lower()]
            elif neighbour.port_id in names:
                port = neighbour.port_id
            elif neighbour.port_desc in names:
                port = neighbour.port_desc
            else:
                continue
            add(array, neighbour.local_port, switch, port, "lldp")
