"""Which switch port a MAC address is plugged into, from the forwarding tables of the monitored switches: one rule
for a host and for an array's iSCSI ports (monitor/storage/pathfind.py). Ports towards another monitored switch
are transit, never a host's port; among the remaining ports that learned one MAC, those with the fewest learned MACs
win (an access port carries one host or a few; an uplink to an unmonitored switch carries many). What identifies a
device to its neighbours is here too: the transit rule and the map's links (links.py) name devices by it."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from collectors.topology import L2View


def edge_ports(
    switches: dict[str, L2View], transit: dict[str, set[str]], macs: Iterable[str] | None = None
) -> dict[str, list[tuple[str, str, int | None]]]:
    """{mac: [(switch, port, vlan)]} of the MACs (`macs`, or every one learned) on their edge ports, in the order the
    tables listed them."""
    wanted = None if macs is None else set(macs)
    candidates: dict[str, list[tuple[int, str, str, int | None]]] = defaultdict(list)
    for switch, view in switches.items():
        per_port: dict[str, set[str]] = defaultdict(set)
        for entry in view.fdb:
            per_port[entry.port].add(entry.mac)
        for entry in view.fdb:
            if (wanted is None or entry.mac in wanted) and entry.port not in transit.get(switch, set()):
                candidates[entry.mac].append((len(per_port[entry.port]), switch, entry.port, entry.vlan))
    found: dict[str, list[tuple[str, str, int | None]]] = {}
    for mac, seen in candidates.items():
        fewest = min(count for count, *_ in seen)
        found[mac] = list(dict.fromkeys((switch, port, vlan) for count, switch, port, vlan in seen if count == fewest))
    return found


def identity(view: L2View) -> set[str]:
    """What identifies a device to its neighbours: chassis id, bridge MAC, sysName and its ports' MACs (lower case)."""
    found = {view.chassis_id.lower(), view.bridge_mac.lower(), view.sys_name.lower()}
    return (found | {p.mac for p in view.ports.values() if p.mac}) - {""}
