"""Which device the poller reaches each device through (its parent), from the links between devices and the admin's
overrides; what sits behind a device (its blast radius); which failing devices are only unreachable.

Roots are the devices the admin says the poller reaches directly; in a group of linked devices without one, the
device with the most links (the core; the lowest id on a tie). Every other device's parent is its neighbour one
hop nearer a root, by the shortest path over links not gone; an override names the parent outright."""

from __future__ import annotations

from collections import deque

from django.db.models import F

from monitor.models import Device
from monitor.topology.models import Link, Upstream


def parents() -> dict[int, int | None]:
    """Every enabled device's parent id (None: a root, or linked to nothing)."""
    enabled = set(Device.objects.filter(enabled=True).values_list("pk", flat=True))
    overrides = {d: p for d, p in Upstream.objects.values_list("device_id", "parent_id") if d in enabled}
    neighbours: dict[int, set[int]] = {pk: set() for pk in enabled}
    for a, b in Link.objects.filter(checked_at__lte=F("last_seen")).values_list("a_id", "b_id"):
        if a in enabled and b in enabled and a != b:
            neighbours[a].add(b)
            neighbours[b].add(a)
    found: dict[int, int | None] = {}
    _spread(sorted(d for d, p in overrides.items() if p is None or p not in enabled), neighbours, found)
    for start in sorted(enabled, key=lambda pk: (-len(neighbours[pk]), pk)):
        if start not in found:
            _spread([start], neighbours, found)
    for device, parent in overrides.items():
        found[device] = parent if parent in enabled else None
    return found


def _spread(roots: list[int], neighbours: dict[int, set[int]], found: dict[int, int | None]) -> None:
    """Breadth first from every root at once: each device reached gets the neighbour it was first reached from
    (nearest root first, then the lowest id)."""
    queue = deque(roots)
    found.update(dict.fromkeys(roots))
    while queue:
        here = queue.popleft()
        for there in sorted(neighbours[here]):
            if there not in found:
                found[there] = here
                queue.append(there)


def ancestors(device_id: int, parent_of: dict[int, int | None]) -> list[int]:
    """The devices between it and the poller, nearest first (an override's loop is cut where it closes)."""
    chain: list[int] = []
    here = parent_of.get(device_id)
    while here is not None and here != device_id and here not in chain:
        chain.append(here)
        here = parent_of.get(here)
    return chain


def behind(device_id: int, parent_of: dict[int, int | None]) -> list[int]:
    """Every device whose way from the poller passes through it (its blast radius), nearest first."""
    children: dict[int, list[int]] = {}
    for child, parent in parent_of.items():
        if parent is not None:
            children.setdefault(parent, []).append(child)
    found: list[int] = []
    seen = {device_id}
    queue = deque(sorted(children.get(device_id, [])))
    while queue:
        here = queue.popleft()
        if here in seen:
            continue
        seen.add(here)
        found.append(here)
        queue.extend(sorted(children.get(here, [])))
    return found


def down_ids(failing_now: set[int] = frozenset(), answering_now: set[int] = frozenset()) -> set[int]:
    """Enabled devices not answering: as recorded, updated with a batch's own outcomes."""
    recorded = Device.objects.filter(enabled=True, consecutive_failures__gt=0).values_list("pk", flat=True)
    return (set(recorded) | set(failing_now)) - set(answering_now)


def unreachable(device_ids: list[int], down: set[int], parent_of: dict[int, int | None]) -> dict[int, int]:
    """Of these devices, those behind a device that does not answer: device id -> the nearest such device."""
    found = {}
    for device_id in device_ids:
        for above in ancestors(device_id, parent_of):
            if above in down:
                found[device_id] = above
                break
    return found


def for_page(device: Device, visible) -> dict:
    """A device page's dependencies, of the devices `visible` (a queryset) only: the way from the poller to it, the
    devices behind it (arrays named as such, with their volumes), and the device it is unreachable behind, if its
    poll fails."""
    from monitor.devices.profiles import is_array
    from monitor.topology.blast import volumes_of

    parent_of = parents()
    chain, after = ancestors(device.pk, parent_of), behind(device.pk, parent_of)
    shown = {d.pk: d for d in visible.filter(pk__in=[*chain, *after])}
    arrays = [pk for pk in after if pk in shown and is_array(shown[pk])]
    volumes = volumes_of(arrays)
    above = None
    if device.enabled and device.consecutive_failures:
        above = unreachable([device.pk], down_ids(), parent_of).get(device.pk)
    return {
        "upstream": [shown[pk] for pk in reversed(chain) if pk in shown],
        "upstream_hidden": any(pk not in shown for pk in chain),
        "behind": [(shown[pk], pk in arrays, volumes.get(pk, 0)) for pk in after if pk in shown],
        "volumes_behind": sum(volumes.values()),
        "unreachable": above is not None,
        "unreachable_behind": shown.get(above),  # None where the reader may not see it: the badge names no device
    }
