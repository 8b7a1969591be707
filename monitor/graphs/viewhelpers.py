"""Shared pieces of the pages: the time-range context, graph cards, API auth and request checks."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from urllib.parse import urlencode

from django.http import HttpRequest, JsonResponse
from django.urls import reverse

from monitor.graphs.timerange import PRESETS, RangeError
from monitor.models import Graph
from monitor.timeseries.templates import TEMPLATES

GROUPS = {"interface": "ports", "system": "system", "sensor": "system", "volume": "storage", "disk_io": "storage"}
GROUP_ORDER = ("ports", "system", "storage", "other")
THUMBNAILS_ABOVE = 12
PATH_TEMPLATES = ("volume_latency",)  # graphs of a volume whose moments open its iSCSI path page (monitor/storage)


def range_context(request: HttpRequest) -> dict:
    """Presets and which one is active, for the range bar every page shows."""
    preset = request.GET.get("range", "")
    if not preset and not request.GET.get("start"):
        preset = "1d"
    return {"presets": list(PRESETS), "preset": preset if preset in PRESETS else ""}


def first_screen(request: HttpRequest, cards: list[dict], count: int = 6, points: int = 300) -> str:
    """The request for the first graphs of a page, named in its head (`<link rel=preload>`): the browser sends it
    while it is still reading the page, and the page's script reuses the answer (static/js/graphs.js)."""
    if not cards:
        return ""
    query = (
        [("start", request.GET["start"]), ("end", request.GET.get("end") or "now")]
        if request.GET.get("start")
        else [("range", request.GET.get("range") if request.GET.get("range") in PRESETS else "1d")]
    )
    query += [("points", str(points)), ("p95", "later"), ("shape", "columns")]
    query += [("aggregate" if card["kind"] == "aggregate" else "graph", str(card["id"])) for card in cards[:count]]
    return reverse("series-batch") + "?" + urlencode(query)


def url_of_id(name: str) -> Callable[[int], str]:
    """The URL of the view `name` for any id, reversed once (reverse() per graph was 20 ms of a 160-graph page)."""
    marker = "987654321"
    prefix, suffix = reverse(name, args=[int(marker)]).split(marker)
    return lambda pk: f"{prefix}{int(pk)}{suffix}"


def group_of(graph: Graph) -> str:
    template = TEMPLATES.get(graph.template)
    if template is None:
        return "other"
    return template.group or GROUPS.get(template.measurement, "other")


def graph_cards(graphs: Iterable[Graph]) -> list[dict]:
    """What a page needs to draw graphs: id, titles (escaped by the template), data URLs."""
    graphs = list(graphs)
    aliases: dict[tuple[int, str], str] = {}
    from monitor.models import Interface

    devices = {g.device_id for g in graphs}
    for device_id, name, alias in Interface.objects.filter(device_id__in=devices).values_list(
        "device_id", "name", "alias"
    ):
        aliases[(device_id, name)] = alias
    cards = []
    page_url, series_url, path_url = url_of_id("graph"), url_of_id("graph-series"), url_of_id("storage:path")
    for graph in graphs:
        template = TEMPLATES.get(graph.template)
        cards.append(
            {
                "id": graph.pk,
                "kind": "graph",
                "title": graph.title,
                "device": graph.device.name,
                "alias": aliases.get((graph.device_id, graph.instance), ""),
                "group": group_of(graph),
                "url": page_url(graph.pk),
                "series_url": series_url(graph.pk),
                "refresh_s": graph.device.poll_interval_s,
                "percent": bool(template and template.percent_of_speed),
                "bits": bool(template and template.unit == "bit/s"),
                "rows": 1 + (len(template.series) if template else 1),
                "reads": f"{graph.device_id}:{graph.template}",
            }
        )
        if graph.template in PATH_TEMPLATES:  # a click on a moment opens the volume's iSCSI path then
            cards[-1] |= {"path_url": path_url(graph.device_id), "volume": graph.instance}
    return cards


def aggregate_card(aggregate) -> dict:
    template = TEMPLATES.get(aggregate.template)
    return {
        "id": aggregate.pk,
        "kind": "aggregate",
        "title": aggregate.title,
        "device": "aggregate",
        "alias": "",
        "group": "ports",
        "url": "",
        "series_url": reverse("aggregate-series", args=[aggregate.pk]),
        "refresh_s": 60,
        "percent": bool(template and template.percent_of_speed),
        "bits": bool(template and template.unit == "bit/s"),
        "rows": 1 + (len(template.series) if template else 1),
    }


def json_error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def api_auth(view: Callable) -> Callable:
    """Session login or `Authorization: Bearer <token>` (checked by monitor/restapi/tokens.py); a JSON 401 otherwise
    (never a login redirect), and a 403 for a read-only token's write."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        if not request.user.is_authenticated:
            from monitor.restapi.tokens import TokenRefused, bearer, token_user

            raw = bearer(request.headers.get("Authorization", ""))
            if raw is None:
                return json_error(401, "log in or send a valid API token (Authorization: Bearer <token>)")
            try:
                request.user, _ = token_user(raw, request.method)
            except TokenRefused as exc:
                return json_error(exc.status, str(exc))
        return view(request, *args, **kwargs)

    return wrapper


def parse_points(raw: str | None, maximum: int) -> int:
    if not raw:
        return 800
    try:
        value = int(raw)
    except ValueError:
        raise RangeError(f"points={raw[:20]!r} is not an integer") from None
    if not 2 <= value <= maximum:
        raise RangeError(f"points must be between 2 and {maximum}")
    return value
