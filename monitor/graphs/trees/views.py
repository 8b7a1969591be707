"""Tree pages (tree on the left, the selected branch's graphs on the right) and the personal dashboard."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Max, Q
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from monitor.core.ids import parse_id
from monitor.graphs.access import access_for
from monitor.graphs.trees.branch import branch_page
from monitor.graphs.trees.models import DashboardItem, TreeNode
from monitor.graphs.viewhelpers import THUMBNAILS_ABOVE, aggregate_card, first_screen, graph_cards, range_context

MAX_DEPTH = 20


def _outline(nodes: list[TreeNode]) -> list[dict]:
    """Nested [{node, children}] in position order."""
    children: dict[int | None, list[TreeNode]] = {}
    for node in nodes:
        children.setdefault(node.parent_id, []).append(node)

    def build(parent: int | None, depth: int) -> list[dict]:
        if depth > MAX_DEPTH:
            return []
        return [{"node": n, "children": build(n.pk, depth + 1)} for n in children.get(parent, [])]

    return build(None, 0)


@login_required
@require_GET
def tree_index(request: HttpRequest) -> HttpResponse:
    """The first tree the user may read (a page saying there is none otherwise)."""
    first = access_for(request).trees().first()
    if first is None:
        return render(request, "monitor/tree.html", {"trees": [], **range_context(request)})
    query = f"?{request.GET.urlencode()}" if request.GET else ""
    return redirect(f"/trees/{first.pk}/{query}")


@login_required
@require_GET
def tree_page(request: HttpRequest, tree_id: int, node_id: int | None = None) -> HttpResponse:
    """A readable tree (404 otherwise): everything placed in it is visible to whoever may read it; a branch's graphs
    a page at a time (`?page=`, monitor.graphs.trees.branch)."""
    access = access_for(request)
    tree = get_object_or_404(access.trees(), pk=tree_id)
    nodes = list(tree.nodes.select_related("device", "graph", "aggregate"))
    selected = None
    if node_id is not None:
        selected = next((n for n in nodes if n.pk == node_id), None)
        if selected is None:
            raise Http404("no such branch in this tree")
    number = parse_id(request.GET.get("page") or "1") or 1  # no page number (text, 0): the first, as past the last
    shown = branch_page(selected, nodes, number) if selected else None
    cards = shown.cards if shown else []
    context = {
        "branch": shown,
        "trees": access.trees(),
        "tree": tree,
        "outline": _outline(nodes),
        "selected": selected,
        "cards": cards,
        "thumbnails": len(cards) > THUMBNAILS_ABOVE,
        "first_graphs_url": first_screen(request, cards, count=12 if len(cards) > THUMBNAILS_ABOVE else 6),
        **range_context(request),
    }
    return render(request, "monitor/tree.html", context)


@login_required
@require_GET
def dashboard(request: HttpRequest) -> HttpResponse:
    """The user's pins that are still visible (a pin whose grant was withdrawn is hidden, not deleted)."""
    items = list(_visible_items(request).select_related("graph__device", "aggregate"))
    cards = []
    for item in items:
        card = aggregate_card(item.aggregate) if item.aggregate_id else graph_cards([item.graph])[0]
        cards.append(card | {"item_id": item.pk})
    context = {"cards": cards, "first_graphs_url": first_screen(request, cards), **range_context(request)}
    return render(request, "monitor/dashboard.html", context)


def _visible_items(request: HttpRequest):
    access = access_for(request)
    items = DashboardItem.objects.filter(user=request.user)
    if access.everything:
        return items
    return items.filter(Q(graph__in=access.graphs()) | Q(aggregate__in=access.aggregates()))


def _back(request: HttpRequest, fallback: str) -> HttpResponse:
    target = request.POST.get("next", "")
    if not target.startswith("/") or target.startswith("//"):
        target = fallback
    return redirect(target)


@login_required
@require_POST
def pin(request: HttpRequest) -> HttpResponse:
    """Pin a visible graph (graph=<id>) or aggregate (aggregate=<id>); an invisible one is as unknown."""
    access = access_for(request)
    target = {}
    for key, visible in (("graph", access.graphs()), ("aggregate", access.aggregates())):
        raw = request.POST.get(key, "")
        if raw:
            object_id = parse_id(raw)
            if object_id is None or not visible.filter(pk=object_id).exists():
                return HttpResponseBadRequest(f"no such {key}", content_type="text/plain")
            target[key + "_id"] = object_id
    if len(target) != 1:
        return HttpResponseBadRequest("send exactly one of graph or aggregate", content_type="text/plain")
    last = DashboardItem.objects.filter(user=request.user).aggregate(m=Max("position"))["m"] or 0
    DashboardItem.objects.get_or_create(user=request.user, **target, defaults={"position": last + 1})
    return _back(request, "/dashboard/")


@login_required
@require_POST
def unpin(request: HttpRequest, item_id: int) -> HttpResponse:
    get_object_or_404(DashboardItem, pk=item_id, user=request.user).delete()
    return _back(request, "/dashboard/")


@login_required
@require_POST
def move(request: HttpRequest, item_id: int, direction: str) -> HttpResponse:
    """Swap an item with its visible neighbour (up or down); hidden items keep their slots; renumbered 1..n."""
    if direction not in ("up", "down"):
        return HttpResponseBadRequest("direction must be up or down", content_type="text/plain")
    items = list(DashboardItem.objects.filter(user=request.user))
    visible = set(_visible_items(request).values_list("pk", flat=True))
    slots = [i for i, item in enumerate(items) if item.pk in visible]
    index = next((n for n, slot in enumerate(slots) if items[slot].pk == item_id), None)
    if index is None:
        raise Http404("no such dashboard item")
    other = index - 1 if direction == "up" else index + 1
    if 0 <= other < len(slots):
        a, b = slots[index], slots[other]
        items[a], items[b] = items[b], items[a]
    for position, item in enumerate(items, start=1):
        if item.position != position:
            DashboardItem.objects.filter(pk=item.pk).update(position=position)
    return _back(request, "/dashboard/")
