"""Keep the Interface and Graph rows in step with the ports a poll saw (by name, not ifIndex)."""

from __future__ import annotations

from collectors.interfaces import Port
from monitor.models import Device, Graph, Interface

TRACKED = ("if_index", "alias", "speed_bps", "oper_up", "hc_counters")


def sync_ports(device: Device, ports: list[Port]) -> None:
    """Create rows for new ports and their traffic graphs; update only the fields that changed."""
    existing = {row.name: row for row in Interface.objects.filter(device=device)}
    new_rows = []
    for port in ports:
        row = existing.get(port.name)
        values = {
            "if_index": port.if_index,
            "alias": port.alias,
            "speed_bps": port.speed_bps,
            "oper_up": port.oper_up,
            "hc_counters": port.hc_counters,
        }
        if row is None:
            new_rows.append(Interface(device=device, name=port.name, **values))
            continue
        changed = [field for field in TRACKED if getattr(row, field) != values[field]]
        if changed:
            for field in changed:
                setattr(row, field, values[field])
            row.save(update_fields=[*changed, "last_seen"])
    if new_rows:
        Interface.objects.bulk_create(new_rows, ignore_conflicts=True)
        ensure_traffic_graphs(device)


def ensure_traffic_graphs(device: Device) -> None:
    """One "Traffic" graph per graphed port, ordered by ifIndex."""
    have = set(Graph.objects.filter(device=device, template="traffic").values_list("instance", flat=True))
    graphs = [
        Graph(
            device=device,
            template="traffic",
            instance=row.name,
            title=f"Traffic {row.name}",
            position=1000 + row.if_index,
        )
        for row in Interface.objects.filter(device=device, graphed=True)
        if row.name not in have
    ]
    Graph.objects.bulk_create(graphs, ignore_conflicts=True)
