"""JSON and CSV API: a page's graphs in one request (GET /api/series), one graph or aggregate
(/api/graphs/<id>/series, /api/aggregates/<id>/series, .csv), and a device's volume latency heatmap."""

from __future__ import annotations

import csv
import logging
from datetime import datetime, timezone

import orjson
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from drf_spectacular.types import OpenApiTypes

from monitor.core.csvcells import neutral_cell
from monitor.core.ids import parse_id
from monitor.graphs import viewed
from monitor.graphs.access import Access, access_for
from monitor.graphs.timerange import PRESETS, RangeError, TimeRange, parse_range
from monitor.graphs.viewhelpers import json_error, parse_points
from monitor.models import Device, Graph, Interface
from monitor.restapi.jsonviews import json_get, query
from monitor.timeseries import aggregates, assemble, series, top
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.plan import MAX_POINTS, Window
from monitor.timeseries.templates import TEMPLATES, GraphTemplate

log = logging.getLogger(__name__)
UNAVAILABLE = "the time-series database is not answering; try again shortly"
HEATMAP_FIELDS = ("read_latency_ms", "write_latency_ms")
MAX_BATCH = 300  # graphs per page request (a 52-port switch has 158)
P95_MODES = ("now", "later", "only")
SHAPES = ("points", "columns")
WINDOW = [
    query("range", description="a preset window ending now (default 1d)", enum=list(PRESETS)),
    query("start", description="ISO 8601 time, or now-<n>h / now-<n>d ...; with end"),
    query("end", description="ISO 8601 time or now"),
    query("points", {"type": "integer", "minimum": 2, "maximum": MAX_POINTS}, "at most this many points a series"),
]
UNIT = query("unit", description="bits (default), bytes, or percent of the speed", enum=["bits", "bytes", "percent"])
IDS = {"type": "integer", "minimum": 1}


class BadRequest(ValueError):
    """A request the API refuses with a 4xx and this message."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _window(params: QueryDict, now: datetime | None = None) -> tuple[TimeRange, int]:
    try:
        window = parse_range(params.get("start"), params.get("end"), params.get("range"), now)
        return window, parse_points(params.get("points"), MAX_POINTS)
    except RangeError as exc:
        raise BadRequest(str(exc)) from None


def _unit(params: QueryDict) -> str:
    unit = params.get("unit", "") or "bits"
    if unit not in ("bits", "bytes", "percent"):
        raise BadRequest(f"unit={unit[:20]!r} is not available (bits, bytes or percent)")
    return unit


def _scale(unit: str, template: GraphTemplate, members: list[Graph], speeds: dict, strict: bool) -> tuple[float, str]:
    """Bits (as stored), bytes, or percent of the ports' speed; `strict` refuses a unit the graph cannot show."""
    if unit == "bytes" and template.unit == "bit/s":
        return 0.125, "B/s"
    if unit == "percent" and template.percent_of_speed:
        speed = sum(speeds.get((g.device_id, g.instance), 0) for g in members)
        if speed > 0:
            return 100.0 / speed, "%"
        if strict:
            raise BadRequest("the port speed is unknown, so utilisation cannot be drawn")
    elif unit != "bits" and strict:
        raise BadRequest(f"unit={unit!r} is not available for this graph (bits, bytes or percent)")
    return 1.0, template.unit


def _speeds(members: list[Graph]) -> dict[tuple[int, str], int]:
    rows = Interface.objects.filter(device_id__in={g.device_id for g in members})
    return {(i.device_id, i.name): i.speed_bps for i in rows}


def _plot(key: str, template: GraphTemplate, members: list[Graph], scale: float, now: datetime | None = None) -> Plot:
    """The chart of `members`, each with the interval pages count its windows as written by at `now`."""
    now = now or datetime.now(timezone.utc)
    found = tuple(
        Member(str(g.device_id), g.instance, g.device.poll_interval_s, g.device.counted_interval_s(now))
        for g in members
    )
    return Plot(key, template, found, scale)


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


def _read(
    plots: list[Plot], span: Window, p95: str, detail: bool = True, columns: bool = False, graphs: list[Graph] = ()
) -> dict[str, dict]:
    """Every plot's data: single graphs in one read per tier, aggregates one by one (`detail`: window minima;
    `columns`: series as columns, see `series.read`; `graphs`: their rows, whose devices' last polls date the
    newest raw samples)."""
    versions = {str(g.device_id): g.device.last_poll_at for g in graphs if g.device.last_poll_at is not None}
    try:
        out = series.read([p for p in plots if not p.summed], span, p95, detail, columns, versions)
        for plot in plots:
            if plot.summed:
                out[plot.key] = aggregates.read(plot, span, "later" if p95 == "later" else "now")
        return out
    except Exception as exc:
        log.warning("series query failed: %s", type(exc).__name__, exc_info=True)
        raise BadRequest(UNAVAILABLE, 503) from None


def _data(request: HttpRequest, kind: str, object_id: int) -> dict:
    title, template, members = _members(access_for(request), kind, object_id)
    window, points = _window(request.GET)
    scale, unit = _scale(_unit(request.GET), template, members, _speeds(members), strict=True)
    plot = _plot(f"{kind}:{object_id}", template, members, scale, window.now)
    data = _read([plot], Window.of(window.start, window.end, points, window.now), "now", graphs=members)[plot.key]
    data["unit"] = unit
    data["graph"] = {"id": object_id, "kind": kind, "title": title, "template": template.slug}
    data["graph"]["device"] = members[0].device.name if kind == "graph" else ""
    data.update({"start": window.start.isoformat(), "end": window.end.isoformat(), "points_limit": points})
    return data


def _json(data: dict, status: int = 200) -> HttpResponse:
    return HttpResponse(orjson.dumps(data), content_type="application/json", status=status)


@json_get([*WINDOW, UNIT])
def series_json(request: HttpRequest, object_id: int, kind: str = "graph") -> HttpResponse:
    """Points [t_ms, min, mean, max] per series (never more than `points`), legend stats and resolution."""
    try:
        return _json(_data(request, kind, object_id))
    except BadRequest as exc:
        return json_error(exc.status, str(exc))


def _ids(params: QueryDict, name: str) -> list[int]:
    raw = params.getlist(name)
    ids = [parse_id(text) for text in raw]
    if None in ids:
        bad = next(text for text, parsed in zip(raw, ids, strict=True) if parsed is None)
        raise BadRequest(f"{name}={bad[:20]!r} is not an id")
    return list(dict.fromkeys(i for i in ids if i is not None))


@json_get(
    [
        query("graph", IDS, "a graph's id (repeat for more; at most 300 with the aggregates)", many=True),
        query("aggregate", IDS, "an aggregate graph's id (repeat for more)", many=True),
        *WINDOW,
        UNIT,
        query("p95", description="when the 95th percentiles from rollups are sent", enum=list(P95_MODES)),
        query("shape", description="series as point rows or as columns", enum=list(SHAPES)),
    ]
)
def series_batch(request: HttpRequest) -> HttpResponse:
    """Many graphs and aggregates of one window in one answer: {"graphs": {id: data}, "aggregates": {id: data},
    "errors": {"graph:id": message}}. `p95=later` leaves out the 95th percentiles that come from rollups (the
    graphs say `p95_pending`); `p95=only` answers just those. `shape=columns`: each series has `cols` ("t",
    "mean", "max" lists) instead of `points` rows (what pages ask for: smaller, and faster to make and read)."""
    try:
        data = batch(access_for(request), request.GET)
    except BadRequest as exc:
        return json_error(exc.status, str(exc))
    viewed.remember(_answered(request.GET, data), request.user.pk)
    return _json(drawn(data))


# Significant digits of the values a page's columns carry: a chart draws 1 part in a few hundred and its labels
# show 3 digits; the legends (stats) are sent exact. The demo's day page moves a quarter less JSON
# (docs/performance.md).
DRAWN_DIGITS = 5


def drawn(data: dict) -> dict:
    """`data` with every column of values (`cols`: min, mean, max) cut to DRAWN_DIGITS significant digits."""
    spec = f".{DRAWN_DIGITS}g"
    for kind in ("graphs", "aggregates"):
        for item in data.get(kind, {}).values():
            for one in item.get("series", ()):
                cols = one.get("cols")
                for name in ("min", "mean", "max") if cols else ():
                    if name in cols:
                        cols[name] = [v if v is None else float(format(v, spec)) for v in cols[name]]
    return data


def _answered(params: QueryDict, data: dict) -> QueryDict:
    """`params` naming only the graphs and aggregates answered (what the caller may read): what the server, which
    reads everything, may read again for them."""
    kept = params.copy()
    for name in ("graph", "aggregate"):
        kept.setlist(name, [str(i) for i in _ids(params, name) if f"{name}:{i}" not in data["errors"]])
    return kept


def batch(access: Access, params: QueryDict, now: datetime | None = None) -> dict:
    """What `series_batch` answers for these query parameters, read with `access` as at `now` (default: now;
    BadRequest when refused)."""
    graph_ids, aggregate_ids = _ids(params, "graph"), _ids(params, "aggregate")
    if not graph_ids and not aggregate_ids:
        raise BadRequest("name at least one graph=<id> or aggregate=<id>")
    if len(graph_ids) + len(aggregate_ids) > MAX_BATCH:
        raise BadRequest(f"at most {MAX_BATCH} graphs per request")
    p95 = params.get("p95", "now")
    if p95 not in P95_MODES:
        raise BadRequest(f"p95 must be one of {', '.join(P95_MODES)}")
    window, points = _window(params, now)
    unit = _unit(params)
    shape = params.get("shape", "points")
    if shape not in SHAPES:
        raise BadRequest(f"shape must be one of {', '.join(SHAPES)}")
    span = Window.of(window.start, window.end, points, now)
    data = _batch(access, graph_ids, aggregate_ids, span, unit, p95, shape == "columns")
    return data | {"start": window.start.isoformat(), "end": window.end.isoformat(), "points_limit": points}


def _batch(access: Access, graph_ids, aggregate_ids, span: Window, unit: str, p95: str, columns: bool) -> dict:
    errors: dict[str, str] = {}
    picked: list[tuple[str, str, GraphTemplate, list[Graph]]] = []
    for graph in access.graphs().select_related("device").filter(pk__in=graph_ids):
        if graph.template in TEMPLATES:
            picked.append(("graph", str(graph.pk), TEMPLATES[graph.template], [graph]))
    for aggregate_id in aggregate_ids:
        try:
            _, template, members = _members(access, "aggregate", aggregate_id)
        except BadRequest as exc:
            errors[f"aggregate:{aggregate_id}"] = str(exc)
            continue
        picked.append(("aggregate", str(aggregate_id), template, members))
    found = {(kind, key) for kind, key, _, _ in picked}
    errors |= {f"graph:{i}": "no such graph" for i in graph_ids if ("graph", str(i)) not in found}
    speeds = _speeds([g for *_, members in picked for g in members]) if unit == "percent" else {}
    plots, units = [], {}
    for kind, key, template, members in picked:
        scale, units[f"{kind}:{key}"] = _scale(unit, template, members, speeds, strict=False)
        plots.append(_plot(f"{kind}:{key}", template, members, scale, span.now))
    members = [g for *_, graphs in picked for g in graphs]
    read = _read(plots, span, p95, detail=False, columns=columns, graphs=members)
    out: dict = {"graphs": {}, "aggregates": {}, "errors": errors}
    for plot_key, data in read.items():
        kind, key = plot_key.split(":", 1)
        if columns and p95 != "only":
            data["series"] = [assemble.as_columns(found) for found in data["series"]]
        out["graphs" if kind == "graph" else "aggregates"][key] = data | {"unit": units[plot_key]}
    return out


@json_get([*WINDOW, UNIT], {(200, "text/csv"): OpenApiTypes.STR})
def series_csv(request: HttpRequest, object_id: int, kind: str = "graph") -> HttpResponse:
    """The same window as CSV: one row per point and series; text cells cannot become formulas."""
    try:
        data = _data(request, kind, object_id)
    except BadRequest as exc:
        return json_error(exc.status, str(exc))
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{kind}-{object_id}.csv"'
    writer = csv.writer(response)
    unit = data["unit"] or "number"  # every figure's column says its unit (a load average has none)
    writer.writerow(["time (UTC)", "graph", "series", f"min ({unit})", f"mean ({unit})", f"max ({unit})"])
    for found in data["series"]:
        for t_ms, low, mean, high in found["points"]:
            moment = datetime.fromtimestamp(t_ms / 1000, timezone.utc).isoformat()
            writer.writerow([moment, *map(neutral_cell, (data["graph"]["title"], found["label"])), low, mean, high])
    return response


@json_get([*WINDOW, query("field", description="the latency shown", enum=list(HEATMAP_FIELDS))])
def heatmap(request: HttpRequest, device_id: int) -> JsonResponse:
    """The worst volume latency per time column (top.latency_heatmap), one row per volume of a visible device."""
    if not access_for(request).can_read_device(device_id):
        return json_error(404, "no such device")
    field = request.GET.get("field", HEATMAP_FIELDS[0])
    if field not in HEATMAP_FIELDS:
        return json_error(400, f"field must be one of {', '.join(HEATMAP_FIELDS)}")
    try:
        window, points = _window(request.GET)
    except BadRequest as exc:
        return json_error(exc.status, str(exc))
    try:
        interval = Device.objects.filter(pk=device_id).values_list("poll_interval_s", flat=True).first() or 60
        data = top.latency_heatmap(
            str(device_id), field, window.start, window.end, min(points, 400), interval, now=window.now
        )
    except Exception as exc:
        log.warning("heatmap query for device %s failed: %s", device_id, type(exc).__name__)
        return json_error(503, UNAVAILABLE)
    return JsonResponse(data | {"field": field, "start": window.start.isoformat(), "end": window.end.isoformat()})
