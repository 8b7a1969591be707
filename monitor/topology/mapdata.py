"""The map's data for a time range: the devices a reader may see as nodes, the links between two of them as edges,
each with its utilisation in both directions (mean and peak over the range, % of the link's speed, from the tiers
that hold the range: monitor/timeseries/top.py), its discards and errors, and whether it is gone. Plain data; the
page draws it with cytoscape (static/js/map.js)."""

from __future__ import annotations

import logging
from datetime import datetime
from urllib.parse import urlencode

from django.db.models import Count, QuerySet
from django.urls import reverse

from monitor.core.levels import NEAR_LINE_RATE_PCT
from monitor.devices.profiles import is_array
from monitor.events.query import in_window
from monitor.models import Device, Graph, Interface
from monitor.timeseries import top
from monitor.topology.models import Link

log = logging.getLogger(__name__)
UNAVAILABLE = "the time-series database is not answering: utilisation is unavailable, the links are as known"
WARNING_PCT = 80.0  # amber from the built-in port utilisation alert's level (monitor/alerts/defaults.py)
PROBLEM_PCT = NEAR_LINE_RATE_PCT  # red as on the iSCSI path page (monitor/core/levels.py)


def level(peak_pct: float | None) -> str:
    """The colour level of a link by its busier direction's peak: ok, warning, problem, or unknown (no figure)."""
    if peak_pct is None:
        return "unknown"
    return "problem" if peak_pct >= PROBLEM_PCT else "warning" if peak_pct >= WARNING_PCT else "ok"


def map_data(devices: QuerySet, start: datetime, end: datetime, now: datetime | None = None) -> dict:
    """Nodes and edges of the `devices` (a reader's, or a tree's) over [start, end] read as at `now`: an edge only
    where both its ends are among them."""
    shown = list(devices.order_by("name"))
    ids = {d.pk for d in shown}
    rows = list(Link.objects.filter(a__in=ids, b__in=ids))
    ends = {(row.a_id, row.a_port) for row in rows} | {(row.b_id, row.b_port) for row in rows}
    cabled, names = {device for device, _ in ends}, {port for _, port in ends}
    speeds = {
        (device, name): speed
        for device, name, speed in Interface.objects.filter(device__in=cabled, name__in=names).values_list(
            "device_id", "name", "speed_bps"
        )
    }
    traffic = Graph.objects.filter(template="traffic", device__in=cabled, instance__in=names)
    graphs = {
        (d, port): reverse("graph", args=[pk]) for d, port, pk in traffic.values_list("device_id", "instance", "pk")
    }
    counted = in_window(Device.objects.filter(pk__in=cabled), start, end).filter(port__in=names)
    events = {(r["device_id"], r["port"]): r["n"] for r in counted.values("device_id", "port").annotate(n=Count("id"))}
    figures, error = ({}, {}, {}), ""
    try:
        figures = _figures(start, end, now) if rows else figures
    except Exception as exc:  # the links are still worth drawing: grey, and said why
        log.warning("map figures failed: %s", type(exc).__name__)
        error = UNAVAILABLE
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "figures_error": error,
        "levels": {"warning_pct": WARNING_PCT, "problem_pct": PROBLEM_PCT},
        "nodes": [_node(device, device.pk in cabled) for device in shown],
        "edges": [_edge(row, speeds, graphs, *figures) | _events(row, events) | _then(row, end) for row in rows],
    }


def _figures(start: datetime, end: datetime, now: datetime | None) -> tuple[dict, dict, dict]:
    """(means, peaks, counts) of every port over the range, keyed (device id, port)."""

    def keyed(found: dict) -> dict:
        return {(int(device), port): values for (device, port), values in found.items() if device.isdigit()}

    means = keyed(top.port_averages(start, end, now))
    peaks = keyed(top.port_averages(start, end, now, fn="max"))
    return means, peaks, keyed(top.port_counts(start, end, now))


def _node(device: Device, cabled: bool) -> dict:
    kind = "array" if is_array(device) else "switch" if cabled else "other"
    url = reverse("device", args=[device.pk])
    return {"id": str(device.pk), "name": device.name, "kind": kind, "status": device.status, "url": url}


def _edge(row: Link, speeds: dict, graphs: dict, means: dict, peaks: dict, counts: dict) -> dict:
    a, b = (row.a_id, row.a_port), (row.b_id, row.b_port)
    speed = min((s for s in (speeds.get(a), speeds.get(b)) if s), default=None)

    def direction(sender: tuple, receiver: tuple) -> dict:
        """What one end sent and the other received: the sender's out, else (no data there) the receiver's in."""
        mean = _first(means.get(sender, {}).get("out_bps"), means.get(receiver, {}).get("in_bps"))
        peak = _first(peaks.get(sender, {}).get("out_bps"), peaks.get(receiver, {}).get("in_bps"))
        return {"mean_bps": mean, "peak_bps": peak, "mean_pct": _pct(mean, speed), "peak_pct": _pct(peak, speed)}

    a_to_b, b_to_a = direction(a, b), direction(b, a)
    busiest = max((d["peak_pct"] for d in (a_to_b, b_to_a) if d["peak_pct"] is not None), default=None)
    faults = {  # the highest per second at either end, either way; None where neither end serves them
        kind: max(
            (
                v
                for end in (a, b)
                for way in ("in", "out")
                if (v := counts.get(end, {}).get(f"{way}_{kind}")) is not None
            ),
            default=None,
        )
        for kind in ("discards", "errors")
    }
    return {
        "id": row.pk,
        "source": str(row.a_id),
        "target": str(row.b_id),
        "a_port": row.a_port,
        "b_port": row.b_port,
        "speed_bps": speed,
        "a_to_b": a_to_b,
        "b_to_a": b_to_a,
        "peak_pct": busiest,
        "level": level(busiest),
        "discards_per_s": faults["discards"],
        "errors_per_s": faults["errors"],
        "via": [name for name, on in (("lldp", row.via_lldp), ("fdb", row.via_fdb)) if on],
        "first_seen": row.first_seen.isoformat(),
        "last_seen": row.last_seen.isoformat(),
        "a_graph": graphs.get(a),
        "b_graph": graphs.get(b),
    }


def _then(row: Link, end: datetime) -> dict:
    """Gone as of the range's end: the read that found the link missing came before it. A link gone now but seen up
    to a past range's end is drawn as it was then, so the map at the moment of a spike shows the cables of that
    moment; a link first seen after the range is drawn and says so (it may have been there before the first read)."""
    return {"gone": row.gone and row.checked_at <= end, "seen_after_range": row.first_seen > end}


def _events(row: Link, events: dict) -> dict:
    """How many events (traps, syslog, the monitor's own) name each of the link's ports in the range, and where
    they are listed."""
    out: dict = {}
    for side, device, port in (("a", row.a_id, row.a_port), ("b", row.b_id, row.b_port)):
        out[f"{side}_events"] = events.get((device, port), 0)
        out[f"{side}_events_url"] = reverse("device-events", args=[device]) + "?" + urlencode({"port": port})
    return out


def _first(*values: float | None) -> float | None:
    return next((v for v in values if v is not None), None)


def _pct(bps: float | None, speed: int | None) -> float | None:
    return None if bps is None or not speed else 100.0 * bps / speed
