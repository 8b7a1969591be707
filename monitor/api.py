"""JSON and CSV API: GET /api/graphs/<id>/series, /api/aggregates/<id>/series, /api/devices/<id>/heatmap."""

from __future__ import annotations

import csv
import logging
from datetime import datetime, timezone

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET

from monitor import queries
from monitor.access import Access, access_for
from monitor.graphtemplates import TEMPLATES, GraphTemplate
from monitor.models import Graph, Interface
from monitor.queries import top
from monitor.timerange import RangeError, TimeRange, parse_range
from monitor.viewhelpers import api_auth, json_error, neutral_cell, parse_points

log = logging.getLogger(__name__)
UNAVAILABLE = "the time-series database is not answering; try again shortly"
HEATMAP_FIELDS = ("read_latency_ms", "write_latency_ms")


class BadRequest(ValueError):
    """A request the API refuses with a 4xx and this message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _window(request: HttpRequest) -> tuple[TimeRange, int]:
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
        return window, parse_points(request.GET.get("points"), queries.MAX_POINTS)
    except RangeError as exc:
        raise BadRequest(str(exc)) from None


def _scale(request: HttpRequest, template: GraphTemplate, members: list[Graph]) -> tuple[float, str]:
    """Bits (as stored), bytes, or percent of the ports' speed."""
    unit = request.GET.get("unit", "")
    if unit in ("", "bits"):
        return 1.0, template.unit
    if unit == "bytes" and template.unit == "bit/s":
        return 0.125, "B/s"
    if unit == "percent" and template.percent_of_speed:
        rows = Interface.objects.filter(device_id__in={g.device_id for g in members})
        speeds = {(i.device_id, i.name): i.speed_bps for i in rows}
        speed = sum(speeds.get((g.device_id, g.instance), 0) for g in members)
        if speed <= 0:
            raise BadRequest("the port speed is unknown, so utilisation cannot be drawn")
        return 100.0 / speed, "%"
    raise BadRequest(f"unit={unit[:20]!r} is not available for this graph (bits, bytes or percent)")


def _members(access: Access, kind: str, object_id: int) -> tuple[str, GraphTemplate, list[Graph]]:
    """A visible graph, or a visible aggregate with all its members; what the user may not read is a 404."""
    if kind == "aggregate":
        aggregate = access.aggregates().filter(pk=object_id).first()
        if aggregate is None:
            raise BadRequest("no such aggregate graph", 404)
        title, slug, members = aggregate.title, aggregate.template, list(aggregate.members.select_related("device"))
        if not members:
            raise BadRequest("this aggregate graph has no member graphs", 404)
    else:
        graph = access.graphs().select_related("device").filter(pk=object_id).first()
        if graph is None:
            raise BadRequest("no such graph", 404)
        title, slug, members = graph.title, graph.template, [graph]
    template = TEMPLATES.get(slug)
    if template is None:
        raise BadRequest(f"graph template {slug!r} is not known", 404)
    if any(g.template != slug for g in members):
        raise BadRequest(f"every member of an aggregate must be a {slug!r} graph")
    return title, template, members


def _data(request: HttpRequest, kind: str, object_id: int) -> dict:
    title, template, members = _members(access_for(request), kind, object_id)
    window, points = _window(request)
    scale, unit = _scale(request, template, members)
    selection = queries.Selection(tuple((str(g.device_id), g.instance) for g in members))
    interval = max(g.device.poll_interval_s for g in members)
    try:
        data = queries.series(template, selection, window.start, window.end, points, interval, scale)
    except Exception as exc:
        log.warning("series query for %s %s failed: %s", kind, object_id, type(exc).__name__)
        raise BadRequest(UNAVAILABLE, 503) from None
    data["unit"] = unit
    data["graph"] = {"id": object_id, "kind": kind, "title": title, "template": template.slug}
    data["graph"]["device"] = members[0].device.name if kind == "graph" else ""
    data.update({"start": window.start.isoformat(), "end": window.end.isoformat(), "points_limit": points})
    return data


@require_GET
@api_auth
def series_json(request: HttpRequest, object_id: int, kind: str = "graph") -> JsonResponse:
    """Points [t_ms, min, mean, max] per series (never more than `points`), legend stats and resolution."""
    try:
        return JsonResponse(_data(request, kind, object_id))
    except BadRequest as exc:
        return json_error(exc.status, str(exc))


@require_GET
@api_auth
def series_csv(request: HttpRequest, object_id: int, kind: str = "graph") -> HttpResponse:
    """The same window as CSV: one row per point and series; text cells cannot become formulas."""
    try:
        data = _data(request, kind, object_id)
    except BadRequest as exc:
        return json_error(exc.status, str(exc))
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{kind}-{object_id}.csv"'
    writer = csv.writer(response)
    writer.writerow(["time", "graph", "series", f"min ({data['unit']})", "mean", "max"])
    for series in data["series"]:
        for t_ms, low, mean, high in series["points"]:
            moment = datetime.fromtimestamp(t_ms / 1000, timezone.utc).isoformat()
            writer.writerow([moment, *map(neutral_cell, (data["graph"]["title"], series["label"])), low, mean, high])
    return response


@require_GET
@api_auth
def heatmap(request: HttpRequest, device_id: int) -> JsonResponse:
    """Mean volume latency per time column, one row per volume of a visible device."""
    if not access_for(request).can_read_device(device_id):
        return json_error(404, "no such device")
    field = request.GET.get("field", HEATMAP_FIELDS[0])
    if field not in HEATMAP_FIELDS:
        return json_error(400, f"field must be one of {', '.join(HEATMAP_FIELDS)}")
    try:
        window, points = _window(request)
    except BadRequest as exc:
        return json_error(exc.status, str(exc))
    try:
        data = top.latency_heatmap(str(device_id), field, window.start, window.end, min(points, 400))
    except Exception as exc:
        log.warning("heatmap query for device %s failed: %s", device_id, type(exc).__name__)
        return json_error(503, UNAVAILABLE)
    return JsonResponse(data | {"field": field, "start": window.start.isoformat(), "end": window.end.isoformat()})
