"""Storage pages: the array page (volumes, members, pools, capacity and forecasts, the three rankings) and the
iSCSI path page with its data endpoint. Thin: figures come from monitor/storage/summary.py and pathdata.py."""

from __future__ import annotations

import logging

import orjson
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from monitor.devices.profiles import registry
from monitor.graphs.access import access_for
from monitor.graphs.timerange import RangeError, parse_range
from monitor.graphs.viewhelpers import api_auth, json_error, parse_points, range_context
from monitor.models import Device
from monitor.storage import health
from monitor.storage.models import HeatmapLevels, LatencyUnit, PathLink
from monitor.storage.pathdata import path_data
from monitor.storage.paths import is_array
from monitor.storage.summary import array_summary
from monitor.timeseries import histogram

log = logging.getLogger(__name__)
UNAVAILABLE = "the time-series database is not answering; try again shortly"


def _array(request: HttpRequest, device_id: int) -> Device:
    device = get_object_or_404(access_for(request).devices(), pk=device_id)
    if not is_array(device):
        raise Http404("not a storage array")
    return device


def _links(request: HttpRequest, array: Device):
    """The array's path links through the enabled switches this reader may see (a disabled one is off the path)."""
    visible = access_for(request).devices()
    return PathLink.objects.filter(array=array, switch__in=visible, switch__enabled=True).select_related("switch")


@login_required
@require_GET
def array_page(request: HttpRequest, device_id: int) -> HttpResponse:
    """Which volumes are busiest, slowest, fill first; every volume, member and pool with its figures."""
    device = _array(request, device_id)
    context: dict = {"device": device, **range_context(request)}
    context["units"] = LatencyUnit.objects.filter(device=device)
    context["links"] = _links(request, device)
    context["warning_ms"], context["problem_ms"] = HeatmapLevels.for_device(device.pk)
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
    except RangeError as exc:
        return render(request, "storage/array.html", context | {"range_error": str(exc)}, status=400)
    try:
        context["health"] = health.parts(str(device.pk), registry().get(device.profile), window.now)
        context["health_counts"] = health.counts(context["health"])
        context["health_ok"] = sum(not part.attention for part in context["health"])
    except Exception as exc:
        log.warning("array health for device %s failed: %s", device.pk, type(exc).__name__)
        context["health_error"] = UNAVAILABLE
    try:
        found = histogram.counts(str(device.pk), window.start, window.end, window.now)
        context["percentiles"] = histogram.table(found)  # where the array serves latency histograms
    except Exception as exc:
        log.warning("latency histograms for device %s failed: %s", device.pk, type(exc).__name__)
    try:
        context["summary"] = array_summary(str(device.pk), window.start, window.end, window.now)
    except Exception as exc:
        log.warning("array summary for device %s failed: %s", device.pk, type(exc).__name__, exc_info=True)
        context["summary_error"] = UNAVAILABLE
    return render(request, "storage/array.html", context)


@login_required
@require_GET
def path_page(request: HttpRequest, device_id: int) -> HttpResponse:
    """A window of a volume's latency with the array's ports and the switch ports on its path (static/js/path.js)."""
    device = _array(request, device_id)
    context = {"device": device, "volume": request.GET.get("volume", "")[:255], **range_context(request)}
    context["links"] = _links(request, device)
    return render(request, "storage/path.html", context)


@require_GET
@api_auth
def path_api(request: HttpRequest, device_id: int) -> HttpResponse:
    """The path page's series and port marks for ?volume=&start=&end=&points= (JSON)."""
    device = access_for(request).devices().filter(pk=device_id).first()
    if device is None or not is_array(device):
        return json_error(404, "no such array")
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
        points = parse_points(request.GET.get("points") or "400", 2000)
    except RangeError as exc:
        return json_error(400, str(exc))
    volume = request.GET.get("volume", "")
    if len(volume) > 255:
        return json_error(400, "volume: at most 255 characters")
    try:
        data = path_data(device, volume, window.start, window.end, points, access_for(request).devices(), window.now)
    except Exception as exc:
        log.warning("path data for device %s failed: %s", device.pk, type(exc).__name__, exc_info=True)
        return json_error(503, UNAVAILABLE)
    return HttpResponse(orjson.dumps(data), content_type="application/json")
