"""A tree branch's graphs a page at a time, as Cacti's tree shows them: whole devices with their graphs in tree
order, pages of at most PAGE_GRAPHS graphs (a device larger than that has a page of its own), read in a fixed number
of queries however large the branch (one click on a fleet's top header rendered every graph of the fleet)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from monitor.graphs.trees.models import TreeNode
from monitor.graphs.viewhelpers import aggregate_card, graph_cards
from monitor.models import Graph

PAGE_GRAPHS = 320  # about two 52-port switches (158 graphs each)
SHOWN = {TreeNode.Kind.DEVICE: "device_id", TreeNode.Kind.GRAPH: "graph_id", TreeNode.Kind.AGGREGATE: "aggregate_id"}


@dataclass
class BranchPage:
    """The cards of one page of a branch, which page it is, and how many there are."""

    cards: list[dict]
    number: int
    pages: int
    graphs: int  # in the whole branch


def placed(node: TreeNode, nodes: list[TreeNode]) -> list[TreeNode]:
    """The device, graph and aggregate nodes under `node` (itself included), depth first in tree order."""
    by_parent: dict[int | None, list[TreeNode]] = {}
    for item in nodes:
        by_parent.setdefault(item.parent_id, []).append(item)
    found: list[TreeNode] = []
    stack, seen = [node], set()
    while stack:
        current = stack.pop(0)
        if current.pk in seen:
            continue
        seen.add(current.pk)
        if current.kind in SHOWN and getattr(current, SHOWN[current.kind]):
            found.append(current)
        stack = by_parent.get(current.pk, []) + stack
    return found


def _split(sizes: list[int]) -> list[range]:
    """Consecutive entries grouped into pages of at most PAGE_GRAPHS graphs (at least one entry a page)."""
    pages, start, total = [], 0, 0
    for index, size in enumerate(sizes):
        if index > start and total + size > PAGE_GRAPHS:
            pages.append(range(start, index))
            start, total = index, 0
        total += size
    pages.append(range(start, len(sizes)))
    return pages


def branch_page(node: TreeNode, nodes: list[TreeNode], number: int) -> BranchPage:
    """Page `number` (from 1; past the last is the last) of the branch under `node`."""
    items = placed(node, nodes)
    devices = {n.device_id for n in items if n.kind == TreeNode.Kind.DEVICE}
    counts = dict(
        Graph.objects.filter(device_id__in=devices)
        .order_by()
        .values("device_id")
        .annotate(n=Count("id"))
        .values_list("device_id", "n")
    )
    sizes = [counts.get(n.device_id, 0) if n.kind == TreeNode.Kind.DEVICE else 1 for n in items]
    pages = _split(sizes)
    number = min(max(number, 1), len(pages))
    chosen = [items[i] for i in pages[number - 1]]
    return BranchPage(_cards(chosen), number, len(pages), sum(sizes))


def _cards(chosen: list[TreeNode]) -> list[dict]:
    """The cards of these nodes in their order: a device's graphs (in their own order), a graph, an aggregate."""
    wanted_devices = {n.device_id for n in chosen if n.kind == TreeNode.Kind.DEVICE}
    wanted_graphs = {n.graph_id for n in chosen if n.kind == TreeNode.Kind.GRAPH}
    of_device: dict[int, list[Graph]] = {}
    for graph in Graph.objects.filter(device_id__in=wanted_devices).select_related("device"):
        of_device.setdefault(graph.device_id, []).append(graph)
    single = {g.pk: g for g in Graph.objects.filter(pk__in=wanted_graphs).select_related("device")}
    ordered: list[Graph | TreeNode] = []
    for node in chosen:
        if node.kind == TreeNode.Kind.DEVICE:
            ordered += of_device.get(node.device_id, [])
        elif node.kind == TreeNode.Kind.GRAPH:
            ordered += [single[node.graph_id]] if node.graph_id in single else []
        else:
            ordered.append(node)
    drawn = iter(graph_cards(g for g in ordered if isinstance(g, Graph)))
    return [aggregate_card(g.aggregate) if isinstance(g, TreeNode) else next(drawn) for g in ordered]
