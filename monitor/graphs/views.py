"""Pages: home dashboard, device, single graph and search; thin: data comes from models and monitor.timeseries."""

from __future__ import annotations

import logging
import sys

from django.apps import apps
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.views.decorators.http import require_GET

from monitor.core import services
from monitor.graphs.access import Access, access_for
from monitor.graphs.timerange import RangeError, parse_range
from monitor.graphs.viewhelpers import GROUP_ORDER, first_screen, graph_cards, range_context
from monitor.models import Device, Graph, Interface
from monitor.polling import backoff
from monitor.timeseries import histogram, top
from monitor.timeseries.templates import TEMPLATES
from monitor.topology import blast, chassis, dependencies, hosts, vendors

log = logging.getLogger(__name__)
TOP = 10  # rows per ranking on the home page


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness check for load balancers (no login, no details)."""
    return HttpResponse("ok", content_type="text/plain")


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """Is anything wrong, and what is busiest: devices, alerts, top ports, sensors and volumes (visible ones)."""
    visible = access_for(request).devices()
    devices = _wrong_first(list(visible))
    not_answering = [d for d in devices if d.status == "down"]
    context = {"devices": devices, "not_answering": not_answering, "alerts_installed": alerts_panel()}
    context |= range_context(request)
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
    except RangeError as exc:
        return render(request, "monitor/home.html", context | {"range_error": str(exc)}, status=400)
    try:
        context |= _rankings(visible, devices, window.start, window.end, window.now)
    except Exception as exc:
        log.warning("dashboard rankings failed: %s", type(exc).__name__)
        context["rankings_error"] = "the time-series database is not answering; rankings are unavailable"
    return render(request, "monitor/home.html", context)


def alerts_panel() -> bool:
    """True when the alerts app is installed and offers its current-alerts panel."""
    if not apps.is_installed("monitor.alerts"):
        return False
    try:
        get_template("alerts/_current.html")
    except TemplateDoesNotExist:
        return False
    return True


def _rankings(visible: QuerySet, devices: list[Device], start, end, now) -> dict:
    """The top ten of each ranking among the visible devices only (rank everything, then keep what is visible), by
    the worst moment of the range: a port's highest sample against its speed, a volume's highest latency."""
    names = {str(d.pk): d for d in devices}
    speeds = {(str(i.device_id), i.name): (i.speed_bps, i.alias) for i in Interface.objects.filter(device__in=visible)}
    traffic = {
        (str(g.device_id), g.instance): g.pk for g in Graph.objects.filter(template="traffic", device__in=visible)
    }
    means = top.port_averages(start, end, now)
    busiest = []
    for (device, port), peaks in top.port_averages(start, end, now, fn="max").items():
        speed, alias = speeds.get((device, port), (0, ""))
        if device in names and speed > 0:
            peak, mean = max(peaks.values()), max(means.get((device, port), {}).values(), default=None)
            busiest.append(
                {"device": names[device], "port": port, "alias": alias, "bps": peak, "util": 100.0 * peak / speed}
                | {"mean_bps": mean, "mean_util": None if mean is None else 100.0 * mean / speed}
                | {"graph_id": traffic.get((device, port))}
            )
    busiest.sort(key=lambda row: -row["util"])
    hottest = top.hottest_sensors(start, end, sys.maxsize, now)
    slowest = top.slowest_volumes(start, end, sys.maxsize, now)
    sensors = [{"device": names[d], "name": n, "value": v} for d, n, v in hottest if d in names]
    volumes = [{"device": names[d], "volume": v, "ms": ms, "mean_ms": mean} for d, v, ms, mean in slowest if d in names]
    return {"busiest": busiest[:TOP], "sensors": sensors[:TOP], "volumes": volumes[:TOP]}


WRONG_FIRST = {"down": 0, "waiting": 1, "up": 2, "disabled": 3}


def _wrong_first(devices: list[Device]) -> list[Device]:
    """Devices not answering first, then those waiting for a first poll, then the rest, each by name."""
    return sorted(devices, key=lambda d: (WRONG_FIRST[d.status], d.name.casefold()))


@login_required
@require_GET
def device_detail(request: HttpRequest, device_id: int) -> HttpResponse:
    """Every graph of the device grouped into ports, system and storage, with its status (404 if not visible)."""
    access = access_for(request)
    device = get_object_or_404(access.devices(), pk=device_id)
    graphs = list(device.graphs.all())
    for graph in graphs:
        graph.device = device  # the row at hand, not one copy of it per graph
    cards = graph_cards(graphs)
    groups = [(name, [c for c in cards if c["group"] == name]) for name in GROUP_ORDER]
    has_volumes = any(TEMPLATES.get(g.template) and TEMPLATES[g.template].measurement == "volume" for g in graphs)
    context = {
        "device": device,
        "groups": [(name, items) for name, items in groups if items],
        "graph_count": len(cards),
        "has_volumes": has_volumes,
        "retry_every_s": backoff.retry_every_s(services.redis_client(), device.pk, device.poll_interval_s),
        "tree_places": device.tree_nodes.filter(tree__in=access.trees()).select_related("tree", "parent"),
        "first_graphs_url": first_screen(request, [card for _, items in groups for card in items]),
        "dependencies": dependencies.for_page(device, access.devices()),
        "chassis": list(device.chassis.all()[:9]),  # ENTITY-MIB's, from the daily layer-2 read
        **range_context(request),
    }
    return render(request, "monitor/device.html", context)


@login_required
@require_GET
def graph_detail(request: HttpRequest, graph_id: int) -> HttpResponse:
    """One large graph (404 if not visible); its device is linked only when that is visible too."""
    access = access_for(request)
    graph = get_object_or_404(access.graphs().select_related("device"), pk=graph_id)
    (card,) = graph_cards([graph])
    card["pinned"] = graph.dashboarditem_set.filter(user=request.user).exists()
    context = {"graph": graph, "cards": [card], "device_visible": access.can_read_device(graph.device_id)}
    context |= range_context(request) | {"first_graphs_url": first_screen(request, [card], points=800)}
    template = TEMPLATES.get(graph.template)
    if context["device_visible"] and template is not None and template.measurement == "interface":
        context["seen"] = hosts.on_port(graph.device_id, graph.instance)  # what is plugged into this port
        for place in context["seen"]:
            place.vendor = vendors.vendor(place.mac)
        context["blast"] = blast.for_port(graph.device_id, graph.instance, access.devices())  # what hangs on it
    if template is not None and template.slug == "volume_latency":
        context["percentiles"] = _volume_percentiles(request, graph)
    return render(request, "monitor/graph.html", context)


def _volume_percentiles(request: HttpRequest, graph: Graph) -> list[dict]:
    """The volume's latency percentiles over the page's range, where its array serves histograms; [] otherwise (a
    range the page refuses, or InfluxDB away: the graph says that itself)."""
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
        found = histogram.counts(str(graph.device_id), window.start, window.end, window.now, graph.instance)
    except Exception as exc:
        log.info("latency histogram of graph %s not read: %s", graph.pk, type(exc).__name__)
        return []
    return histogram.table({graph.instance: found[graph.instance]})[1:] if graph.instance in found else []


@login_required
@require_GET
def search(request: HttpRequest) -> HttpResponse:
    """Visible devices, ports (name or alias) and volumes whose text contains the query; where a MAC address is
    plugged in, and was (monitor/topology)."""
    text = request.GET.get("q", "").strip()[:100]
    context: dict = {"q": text, "devices": [], "ports": [], "volumes": [], "places": [], **range_context(request)}
    if len(text) >= 1:
        access = access_for(request)
        visible = access.devices()
        context["devices"] = visible.filter(Q(name__icontains=text) | Q(host__icontains=text))[:50]
        context["chassis"] = chassis.with_serial(text, visible)  # a serial number off a label
        context["ports"] = _found_ports(access, text)
        slugs = [s for s, t in TEMPLATES.items() if t.measurement == "volume"]
        graphs = access.graphs().select_related("device").filter(template__in=slugs, instance__icontains=text)
        volumes: dict[tuple[int, str], Graph] = {}
        for graph in graphs[:400]:
            volumes.setdefault((graph.device_id, graph.instance), graph)  # one entry per volume
        context["volumes"] = list(volumes.values())[:100]
        named = context["devices"] or context["ports"] or context["chassis"] or context["volumes"]
        by_name = "." in text or not named  # "core" names a device, "vmfs-1" a volume: not a host to look up
        found = hosts.search(text, visible, resolve=by_name)
        context["mac"], context["addresses"], context["places"] = found.mac, found.addresses, list(found.places[:50])
        context["mac_vendor"] = vendors.vendor(found.mac) if found.mac else ""
        port_devices = {p.device_id for p in context["ports"]}
        traffic = Graph.objects.filter(template="traffic", device_id__in=port_devices)
        graphs = {(g.device_id, g.instance): g.pk for g in traffic}
        for port in context["ports"]:
            port.graph_id = graphs.get((port.device_id, port.name))
    return render(request, "monitor/search.html", context)


def _found_ports(access: Access, text: str) -> list[Interface]:
    """Ports matching by name or alias whose device is visible, or whose traffic graph is placed in a tree."""
    ports = Interface.objects.select_related("device").filter(Q(name__icontains=text) | Q(alias__icontains=text))
    if not access.everything:
        graph = access.graphs().filter(template="traffic", device_id=OuterRef("device_id"), instance=OuterRef("name"))
        ports = ports.filter(Q(device__in=access.devices()) | Exists(graph))
    return list(ports[:100])
