"""The event API: GET /api/events/ (filtered, paged; DRF) and GET /api/events/markers (what a page's graphs draw,
one request for all the graphs of a page)."""

from __future__ import annotations

import orjson
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from rest_framework import generics, serializers
from rest_framework.exceptions import ValidationError

from monitor.events.kinds import COLOURS, severity_name
from monitor.events.models import Event
from monitor.events.query import Filters, RangeError, in_window, window
from monitor.graphs.access import access_for
from monitor.graphs.viewhelpers import api_auth, json_error
from monitor.timeseries.templates import TEMPLATES

MAX_GRAPHS = 500


class EventSerializer(serializers.ModelSerializer):
    device_name = serializers.CharField(source="device.name", read_only=True)
    severity_name = serializers.CharField(read_only=True)

    class Meta:
        model = Event
        fields = [
            "id", "time", "device", "device_name", "port", "source", "kind", "severity", "severity_name",
            "facility", "name", "text", "ends_at", "detail",
        ]  # fmt: skip


class EventList(generics.ListAPIView):
    """Events of the devices the caller may read, newest first: ?range= or ?start=&end=, device, port, kind,
    source, severity (this or worse), q (text); paged by limit and offset."""

    serializer_class = EventSerializer

    def get_queryset(self):
        try:
            span = window(self.request.query_params)
        except RangeError as exc:
            raise ValidationError({"range": [str(exc)]}) from None
        devices = access_for(self.request).devices()
        filters = Filters(self.request.query_params, devices)
        if not filters.is_valid():
            raise ValidationError(filters.errors)
        return filters.apply(in_window(devices, span)).select_related("device").order_by("-time", "-id")


def _graph_ids(request: HttpRequest) -> list[int]:
    ids = [value for value in request.GET.getlist("graph") if value.isdigit() and len(value) < 12]
    if len(ids) != len(request.GET.getlist("graph")):
        raise ValueError("graph must be a graph id")
    if len(ids) > MAX_GRAPHS:
        raise ValueError(f"at most {MAX_GRAPHS} graphs per request")
    return list(dict.fromkeys(int(i) for i in ids))


@require_GET
@api_auth
def markers(request: HttpRequest) -> HttpResponse:
    """{"graphs": {id: {"device", "port"}}, "events": [...], "truncated", "total"}: the events of the graphs'
    devices in the range, the most severe and then the newest first when there are more than EVENTS_MARKERS_MAX.
    A port's graph draws that port's events and the device-wide ones; other graphs the device-wide ones."""
    try:
        ids = _graph_ids(request)
        span = window(request.GET)
    except (ValueError, RangeError) as exc:
        return json_error(400, str(exc))
    access = access_for(request)
    graphs = {}
    for graph_id, device_id, template, instance in (
        access.graphs().filter(pk__in=ids).values_list("pk", "device_id", "template", "instance")
    ):
        spec = TEMPLATES.get(template)
        graphs[str(graph_id)] = {
            "device": device_id,
            "port": instance if spec and spec.instance_tag == "port" else None,
        }
    devices = {g["device"] for g in graphs.values()}
    found = in_window(access.devices().filter(pk__in=devices), span) if devices else Event.objects.none()
    limit = settings.EVENTS_MARKERS_MAX
    rows = list(
        found.order_by("severity", "-time").values_list(
            "id", "time", "ends_at", "device_id", "port", "kind", "severity", "text"
        )[: limit + 1]
    )
    events = [
        {
            "id": pk,
            "t": int(time.timestamp() * 1000),
            "end": int(ends.timestamp() * 1000) if ends else None,
            "device": device,
            "port": port,
            "kind": kind,
            "severity": severity,
            "severity_name": severity_name(severity),
            "colour": COLOURS[severity] if 0 <= severity < len(COLOURS) else COLOURS[-1],
            "text": text[:300],
        }
        for pk, time, ends, device, port, kind, severity, text in rows[:limit]
    ]
    events.sort(key=lambda e: e["t"])
    body = {
        "start": span.start.isoformat(),
        "end": span.end.isoformat(),
        "graphs": graphs,
        "events": events,
        "truncated": len(rows) > limit,
    }
    return HttpResponse(orjson.dumps(body), content_type="application/json")
