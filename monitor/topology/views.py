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
from monitor.topology import optics
from monitor.topology.inventory import DAYS, unused
from monitor.topology.ports import PROBLEMS, inventory


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


def _one_device(request: HttpRequest, visible):
    """(the devices a list covers, the one device asked for or None): `device=<id>` narrows `visible` to that device
    (404 when not among them); a `device` that is not an id answers 400 in place of the devices."""
    if not request.GET.get("device"):
        return visible, None
    device_id = parse_id(request.GET["device"])
    if device_id is None:
        return HttpResponse("device must be a device id", status=400, content_type="text/plain"), None
    device = get_object_or_404(visible, pk=device_id)
    return visible.filter(pk=device.pk), device


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
    devices, device = _one_device(request, devices)
    if isinstance(devices, HttpResponse):
        return devices
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


@login_required
@require_GET
def port_inventory(request: HttpRequest) -> HttpResponse:
    """Every port of the devices a reader may see, with admin status, duplex, VLANs and the other end of its link;
    `device=<id>`, `problem=` (admin-down, half-duplex, mismatch, any), `vlan=<id>`; `format=csv` to export."""
    visible = access_for(request).devices()
    devices, device = _one_device(request, visible)
    if isinstance(devices, HttpResponse):
        return devices
    problem = request.GET.get("problem", "")
    if problem and problem not in PROBLEMS and problem != "any":
        choices = ", ".join([*PROBLEMS, "any"])
        return HttpResponse(f"problem must be one of {choices}", status=400, content_type="text/plain")
    vlan = parse_id(request.GET["vlan"]) if request.GET.get("vlan") else None
    if request.GET.get("vlan") and (vlan is None or not 1 <= vlan <= 4094):
        return HttpResponse("vlan must be a VLAN id, 1 to 4094", status=400, content_type="text/plain")
    rows = inventory(devices, set(visible.values_list("pk", flat=True)), optics.newest(timezone.now()))
    counts = {key: sum(key in row.problems for row in rows) for key in PROBLEMS}
    if problem:
        rows = [row for row in rows if (row.problems if problem == "any" else problem in row.problems)]
    if vlan is not None:
        rows = [row for row in rows if row.state is not None and (vlan in row.state.vlans or row.state.pvid == vlan)]
    if request.GET.get("format") == "csv":
        return _inventory_csv(rows)
    choices = [(key, label, counts[key]) for key, label in PROBLEMS.items()]
    context = {"rows": rows, "device": device, "problem": problem, "vlan": vlan, "choices": choices}
    return render(request, "topology/ports.html", context)


def _inventory_csv(rows) -> HttpResponse:
    answer = HttpResponse(content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = 'attachment; filename="ports.csv"'
    out = csv.writer(answer)
    out.writerow(["device", "port", "alias", "admin", "link", "speed_bps", "duplex", "pvid", "vlans", "untagged",
                  "other_device", "other_port", "problems", "read_at", "rx_dbm", "tx_dbm",
                  "optic_temperature_c"])  # fmt: skip
    for row in rows:
        state = row.state
        other = row.other if row.other_visible else None
        cells = [
            row.device.name, row.port.name, row.port.alias,
            "" if state is None or state.admin_up is None else ("up" if state.admin_up else "down"),
            "" if row.port.oper_up is None else ("up" if row.port.oper_up else "down"),
            row.port.speed_bps, state.duplex if state else "", state.pvid or "" if state else "",
            " ".join(map(str, state.vlans)) if state else "", " ".join(map(str, state.untagged)) if state else "",
            other[0].name if other else "", other[1].name if other and other[1] else "",
            " ".join(row.problems), state.read_at.isoformat() if state else "",
            *(_lanes(row.optics, part) for part in ("rx_dbm", "tx_dbm", "temperature_c")),
        ]  # fmt: skip
        out.writerow([neutral_cell(cell) for cell in cells])
    return answer


def _lanes(readings, part: str) -> float | str:
    """A module's reading as a number (a spreadsheet's, negative dBm included); a multi-lane module's, one a lane,
    space-separated; "" where the module said none."""
    values = [getattr(r, part) for r in readings]
    if len(values) == 1 and values[0] is not None:
        return round(values[0], 2)
    return " ".join("" if v is None else f"{v:.2f}" for v in values).strip()
