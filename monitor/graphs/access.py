"""Who may read what: the graph trees granted to a user and the devices, graphs and aggregates they place.

Policy (docs/graphs.md, "Read permissions"):
- active superusers and staff users read everything (they can edit devices in the admin anyway);
- any other user reads the trees that name them in `read_users` or one of their groups in `read_groups`;
  a tree with no grants is read by staff only (deny by default);
- visible devices: those with a device node in a readable tree; visible graphs: every graph of a
  visible device plus the graphs placed as graph nodes in a readable tree; visible aggregates: those
  placed as aggregate nodes in a readable tree (their data is readable even if their members are not).

Every answer is a lazy queryset built from subqueries, so a page pays a few queries, not one per object.
"""

from __future__ import annotations

from django.db.models import CharField, Q, QuerySet
from django.db.models.functions import Cast
from django.http import HttpRequest

from monitor.core.ids import parse_id
from monitor.models import Device, Graph

_CACHE = "_monitor_access"


def sees_everything(user) -> bool:
    """Active staff and superusers read every tree, device, graph and aggregate."""
    return bool(user is not None and user.is_authenticated and user.is_active and (user.is_staff or user.is_superuser))


class Access:
    """What one user may read; build it once per request with `access_for(request)`."""

    def __init__(self, user):
        self.user = user
        self.everything = sees_everything(user)

    @classmethod
    def server(cls) -> Access:
        """What the server reads for itself (warming the caches of viewed pages): everything, answering nobody."""
        access = cls(None)
        access.everything = True
        return access

    def trees(self) -> QuerySet:
        from monitor.graphs.trees.models import Tree

        if self.everything:
            return Tree.objects.all()
        if not (self.user.is_authenticated and self.user.is_active):
            return Tree.objects.none()
        direct = Tree.read_users.through.objects.filter(user_id=self.user.pk).values("tree_id")
        grouped = Tree.read_groups.through.objects.filter(group__user=self.user.pk).values("tree_id")
        return Tree.objects.filter(Q(pk__in=direct) | Q(pk__in=grouped))

    def _placed(self, kind: str) -> QuerySet:
        """Ids of the objects of one kind placed as nodes in a readable tree (a subquery)."""
        from monitor.graphs.trees.models import TreeNode

        return TreeNode.objects.filter(tree__in=self.trees(), kind=kind).values(f"{kind}_id")

    def devices(self) -> QuerySet:
        if self.everything:
            return Device.objects.all()
        return Device.objects.filter(pk__in=self._placed("device"))

    def graphs(self) -> QuerySet:
        if self.everything:
            return Graph.objects.all()
        return Graph.objects.filter(Q(device_id__in=self._placed("device")) | Q(pk__in=self._placed("graph")))

    def aggregates(self) -> QuerySet:
        from monitor.graphs.trees.models import AggregateGraph

        if self.everything:
            return AggregateGraph.objects.all()
        return AggregateGraph.objects.filter(pk__in=self._placed("aggregate"))

    def nodes(self) -> QuerySet:
        """Tree nodes (headers included) of the readable trees."""
        from monitor.graphs.trees.models import TreeNode

        return TreeNode.objects.filter(tree__in=self.trees())

    def branch_ids(self) -> QuerySet:
        """The readable tree nodes' ids as text, as alert rules and maintenance store a branch (a subquery)."""
        return self.nodes().annotate(text=Cast("pk", CharField())).values("text")

    def can_read_device(self, device_id: int | None) -> bool:
        """True for an existing device the user may read (an unknown id is as unreadable as a hidden one)."""
        if device_id is None:
            return False
        return self.devices().filter(pk=device_id).exists()

    def can_read_branch(self, branch: str) -> bool:
        """True when a tree branch (as alert rules and maintenance store it) is a header in a readable tree."""
        return branch_header(self.nodes(), branch) is not None


def branch_header(nodes: QuerySet, branch: str) -> int | None:
    """The id of the tree header among `nodes` that a branch names (its id as text), else None."""
    node_id = parse_id(str(branch or "").strip())
    if node_id is None or not nodes.filter(pk=node_id, kind="header").exists():
        return None
    return node_id


def access_for(request: HttpRequest) -> Access:
    """The request user's Access, computed once per request (after API token auth has set the user)."""
    found = getattr(request, _CACHE, None)
    if found is None or found.user is not request.user:
        found = Access(request.user)
        setattr(request, _CACHE, found)
    return found
