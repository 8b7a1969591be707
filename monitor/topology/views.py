"""The topology pages: the live map of the devices a reader may see (its data from GET /api/map/), and unused ports
across those devices, or of one device, and as CSV."""

from __future__ import annotations

import csv

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from monitor.core.csvcells import neutral_cell
from monitor.core.ids import parse_id
from monitor.graphs.access import access_for
from monitor.graphs.viewhelpers import range_context
from monitor.topology.inventory import DAYS, unused


@login_required
@require_GET
def network_map(request: HttpRequest) -> HttpResponse:
    """The live map (static/js/map.js draws it from GET /api/map/); `tree=<id>` for one readable tree's devices."""
    tree = None
    if request.GET.get("tree"):
        tree_id = parse_id(request.GET["tree"])
        if tree_id is None:
            return HttpResponse("tree must be a graph tree's id", status=400, content_type="text/plain")
        tree = get_object_or_404(access_for(request).trees(), pk=tree_id)
    return render(request, "topology/map.html", {"tree": tree, **range_context(request)})


@login_required
@require_GET
def unused_ports(request: HttpRequest) -> HttpResponse:
    """Ports down for at least `days` (30, 90 or 180) days; `device=<id>` for one device; `format=csv` to export."""
    devices = access_for(request).devices()
    try:
        days = int(request.GET.get("days", DAYS[0]))
    except ValueError:
        days = -1
    if days not in DAYS:
        return HttpResponse(f"days must be one of {', '.join(map(str, DAYS))}", status=400, content_type="text/plain")
    device = None
    if request.GET.get("device"):
        device_id = parse_id(request.GET["device"])
        if device_id is None:
            return HttpResponse("device must be a device id", status=400, content_type="text/plain")
        device = get_object_or_404(devices, pk=device_id)
        devices = devices.filter(pk=device.pk)
    now = timezone.now()
    rows = unused(devices, days, now)
    if request.GET.get("format") == "csv":
        answer = HttpResponse(content_type="text/csv; charset=utf-8")
        answer["Content-Disposition"] = f'attachment; filename="unused-ports-{days}d.csv"'
        out = csv.writer(answer)
        out.writerow(["device", "port", "alias", "down_since", "days_down", "seen_going_down"])
        for row in rows:
            cells = [row.device.name, row.port.name, row.port.alias, row.since.isoformat(), row.days(now), row.known]
            out.writerow([neutral_cell(cell) for cell in cells])
        return answer
    listed = [(row, row.days(now)) for row in rows]
    context = {"rows": listed, "days": days, "choices": DAYS, "device": device}
    return render(request, "topology/unused.html", context)
