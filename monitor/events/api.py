"""The event API: GET /api/events/ (filtered, paged; DRF) and GET /api/events/markers (what a page's graphs and
aggregate graphs draw, one request for all of them)."""

from __future__ import annotations

import orjson
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError

from monitor.core.ids import parse_id
from monitor.events.kinds import COLOURS, KIND_CHOICES, SEVERITY_CHOICES, SOURCE_CHOICES, severity_name
from monitor.events.models import Event
from monitor.events.query import Filters, in_window
from monitor.graphs.access import access_for
from monitor.graphs.timerange import PRESETS, RangeError, TimeRange, parse_range
from monitor.graphs.trees.models import AggregateGraph
from monitor.graphs.viewhelpers import json_error
from monitor.restapi.jsonviews import json_get, query
from monitor.timeseries.templates import TEMPLATES

MAX_GRAPHS = 500
IDS = {"type": "integer", "minimum": 1}
WINDOW = [
    query("range", description="a preset window ending now (default 1d)", enum=list(PRESETS)),
    query("start", description="ISO 8601 time, or now-<n>h / now-<n>d ...; with end"),
    query("end", description="ISO 8601 time or now"),
]
FILTERS = [
    query("device", IDS, "a device's id (repeat for more)", many=True),
    query("port", description="a port's name"),
    query("kind", description="a kind of event (repeat for more)", many=True, enum=[k for k, _ in KIND_CHOICES]),
    query("source", description="where events came from", enum=[k for k, _ in SOURCE_CHOICES]),
    query("severity", {"type": "integer", "enum": [n for n, _ in SEVERITY_CHOICES]}, "this severity or worse"),
    query("q", description="text the event contains"),
]


class EventSerializer(serializers.ModelSerializer):
    device_name = serializers.CharField(source="device.name", read_only=True)
    severity_name = serializers.CharField(read_only=True)

    class Meta:
        model = Event
        fields = [
            "id", "time", "device", "device_name", "port", "source", "kind", "severity", "severity_name",
            "facility", "name", "text", "ends_at", "detail",
        ]  # fmt: skip


@extend_schema(parameters=[*WINDOW, *FILTERS])
class EventList(generics.ListAPIView):
    """Events of the devices the caller may read, newest first: ?range= or ?start=&end=, device, port, kind,
    source, severity (this or worse), q (text); paged by limit and offset."""

    serializer_class = EventSerializer

    def get_queryset(self):
        try:
            span = _window(self.request.query_params)
        except RangeError as exc:
            raise ValidationError({"range": [str(exc)]}) from None
        devices = access_for(self.request).devices()
        filters = Filters(self.request.query_params, devices)
        if not filters.is_valid():
            raise ValidationError(filters.errors)
        return filters.apply(in_window(devices, span.start, span.end)).select_related("device").order_by("-time", "-id")


def _window(params) -> TimeRange:
    """The page's range (?range=1d or ?start=&end=), checked like the graphs' (RangeError says why)."""
    return parse_range(params.get("start"), params.get("end"), params.get("range"))


def _ids(request: HttpRequest, name: str) -> list[int]:
    ids = [parse_id(value) for value in request.GET.getlist(name)]
    if None in ids:
        raise ValueError(f"{name} must be an id")
    return list(dict.fromkeys(ids))


def _target(device_id: int, template: str, instance: str) -> dict:
    """What a graph shows markers for: its device, and its port on a port's graph."""
    spec = TEMPLATES.get(template)
    return {"device": device_id, "port": instance if spec and spec.instance_tag == "port" else None}


def _plots(access, graph_ids: list[int], aggregate_ids: list[int]) -> tuple[dict, dict]:
    """The readable graphs' targets, and each readable aggregate's targets of the members the user may read (an
    aggregate's sum is readable without its members; their devices and ports are not)."""
    graphs = {
        str(pk): _target(device_id, template, instance)
        for pk, device_id, template, instance in access.graphs()
        .filter(pk__in=graph_ids)
        .values_list("pk", "device_id", "template", "instance")
    }
    aggregates: dict[str, dict] = {}
    if aggregate_ids:
        readable = list(access.aggregates().filter(pk__in=aggregate_ids).values_list("pk", flat=True))
        aggregates = {str(pk): {"members": []} for pk in readable}
        members = (
            AggregateGraph.members.through.objects.filter(aggregategraph_id__in=readable, graph__in=access.graphs())
            .order_by("aggregategraph_id", "graph_id")
            .values_list("aggregategraph_id", "graph__device_id", "graph__template", "graph__instance")
        )
        for pk, device_id, template, instance in members:
            aggregates[str(pk)]["members"].append(_target(device_id, template, instance))
    return graphs, aggregates


@json_get(
    [
        query("graph", IDS, f"a graph's id (repeat for more; at most {MAX_GRAPHS} with the aggregates)", many=True),
        query("aggregate", IDS, "an aggregate graph's id (repeat for more)", many=True),
        *WINDOW,
    ]
)
def markers(request: HttpRequest) -> HttpResponse:
    """{"graphs": {id: {"device", "port"}}, "aggregates": {id: {"members": [...]}}, "events": [...], "truncated"}:
    the events of the plots' devices in the range, the most severe and then the newest first past EVENTS_MARKERS_MAX.
    A port's graph draws the events of that port (`port`, or one of `ports` for a message naming several) and the
    device-wide ones (no port named), other graphs the device-wide ones; an aggregate draws what each of its
    members would."""
    try:
        graph_ids, aggregate_ids = _ids(request, "graph"), _ids(request, "aggregate")
        if len(graph_ids) + len(aggregate_ids) > MAX_GRAPHS:
            raise ValueError(f"at most {MAX_GRAPHS} graphs per request")
        span = _window(request.GET)
    except (ValueError, RangeError) as exc:
        return json_error(400, str(exc))
    access = access_for(request)
    graphs, aggregates = _plots(access, graph_ids, aggregate_ids)
    devices = {g["device"] for g in graphs.values()}
    devices |= {m["device"] for a in aggregates.values() for m in a["members"]}
    found = (
        in_window(access.devices().filter(pk__in=devices), span.start, span.end) if devices else Event.objects.none()
    )
    limit = settings.EVENTS_MARKERS_MAX
    rows = list(
        found.order_by("severity", "-time").values_list(
            "id", "time", "ends_at", "device_id", "port", "detail__ports", "kind", "severity", "text"
        )[: limit + 1]
    )
    events = [
        {
            "id": pk,
            "t": int(time.timestamp() * 1000),
            "end": int(ends.timestamp() * 1000) if ends else None,
            "device": device,
            "port": port,
            "ports": [p for p in named if isinstance(p, str)] if isinstance(named, list) else [],
            "kind": kind,
            "severity": severity,
            "severity_name": severity_name(severity),
            "colour": COLOURS[severity] if 0 <= severity < len(COLOURS) else COLOURS[-1],
            "text": text[:300],
        }
        for pk, time, ends, device, port, named, kind, severity, text in rows[:limit]
    ]
    events.sort(key=lambda e: e["t"])
    body = {
        "start": span.start.isoformat(),
        "end": span.end.isoformat(),
        "graphs": graphs,
        "aggregates": aggregates,
        "events": events,
        "truncated": len(rows) > limit,
    }
    return HttpResponse(orjson.dumps(body), content_type="application/json")
