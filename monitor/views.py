"""Pages and the JSON API; thin: data comes from models and monitor.queries."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from monitor import queries
from monitor.graphtemplates import TEMPLATES
from monitor.models import Device, Graph
from monitor.timerange import PRESETS, RangeError, parse_range

log = logging.getLogger(__name__)


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness check for load balancers (no login, no details)."""
    return HttpResponse("ok", content_type="text/plain")


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    devices = Device.objects.all()
    return render(request, "monitor/home.html", {"devices": devices})


@login_required
@require_GET
def device_detail(request: HttpRequest, device_id: int) -> HttpResponse:
    device = get_object_or_404(Device, pk=device_id)
    graphs = list(device.graphs.all())
    aliases = dict(device.interfaces.values_list("name", "alias"))
    for graph in graphs:
        graph.alias = aliases.get(graph.instance, "")
    preset = request.GET.get("range", "")
    context = {
        "device": device,
        "graphs": graphs,
        "presets": list(PRESETS),
        "preset": preset if preset in PRESETS else "",
    }
    return render(request, "monitor/device.html", context)


@login_required
@require_GET
def graph_series(request: HttpRequest, graph_id: int) -> JsonResponse:
    """GET /api/graphs/<id>/series?start=&end=&points=N (or range=1h): points and legend statistics."""
    graph = Graph.objects.select_related("device").filter(pk=graph_id).first()
    if graph is None:
        return _error(404, "no such graph")
    template = TEMPLATES.get(graph.template)
    if template is None:
        return _error(404, f"graph template {graph.template!r} is not known")
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
        points = _points(request.GET.get("points"))
    except RangeError as exc:
        return _error(400, str(exc))
    try:
        data = queries.graph_series(
            template,
            str(graph.device_id),
            graph.instance,
            window.start,
            window.end,
            points,
            graph.device.poll_interval_s,
        )
    except Exception as exc:
        log.warning("series query for graph %s failed: %s", graph.pk, type(exc).__name__)
        return _error(503, "the time-series database is not answering; try again shortly")
    data.update(
        {
            "graph": {"id": graph.pk, "title": graph.title, "template": graph.template, "device": graph.device.name},
            "start": window.start.isoformat(),
            "end": window.end.isoformat(),
        }
    )
    return JsonResponse(data)


def _points(raw: str | None) -> int:
    if not raw:
        return 800
    try:
        value = int(raw)
    except ValueError:
        raise RangeError(f"points={raw[:20]!r} is not an integer") from None
    if not 2 <= value <= queries.MAX_POINTS:
        raise RangeError(f"points must be between 2 and {queries.MAX_POINTS}")
    return value


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)
