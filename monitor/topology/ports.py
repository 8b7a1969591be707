"""The port inventory: what each switch said of its ports at the daily layer-2 read (admin status, duplex, VLANs;
collectors/portfacts.py), beside what the polls say (link up, speed) and the links (the port at the other end), and
the problems among them: ports shut by an admin, half duplex, speed or duplex different from the other end."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, Q, QuerySet

from monitor.models import Device, Interface
from monitor.topology.models import Link, PortState
from monitor.topology.optics import OpticNow

PROBLEMS = {
    "admin-down": "shut by an admin",
    "half-duplex": "half duplex",
    "mismatch": "speed or duplex differs from the other end",
}
CHUNK = 1000


def record(views: dict, now: datetime) -> int:
    """Store what each view (device pk -> collectors.topology.L2View) said of its ports; a view whose VLAN tables
    failed keeps the VLANs read before. Returns how many ports were stored."""
    rows, partial = [], []
    for pk, view in views.items():
        for name, facts in view.facts.items():
            row = PortState(
                device_id=int(pk), port=name, admin_up=facts.admin_up, duplex=facts.duplex, pvid=facts.pvid,
                vlans=list(facts.vlans), untagged=list(facts.untagged), read_at=now,
            )  # fmt: skip
            (partial if view.facts_errors else rows).append(row)
    every = ["admin_up", "duplex", "pvid", "vlans", "untagged", "read_at"]
    for found, fields in ((rows, every), (partial, ["admin_up", "duplex", "read_at"])):
        for start in range(0, len(found), CHUNK):
            chunk = found[start : start + CHUNK]
            PortState.objects.bulk_create(
                chunk, update_conflicts=True, unique_fields=["device", "port"], update_fields=fields
            )
    return len(rows) + len(partial)


@dataclass
class PortRow:
    """One port as the inventory lists it; `other`: the port at the other end of its link, if any."""

    device: Device
    port: Interface
    state: PortState | None
    other: tuple[Device, Interface | None, PortState | None] | None = None
    other_visible: bool = False
    problems: list[str] = field(default_factory=list)
    optics: list[OpticNow] = field(default_factory=list)  # its transceiver's newest readings (per lane)

    @property
    def labels(self) -> list[str]:
        return [PROBLEMS[key] for key in self.problems]


def inventory(devices: QuerySet, visible: set[int], optics: dict | None = None) -> list[PortRow]:
    """Every port of `devices`, by device name and ifIndex, with its problems and its transceiver's readings
    (`optics`, monitor/topology/optics.py); the far end of a link is named only where its device is in `visible`."""
    ports = list(Interface.objects.filter(device__in=devices).select_related("device"))
    ids = {p.device_id for p in ports}
    links = Link.objects.filter(Q(a_id__in=ids) | Q(b_id__in=ids), checked_at__lte=F("last_seen"))  # not gone
    ends: dict[tuple[int, str], tuple[int, str]] = {}
    for link in links:
        ends[(link.a_id, link.a_port)] = (link.b_id, link.b_port)
        ends[(link.b_id, link.b_port)] = (link.a_id, link.a_port)
    far = {key[0] for key in ends.values()}
    interfaces = {(p.device_id, p.name): p for p in ports}
    interfaces |= {(p.device_id, p.name): p for p in Interface.objects.filter(device_id__in=far - ids)}
    states = {(s.device_id, s.port): s for s in PortState.objects.filter(device_id__in=ids | far)}
    names = {d.pk: d for d in Device.objects.filter(pk__in=far)}
    rows = []
    for port in sorted(ports, key=lambda p: (p.device.name.casefold(), p.if_index)):
        row = PortRow(port.device, port, states.get((port.device_id, port.name)))
        row.optics = (optics or {}).get((port.device_id, port.name), [])
        end = ends.get((port.device_id, port.name))
        if end is not None and end[0] in names:
            row.other = (names[end[0]], interfaces.get(end), states.get(end))
            row.other_visible = end[0] in visible
        row.problems = problems(row)
        rows.append(row)
    return rows


def problems(row: PortRow) -> list[str]:
    """The keys of PROBLEMS this port has (a mismatch only while both ends are up and both said theirs)."""
    found = []
    if row.state is not None and row.state.admin_up is False:
        found.append("admin-down")
    if row.state is not None and row.state.duplex == "half" and row.port.oper_up:
        found.append("half-duplex")
    if row.other is not None and row.port.oper_up:
        _, far, far_state = row.other
        speeds = (row.port.speed_bps, far.speed_bps if far is not None else 0)
        duplexes = (row.state.duplex if row.state else "", far_state.duplex if far_state else "")
        up = far is not None and far.oper_up
        differ = (all(speeds) and speeds[0] != speeds[1]) or (all(duplexes) and duplexes[0] != duplexes[1])
        if up and differ:
            found.append("mismatch")
    return found
