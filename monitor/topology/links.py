"""Links between monitored devices, from the daily layer-2 read (monitor/storage/paths.py): switch to switch from the
LLDP neighbours that name another monitored device (by its chassis id, bridge MAC, a port MAC or its sysName: the
identities the iSCSI path's transit rule uses, monitor/topology/edges.py) and from the forwarding tables alone (each
switch learned the other's own MACs, and no third monitored switch between), and array to switch from the iSCSI
path's own links. Kept as rows with first and last seen: a link not seen again is gone, never deleted; one whose
end did not answer is left as it was (its silence proves nothing)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from django.db.models import Q

from collectors.topology import L2View, Neighbour
from monitor.topology.edges import identity
from monitor.topology.models import Link

CHUNK = 1000  # rows written per statement (and transaction)
Key = tuple[str, str, str, str]  # (device a, port a, device b, port b), a < b as device ids


@dataclass
class Seen:
    """A link found in this read, and how (the sources that said so)."""

    key: Key
    via: set[str] = field(default_factory=set)  # "lldp", "fdb"


class PathFound(Protocol):
    """An iSCSI path link as monitor/storage/pathfind.py finds it."""

    array: str
    array_port: str
    switch: str
    switch_port: str
    via: set[str]


def normalised(a: str, a_port: str, b: str, b_port: str) -> Key:
    """The pair in its stored order: the lower device id first (then the lower port, for a device cabled to itself),
    port names cut to what a row holds."""
    a_port, b_port = a_port[:255], b_port[:255]
    return (a, a_port, b, b_port) if (int(a), a_port) <= (int(b), b_port) else (b, b_port, a, a_port)


def lldp_links(
    switches: dict[str, L2View], silent: dict[str, L2View] | None = None, known: dict[tuple, Key] | None = None
) -> dict[Key, Seen]:
    """Every link an answering switch's LLDP neighbour table shows to another monitored device (`switches`, or a
    `silent` one known by what it said), the far port named by the far device's own port names where it can be;
    towards a silent device whose port the neighbour's words do not name, the stored link from the same near port
    to it (`known`, from `stored_ends`) where there is one, so an outage adds no second row for one cable."""
    owners: dict[str, set[str]] = defaultdict(set)  # identity -> the devices it names (linear, not N x N)
    views = {**(silent or {}), **switches}
    for name, view in views.items():
        for said in identity(view):
            owners[said].add(name)
    claims: list[tuple[Key, str, str, bool]] = []  # (key, near device, near port, far port resolved)
    for name, view in switches.items():
        for neighbour in view.neighbours:
            far = _far_device(neighbour, name, owners, views)
            if far is None:
                continue
            far_port, resolved = far_port_of(neighbour, views[far])
            stored = (known or {}).get((name, neighbour.local_port[:255], far)) if far in (silent or {}) else None
            if not resolved and stored is not None:
                claims.append((stored, name, neighbour.local_port, True))
                continue
            claims.append((normalised(name, neighbour.local_port, far, far_port), name, neighbour.local_port, resolved))
    tied: dict[tuple[str, str], set[str]] = defaultdict(set)  # a port -> the devices a named far port ties it to
    for key, _, _, resolved in claims:
        if resolved:
            tied[(key[0], key[1])].add(key[2])
            tied[(key[2], key[3])].add(key[0])
    found: dict[Key, Seen] = {}
    for key, near, port, resolved in claims:
        far = key[2] if (key[0], key[1]) == (near, port) else key[0]
        if resolved or far not in tied[(near, port)]:  # else the far end's own name for its port is the row kept
            found.setdefault(key, Seen(key)).via.add("lldp")
    return found


def fdb_links(switches: dict[str, L2View]) -> dict[Key, Seen]:
    """Switch-to-switch links from the forwarding tables alone, for switches that speak no LLDP: port P of A and port
    Q of B are one cable when A learned one of B's own MACs on P, B learned one of A's on Q, no third monitored
    switch was learned both on P and on Q (one between them would be: the disjoint forwarding sets of Lowekamp et al.,
    "Topology discovery for large Ethernet networks", SIGCOMM 2001, over the monitored switches' own addresses), and
    no third switch learned A and B on two different ports of its own (it sits between them, though one of them has
    forgotten it). An unmonitored switch between them is not seen: the link is drawn through it."""
    owners: dict[str, set[str]] = defaultdict(set)  # a bridge's own MAC -> the bridges it names
    for name, view in switches.items():
        if view.fdb or view.bridge_mac:
            for mac in identity(view) - {view.sys_name.lower()}:
                owners[mac].add(name)
    through: dict[tuple[str, str], set[str]] = defaultdict(set)  # (switch, port) -> the bridges learned on it
    for name, view in switches.items():
        for entry in view.fdb:
            learned = owners.get(entry.mac, set())
            if len(learned) == 1 and name not in learned:
                through[(name, entry.port)] |= learned
    towards: dict[tuple[str, str], list[str]] = defaultdict(list)  # (switch, bridge) -> its ports that learned it
    for (name, port), learned in through.items():
        for other in learned:
            towards[(name, other)].append(port)

    learners: dict[str, set[str]] = defaultdict(set)  # a bridge -> the switches that learned it
    for name, other in towards:
        learners[other].add(name)

    def between(a: str, b: str) -> bool:
        """A third switch learned a and b on different ports of its own: it is on the way between them."""
        return any(not set(towards[(x, a)]) & set(towards[(x, b)]) for x in (learners[a] & learners[b]) - {a, b})

    def facing(a: str, port: str, b: str) -> str | None:
        """B's one port that learned A and shares no third bridge with A's `port`."""
        beyond = through[(a, port)] - {b}
        fits = [q for q in towards.get((b, a), []) if not beyond & (through[(b, q)] - {a})]
        return fits[0] if len(fits) == 1 else None

    found: dict[Key, Seen] = {}
    for (a, port), learned in list(through.items()):
        for b in learned:
            far = facing(a, port, b)
            if far is not None and facing(b, far, a) == port and not between(a, b):
                key = normalised(a, port, b, far)
                found.setdefault(key, Seen(key)).via.add("fdb")
    return found


def with_fdb(lldp: dict[Key, Seen], fdb: dict[Key, Seen], views: dict[str, L2View]) -> dict[Key, Seen]:
    """LLDP's links and the forwarding tables', one row per cable. Where they name the same cable's ends differently,
    LLDP's word, which the far device gave itself, wins (where LLDP cables two devices, the forwarding tables add no
    other cable between them: a bundle's members speak LLDP, its port-channel learns the MACs), except for a far port
    LLDP named by a text that is none of that device's port names (a description): the forwarding tables' link,
    whose two ports are the devices' own, is that cable, learned from both."""
    out = {key: Seen(key, set(seen.via)) for key, seen in lldp.items()}
    by_end = {(key[i], key[i + 1], key[2 - i]): key for key in fdb for i in (0, 2)}  # (device, port, far device)
    port_names = {device: {port.name for port in view.ports.values()} for device, view in views.items()}
    for key in lldp:
        for near, far in ((0, 2), (2, 0)):
            names = port_names.get(key[far], set())
            other = by_end.get((key[near], key[near + 1], key[far]))
            if names and key[far + 1] not in names and other is not None:
                out.pop(key, None)
                out.setdefault(other, Seen(other)).via.add("lldp")
    ends = {(key[i], key[i + 1]) for key in out for i in (0, 2)}
    pairs = {(key[0], key[2]) for key in out}  # devices LLDP cables: its ports are the cable's (a bundle's members)
    for key, seen in fdb.items():
        if key in out:
            out[key].via.update(seen.via)
        elif (key[0], key[2]) not in pairs and not ({(key[0], key[1]), (key[2], key[3])} & ends):
            out[key] = Seen(key, set(seen.via))
    return out


def _far_device(neighbour: Neighbour, near: str, owners: dict[str, set[str]], views: dict[str, L2View]) -> str | None:
    """The one monitored device (not `near`) a neighbour names: by chassis id, then its port MAC, then sysName. A
    sysName alone does not name a device whose MACs are known and do not include the chassis MAC the neighbour gave:
    that is another box of the same name (an unmonitored twin, a lab copy), not a cable to ours."""
    chassis = neighbour.chassis_id.lower()
    said = [chassis, neighbour.port_id.lower() if neighbour.port_is_mac else "", neighbour.sys_name.lower()]
    for rank, text in enumerate(said):
        found = owners.get(text, set()) - {near} if text else set()
        if len(found) == 1:
            far = next(iter(found))
            if rank == 2 and _other_box(chassis, views[far]):
                return None
            return far
    return None


def _other_box(chassis: str, far: L2View) -> bool:
    """The neighbour's chassis id is a MAC, the far device's own MACs are known, and it is none of them."""
    if len(chassis) != 17 or chassis.count(":") != 5:
        return False
    known = identity(far) - {far.sys_name.lower()}
    return bool(known) and chassis not in known


def far_port_of(neighbour: Neighbour, far: L2View) -> tuple[str, bool]:
    """(the far device's port a neighbour entry names, whether it is one of that device's own port names): by the
    port's MAC, its id, its description; else the text the neighbour gave."""
    names = {port.name for port in far.ports.values()}
    by_mac = far.port_by_mac() if neighbour.port_is_mac else {}
    if neighbour.port_id.lower() in by_mac:
        return by_mac[neighbour.port_id.lower()], True
    for text in (neighbour.port_id, neighbour.port_desc):
        if text in names:
            return text, True
    return neighbour.port_desc or neighbour.port_id, False


def stored_ends(devices: Iterable[str]) -> dict[tuple[str, str, str], Key]:
    """{(device, its port, the device at the other end): the stored link} of the links with an end in `devices`."""
    ids = [int(d) for d in devices]
    rows = Link.objects.filter(Q(a_id__in=ids) | Q(b_id__in=ids)).values_list("a_id", "a_port", "b_id", "b_port")
    ends: dict[tuple[str, str, str], Key] = {}
    for a, a_port, b, b_port in rows:
        key = (str(a), a_port, str(b), b_port)
        ends[(key[0], a_port, key[2])] = key
        ends[(key[2], b_port, key[0])] = key
    return ends


def path_links(found: Iterable[PathFound]) -> dict[Key, Seen]:
    """The iSCSI path's array-to-switch links (monitor/storage/pathfind.py) as links."""
    links: dict[Key, Seen] = {}
    for link in found:
        key = normalised(link.array, link.array_port, link.switch, link.switch_port)
        links.setdefault(key, Seen(key)).via.update(link.via)
    return links


def merged(*found: dict[Key, Seen]) -> dict[Key, Seen]:
    """One entry per link, with every source that said so."""
    out: dict[Key, Seen] = {}
    for part in found:
        for key, seen in part.items():
            out.setdefault(key, Seen(key)).via.update(seen.via)
    return out


def store(found: dict[Key, Seen], answered: Iterable[int], now: datetime) -> int:
    """Upsert what was seen (last seen and checked now, first seen kept), and mark checked now every stored link not
    seen whose both ends answered (so it shows as gone since its last seen); a link with a silent end is untouched.
    Returns how many links were seen."""
    rows = [
        Link(
            a_id=int(a), a_port=a_port, b_id=int(b), b_port=b_port, via_lldp="lldp" in seen.via,
            via_fdb="fdb" in seen.via, first_seen=now, last_seen=now, checked_at=now,
        )
        for (a, a_port, b, b_port), seen in found.items()
    ]  # fmt: skip
    for start in range(0, len(rows), CHUNK):
        Link.objects.bulk_create(
            rows[start : start + CHUNK],
            update_conflicts=True,
            unique_fields=["a", "a_port", "b", "b_port"],
            update_fields=["via_lldp", "via_fdb", "last_seen", "checked_at"],
        )
    ids = sorted(set(answered))
    unseen = Link.objects.filter(last_seen__lt=now, a_id__in=ids, b_id__in=ids)
    unseen.update(checked_at=now)
    return len(rows)
