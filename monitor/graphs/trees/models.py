"""Graph trees (Cacti-style), aggregate graphs, personal dashboards, per-user API tokens and directory accounts."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from monitor.models import Device, Graph


class Tree(models.Model):
    """A named tree of headers, devices and graphs; its read grants decide who sees it (monitor/graphs/access.py)."""

    name = models.CharField(max_length=100, unique=True)
    position = models.PositiveIntegerField(default=0)
    read_groups = models.ManyToManyField(Group, blank=True, related_name="readable_trees")
    read_users = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="readable_trees")

    class Meta:
        ordering = ["position", "name"]

    def __str__(self) -> str:
        return self.name


class AggregateGraph(models.Model):
    """Several graphs of one template summed per interval (a LAG, all iSCSI ports)."""

    title = models.CharField(max_length=300)
    template = models.CharField(max_length=50, default="traffic")
    members = models.ManyToManyField(Graph, related_name="aggregates")

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title

    def clean(self) -> None:
        from monitor.timeseries.templates import TEMPLATES

        if self.template not in TEMPLATES:
            raise ValidationError({"template": f"unknown graph template {self.template!r}"})


class TreeNode(models.Model):
    """One entry of a tree: a header (branch), a device, a graph or an aggregate graph; ordered, nested."""

    class Kind(models.TextChoices):
        HEADER = "header", "Header"
        DEVICE = "device", "Device"
        GRAPH = "graph", "Graph"
        AGGREGATE = "aggregate", "Aggregate graph"

    tree = models.ForeignKey(Tree, on_delete=models.CASCADE, related_name="nodes")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.HEADER)
    title = models.CharField(max_length=200, blank=True, default="", help_text="The header's name.")
    device = models.ForeignKey(Device, null=True, blank=True, on_delete=models.CASCADE, related_name="tree_nodes")
    graph = models.ForeignKey(Graph, null=True, blank=True, on_delete=models.CASCADE, related_name="tree_nodes")
    aggregate = models.ForeignKey(
        AggregateGraph, null=True, blank=True, on_delete=models.CASCADE, related_name="tree_nodes"
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["tree", "position", "id"]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        target = {"header": self.title, "device": self.device, "graph": self.graph, "aggregate": self.aggregate}
        return str(target.get(self.kind) or self.title or "?")

    def clean(self) -> None:
        needed = {"header": "title", "device": "device", "graph": "graph", "aggregate": "aggregate"}[self.kind]
        placing = getattr(self, "placing", False)  # the device inline sets the device after validation
        if not placing and not getattr(self, needed if needed == "title" else f"{needed}_id"):
            raise ValidationError({needed: f"a {self.kind} node needs a {needed}"})
        if self.parent_id is None:
            return
        if self.parent.tree_id != self.tree_id:
            raise ValidationError({"parent": "the parent belongs to another tree"})
        if self.parent.kind != self.Kind.HEADER:
            raise ValidationError({"parent": "only a header can have children"})
        node, seen = self.parent, set()
        while node is not None and node.pk not in seen:
            if self.pk is not None and node.pk == self.pk:
                raise ValidationError({"parent": "a node cannot be inside itself"})
            seen.add(node.pk)
            node = node.parent


class DashboardItem(models.Model):
    """A graph pinned to a user's personal dashboard."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="dashboard_items")
    graph = models.ForeignKey(Graph, null=True, blank=True, on_delete=models.CASCADE)
    aggregate = models.ForeignKey(AggregateGraph, null=True, blank=True, on_delete=models.CASCADE)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["user", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "graph"], name="unique_pinned_graph"),
            models.UniqueConstraint(fields=["user", "aggregate"], name="unique_pinned_aggregate"),
        ]


class ApiToken(models.Model):
    """A bearer token for the JSON API: only its SHA-256 is stored; it expires, and a read-only one never writes."""

    class Scope(models.TextChoices):
        READ = "read", "read-only"
        WRITE = "write", "read and write"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    scope = models.CharField(max_length=5, choices=Scope.choices, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user} · {self.name}"

    @staticmethod
    def hash(raw: str) -> str:
        return hashlib.sha256(raw.encode()).hexdigest()

    def arm(self, days: int | None = None) -> str:
        """Give an unsaved token its secret (returned, never stored) and its expiry, `days` from now (default
        API_TOKEN_DAYS; ValueError beyond API_TOKEN_MAX_DAYS)."""
        days = settings.API_TOKEN_DAYS if days is None else days
        if not 1 <= days <= settings.API_TOKEN_MAX_DAYS:
            raise ValueError(f"a token lives from 1 to {settings.API_TOKEN_MAX_DAYS} days")
        raw = secrets.token_urlsafe(32)
        self.digest, self.expires_at = self.hash(raw), timezone.now() + timedelta(days=days)
        return raw

    @classmethod
    def issue(cls, user, name: str, scope: str = Scope.READ, days: int | None = None) -> tuple[ApiToken, str]:
        """Create a token; the raw value is returned once and never stored."""
        token = cls(user=user, name=name, scope=scope)
        raw = token.arm(days)
        token.save()
        return token, raw


class DirectoryAccount(models.Model):
    """An account that signs in through the directory (LDAP), and when its groups were last read there: its API
    tokens have them read again past API_TOKEN_DIRECTORY_CHECK_S (monitor/restapi/directory.py)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="directory_account")
    checked_at = models.DateTimeField()
    failed_at = models.DateTimeField(null=True, blank=True, help_text="The directory's last refusal, or silence.")

    def __str__(self) -> str:
        return f"{self.user} (directory, read {self.checked_at:%Y-%m-%d %H:%M})"


def place_device(device: Device, node: TreeNode | None) -> TreeNode | None:
    """Put a device under a header (given a leaf node, beside it); idempotent; None places nothing."""
    if node is None:
        return None
    parent = node if node.kind == TreeNode.Kind.HEADER else node.parent
    existing = TreeNode.objects.filter(tree=node.tree, parent=parent, kind="device", device=device).first()
    if existing:
        return existing
    last = TreeNode.objects.filter(tree=node.tree, parent=parent).aggregate(m=models.Max("position"))["m"]
    return TreeNode.objects.create(
        tree=node.tree, parent=parent, kind="device", device=device, position=(last or 0) + 1
    )


def place_on_path(device: Device, parts: list[str]) -> TreeNode | None:
    """Put the device under the last header of ["Tree", "Header", ...], creating the tree and headers that do not
    exist (a device import's or a subnet discovery's `tree` column)."""
    tree, _ = Tree.objects.get_or_create(name=parts[0])
    parent = None
    for title in parts[1:]:
        node = TreeNode.objects.filter(tree=tree, parent=parent, kind="header", title=title).first()
        parent = node or TreeNode.objects.create(tree=tree, parent=parent, kind="header", title=title)
    return place_device(device, parent)
