"""Graph trees, personal dashboards, aggregate graphs and API tokens."""

from __future__ import annotations

from collections.abc import Iterable


def device_ids_under(branch: str) -> Iterable[int]:
    """Ids of the devices placed anywhere under a tree node (a header's id; a device node counts itself)."""
    from monitor.core.ids import parse_id
    from monitor.graphs.trees.models import TreeNode

    node = parse_id(str(branch).strip())
    if node is None:
        return set()
    frontier = list(TreeNode.objects.filter(pk=node).values_list("pk", "kind", "device_id"))
    devices: set[int] = set()
    seen: set[int] = set()
    while frontier:
        pk, kind, device_id = frontier.pop()
        if pk in seen:
            continue
        seen.add(pk)
        if kind == "device" and device_id:
            devices.add(device_id)
        frontier += list(TreeNode.objects.filter(parent_id=pk).values_list("pk", "kind", "device_id"))
    return devices
