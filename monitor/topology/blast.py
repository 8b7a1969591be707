"""The blast radius of one switch port: the devices reached only through it (their way from the poller passes
through that port, monitor/topology/dependencies.py), the arrays among them and the volumes those arrays serve; and
the volume count of arrays behind a device, for its page."""

from __future__ import annotations

from django.db.models import F, Q

from monitor.models import Graph
from monitor.timeseries.templates import TEMPLATES
from monitor.topology.models import Link

VOLUME_TEMPLATES = [slug for slug, template in TEMPLATES.items() if template.measurement == "volume"]


def volumes_of(array_ids: list[int]) -> dict[int, int]:
    """{array id: how many volumes it serves} (the volumes its polls graph)."""
    rows = Graph.objects.filter(device_id__in=array_ids, template__in=VOLUME_TEMPLATES)
    counts: dict[int, int] = {}
    for device_id, _ in set(rows.values_list("device_id", "instance")):
        counts[device_id] = counts.get(device_id, 0) + 1
    return counts


def through_port(device_id: int, port: str, parent_of: dict[int, int | None]) -> tuple[list[int], dict[int, int]]:
    """(the devices behind this port, nearest first: each neighbour on it whose parent is this device, then what is
    behind that neighbour; {neighbour: how many links join it to this device}, more than one where it would live
    through this port's failure on another)."""
    from monitor.topology.dependencies import behind

    near = Q(a_id=device_id, a_port=port) | Q(b_id=device_id, b_port=port)
    ends = Link.objects.filter(near, checked_at__lte=F("last_seen")).values_list("a_id", "b_id")
    children = sorted({b if a == device_id else a for a, b in ends} - {device_id})
    children = [c for c in children if parent_of.get(c) == device_id]
    links = Q(a_id=device_id, b_id__in=children) | Q(b_id=device_id, a_id__in=children)
    joined: dict[int, int] = {}
    for a, b in Link.objects.filter(links, checked_at__lte=F("last_seen")).values_list("a_id", "b_id"):
        other = b if a == device_id else a
        joined[other] = joined.get(other, 0) + 1
    found: list[int] = []
    for child in children:
        found += [child, *(d for d in behind(child, parent_of) if d not in found)]
    return list(dict.fromkeys(found)), joined


def for_port(device_id: int, port: str, visible) -> dict:
    """A port page's blast radius, of the devices `visible` (a queryset) only: [(device, is array, its volumes, the
    links joining it to this switch where it is a neighbour)], and how many volumes in all."""
    from monitor.devices.profiles import is_array
    from monitor.topology.dependencies import parents

    after, joined = through_port(device_id, port, parents())
    shown = {d.pk: d for d in visible.filter(pk__in=after)}
    arrays = [pk for pk in after if pk in shown and is_array(shown[pk])]
    volumes = volumes_of(arrays)
    rows = [(shown[pk], pk in arrays, volumes.get(pk, 0), joined.get(pk, 0)) for pk in after if pk in shown]
    return {"behind": rows, "volumes": sum(volumes.values())}
