"""Stored rollup windows read in InfluxQL over InfluxDB 2.x's /query (a bucket is the database of its name through
its virtual DBRP mapping): a day's 5-minute windows as stored, and the figures of the range. A cold 1-day page's
160 graphs cost InfluxDB and the web process about 40 % less than in Flux, whose CSV repeats each series' tags on
every value: 2.4 MB of JSON arrays instead of 17.5 MB (docs/performance.md). Windows of several stored windows
stay in Flux: InfluxQL's GROUP BY time() cost InfluxDB four times the CPU on a year's page. Values are bound as
parameters ($name), never written into the text."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

import orjson
from influxdb_client.rest import ApiException

from monitor.timeseries.client import QueryError, client
from monitor.timeseries.flux import Params, Plot
from monitor.timeseries.pieces import EVERY_INSTANCE_AT, Piece, Read, means_kept, reads_of
from monitor.timeseries.plan import Layout, Window

Series = dict  # {"name": measurement, "tags": {...}, "columns": [...], "values": [[t ms, ...], ...]}


def identifier(name: str) -> str:
    """A measurement, field, tag or alias name quoted for InfluxQL."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def where(
    bind: Params,
    device: str,
    since: datetime,
    until: datetime,
    tag: str | None = None,
    instances: Iterable[str] = (),
    filters: Iterable[tuple[str, str]] = (),
) -> str:
    """A WHERE condition: one device's series (of these instances of `tag`, with these tag filters) from `since` to
    `until`; every value bound as a $parameter."""
    terms = [f'"device" = ${bind(device)}']
    if tag:
        terms.append("(" + " OR ".join(f"{identifier(tag)} = ${bind(name)}" for name in instances) + ")")
    terms += [f"{identifier(name)} = ${bind(value)}" for name, value in filters]
    terms += [f"time >= ${bind(int(since.timestamp() * 1e9))}", f"time < ${bind(int(until.timestamp() * 1e9))}"]
    return " AND ".join(terms)


def query(database: str, statements: list[str], params: dict[str, object]) -> list[list[Series]]:
    """Each statement's series, in order, from one request; QueryError when InfluxDB refuses any of them (its
    message never holds the token, which travels in a header)."""
    if not statements:
        return []
    fields = [("db", database), ("q", ";\n".join(statements)), ("epoch", "ms")]
    fields.append(("params", orjson.dumps(params).decode()))
    try:
        response = client().api_client.call_api(
            "/query",
            "POST",
            post_params=fields,
            header_params={"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"},
            _preload_content=False,
            _return_http_data_only=True,
        )
    except ApiException as refused:  # InfluxDB's own message (a parse error...), never the request's headers
        raise QueryError(f"InfluxDB refused the InfluxQL query ({refused.status}): {_message(refused.body)}") from None
    answer = orjson.loads(response.data)
    if "error" in answer:
        raise QueryError(f"InfluxDB refused the InfluxQL query: {answer['error'][:200]}")
    results = sorted(answer.get("results", []), key=lambda result: result.get("statement_id", 0))
    for result in results:
        if "error" in result:
            raise QueryError(f"InfluxDB refused the InfluxQL query: {result['error'][:200]}")
    if len(results) != len(statements):
        raise QueryError("InfluxDB answered fewer statements than were asked")
    return [result.get("series", []) for result in results]


def _message(body: bytes | str | None) -> str:
    """The "message" of an error answer, cut short."""
    try:
        return str(orjson.loads(body or b"{}").get("message", ""))[:200]
    except (orjson.JSONDecodeError, AttributeError):
        return ""


def read_stored(plots: list[Plot], shape: Layout, detail: bool, pieces: dict[str, Piece]) -> dict[str, dict]:
    """{piece name: {(plot key, field): {result name: [(t ms, value)]}}} of a shape whose points are each one
    stored window (`means_kept`), one request for every piece: per template and device, a statement of the
    windows as stored and one of the range's figures."""
    if not means_kept(shape):
        raise ValueError("InfluxQL reads stored windows only; windows of several are Flux's (gather_pieces)")
    groups: dict[tuple[str, str], list[Plot]] = defaultdict(list)
    for plot in plots:
        groups[(plot.template.slug, plot.members[0].device)].append(plot)
    bind, statements, targets = Params(), [], []
    for name, piece in pieces.items():
        reads = reads_of(shape, detail, piece)
        for members in groups.values():
            for windowed in (True, False):
                chosen = [r for r in reads if r.windowed == windowed]
                text = _statement(members, chosen, piece.span, bind)
                if text:
                    statements.append(text)
                    targets.append((name, members, piece.span))
    found = query(shape.tier.bucket, statements, bind.values)
    out: dict[str, dict] = {name: {} for name in pieces}
    for (name, members, span), series in zip(targets, found, strict=True):
        _sort(out[name], members, series, int(span.start.timestamp() * 1000))
    return out


def _statement(members: list[Plot], reads: list[Read], span: Window, bind: Params) -> str:
    """SELECT each read of each field of these graphs (one template, one device) per instance: windows as stored
    (max() per window cost InfluxDB six times as much), figures by their aggregate; "" when there is nothing."""
    template, first = members[0].template, members[0].members[0]
    columns = []
    for read in reads:
        if read.name == "total" and not template.totals:
            continue
        for field in template.fields:
            alias = f"{read.name}|{field}"
            stored = identifier(field + read.suffix)
            columns.append(
                f"{stored} AS {identifier(alias)}" if read.windowed else f"{read.fn}({stored}) AS {identifier(alias)}"
            )
    if not columns:
        return ""
    tag = template.instance_tag if len(members) < EVERY_INSTANCE_AT else None  # else every instance of the device
    instances = dict.fromkeys(plot.members[0].instance for plot in members)
    condition = where(bind, first.device, span.start, span.end, tag, instances, sorted(template.filters.items()))
    group = f" GROUP BY {identifier(template.instance_tag)}" if template.instance_tag else ""
    source = identifier(template.measurement)
    # Names are quoted identifiers from the templates (code); every value is a bound $parameter.
    return f"SELECT {', '.join(columns)} FROM {source} WHERE {condition}{group}"  # noqa: S608


def _sort(out: dict, members: list[Plot], series: list, start_ms: int) -> None:
    """A statement's series into {(plot key, field): {result: rows}}; a time before the range's start (a whole-range
    figure's) is the start, as in Flux."""
    tag = members[0].template.instance_tag
    by_instance: dict[str, list[Plot]] = defaultdict(list)
    for plot in members:
        by_instance[plot.members[0].instance if tag else ""].append(plot)
    for one in series:
        plots = by_instance.get((one.get("tags") or {}).get(tag, "") if tag else "")
        if not plots:
            continue
        columns = list(zip(*one["values"], strict=True))  # one pass in C: a value column each
        if not columns:
            continue
        times = [t if t >= start_ms else start_ms for t in columns[0]]
        for alias, values in zip(one["columns"][1:], columns[1:], strict=True):
            result, _, field = alias.partition("|")
            rows = list(zip(times, values, strict=True))
            for plot in plots:
                out.setdefault((plot.key, field), {})[result] = rows
