"""What a newcomer's first look at `make demo` needs: a graph tree holding both devices and the aggregate of the
switch ports the array is cabled to, and a reader who is not staff, granted that tree (so a non-staff user sees the
product, not an empty page)."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from monitor.graphs.trees.models import AggregateGraph, Tree, TreeNode, place_device
from monitor.models import Device, Graph

TREE = "Demo site"
READER = "viewer"
AGGREGATE = "iSCSI ports to the array (sum)"


def ensure_tree(switch: Device, array: Device, more_switches: list[Device] = ()) -> Tree:
    """The tree "Demo site": a "Network" header with the switches, a "Storage" header with the array (idempotent)."""
    tree, _ = Tree.objects.get_or_create(name=TREE)
    placed = [("Network", switch), ("Storage", array), *(("Network", other) for other in more_switches)]
    for title, device in placed:
        header, _ = TreeNode.objects.get_or_create(
            tree=tree, parent=None, kind=TreeNode.Kind.HEADER, title=title,
            defaults={"position": 1 if title == "Network" else 2},
        )  # fmt: skip
        place_device(device, header)
    return tree


def kept_password(path: Path) -> str:
    """A generated password kept in `path` (made on the first start, readable by its owner only)."""
    if not path.exists():
        path.write_text(secrets.token_urlsafe(12))
        path.chmod(0o600)
    return path.read_text().strip()


def ensure_reader(tree: Tree, var: Path) -> tuple[str, str]:
    """A user who is not staff and reads the demo tree only; its password kept in var/viewer-password."""
    from django.contrib.auth import get_user_model

    password = kept_password(var / "viewer-password")
    users = get_user_model()
    user = users.objects.filter(username=READER).first()
    if user is None:
        user = users.objects.create_user(READER, "", password)
    tree.read_users.add(user)
    return READER, password


def ensure_aggregate(tree: Tree, switch: Device, ports: list[str], wait_s: float = 180.0) -> AggregateGraph | None:
    """The sum of the switch ports cabled to the array, under "Storage", once the first poll made their graphs
    (None if they did not come within `wait_s`)."""
    deadline = time.monotonic() + wait_s
    while True:
        members = list(Graph.objects.filter(device=switch, template="traffic", instance__in=ports))
        if len(members) == len(ports) or time.monotonic() > deadline:
            break
        time.sleep(2)
    if len(members) != len(ports):
        return None
    aggregate = AggregateGraph.objects.filter(title=AGGREGATE).first()
    if aggregate is None:
        aggregate = AggregateGraph.objects.create(title=AGGREGATE, template="traffic")
    aggregate.members.set(members)
    storage = TreeNode.objects.get(tree=tree, parent=None, kind=TreeNode.Kind.HEADER, title="Storage")
    TreeNode.objects.get_or_create(
        tree=tree, parent=storage, kind=TreeNode.Kind.AGGREGATE, aggregate=aggregate, defaults={"position": 0}
    )
    return aggregate
