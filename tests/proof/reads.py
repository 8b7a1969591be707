"""Read a batch's graphs and aggregates as pages and the single-graph API do, as at a moment (test_late_windows.py's
way): a page's two requests (p95=later, then p95=only; shape=columns), warm (caches as earlier moments and the
warming left them, the page remembered as viewed) or cold (no cache), and the single-graph read (p95=now)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import urlencode

from django.http import QueryDict
from django.test import override_settings

POINTS = 300
PRESETS = ("1h", "6h", "1d", "1w", "1m")


@dataclass(frozen=True)
class Range:
    """A preset (`name` in PRESETS) or an absolute range from `start` to the moment."""

    name: str
    start: float | None = None

    def params(self) -> list[tuple[str, str]]:
        if self.start is None:
            return [("range", self.name)]
        return [("start", f"{self.start:.0f}"), ("end", "now")]


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def page(graphs: list[int], aggregates: list[int], span: Range, p95: str) -> QueryDict:
    ask = [("graph", str(g)) for g in graphs] + [("aggregate", str(a)) for a in aggregates]
    return QueryDict(urlencode([*ask, *span.params(), ("points", str(POINTS)), ("p95", p95), ("shape", "columns")]))


def page_reads(graphs: list[int], aggregates: list[int], span: Range, t: float, warm: bool) -> dict[str, dict]:
    """{"later": answer, "only": answer}: a page's two requests as at `t`."""
    from monitor.graphs import api, viewed
    from monitor.graphs.access import Access

    out = {}
    for p95 in ("later", "only"):
        query = page(graphs, aggregates, span, p95)
        try:
            if warm:
                out[p95] = api.batch(Access.server(), query, at(t))
                viewed.remember(query)
            else:
                with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}):
                    out[p95] = api.batch(Access.server(), query, at(t))
        except api.BadRequest as exc:  # the page's request refused: each of its graphs gets the error
            error = {"error": f"{exc.status} {exc}"}
            out[p95] = {
                "graphs": dict.fromkeys(map(str, graphs), error),
                "aggregates": dict.fromkeys(map(str, aggregates), error),
            }
    return out


def single_read(graph_ids: list[int], span: Range, t: float) -> dict[str, dict]:
    """{graph id: data}: the single-graph API's read of each graph (p95=now), as at `t`."""
    from monitor.graphs import api
    from monitor.graphs.timerange import parse_range
    from monitor.models import Graph
    from monitor.timeseries.plan import Window

    out = {}
    params = dict(span.params())
    window = parse_range(params.get("start"), params.get("end"), params.get("range"), at(t))
    for graph in Graph.objects.select_related("device").filter(pk__in=graph_ids):
        plot = api._plot(f"graph:{graph.pk}", api.TEMPLATES[graph.template], [graph], 1.0, at(t))
        try:
            found = api._read([plot], Window.of(window.start, window.end, POINTS, at(t)), "now", graphs=[graph])
            out[str(graph.pk)] = found[plot.key]
        except api.BadRequest as exc:
            out[str(graph.pk)] = {"error": f"{exc.status} {exc}"}
    return out
