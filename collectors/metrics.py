"""Turn a profile's scalars and tables into samples: parse strings, scale, rates for counters, ratios of deltas."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from collectors.counters import TOO_SOON, UNKNOWN_WIDTH, WRAP_32, WRAPPED, Reading, counter_rate
from collectors.latencyunit import decide
from collectors.profiles import DERIVED, Metric, Profile, Table
from collectors.samples import CounterState, Sample
from collectors.sessions import Session
from collectors.snmptypes import SnmpError, SnmpValue
from collectors.tags import tag_value

NUMERIC = ("int", "gauge", "counter32", "counter64", "timeticks")


class ValueProblem(ValueError):
    """A value the device sent cannot be read as this metric (the message says why)."""


@dataclass
class MetricReport:
    """What reading a profile's metrics produced: samples, and per-metric problems (the rest still counts)."""

    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    values: list[tuple[str, dict[str, str], float | str, str]] = field(default_factory=list)  # for the probe
    gaps: dict[str, str] = field(default_factory=dict)  # counter key -> why it gave no rate this poll
    unread: set[str] = field(default_factory=set)  # measurements a table of which could not be read whole this poll


def to_number(value: SnmpValue, metric: Metric) -> float:
    """A number from a device value, with the metric's scale and offset applied."""
    return parse_number(value, metric) * metric.scale + metric.offset


def parse_number(value: SnmpValue, metric: Metric) -> float:
    """The number a device value carries, unscaled: numbers as they are, strings through the regex or float()."""
    if value.kind in NUMERIC:
        if metric.parse is not None:
            raise ValueProblem(f"expected a string to parse, got a number of type {value.kind}")
        return float(value.value)
    if value.kind == "octets":
        text = value.printable(4096)
        if metric.parse is not None:
            found = metric.parse.findall(text)
            if len(found) <= metric.pick:
                raise ValueProblem(f"{text[:60]!r} does not match the profile's pattern")
            return float(found[metric.pick])
        try:
            return float(text)
        except ValueError:
            raise ValueProblem(f"expected a number, got the string {text[:60]!r}") from None
    raise ValueProblem(f"expected a number, got a value of type {value.kind}")


async def read_metrics(
    session: Session,
    profile: Profile,
    device_key: str,
    previous: CounterState | None,
    state: CounterState,
    read_at: float,
    rebooted: bool,
    scalar_values: dict[str, SnmpValue] | None = None,
    min_interval: float = 0.0,
) -> MetricReport:
    """Read every scalar and table of the profile; problems are per metric, never fatal to the poll.

    `scalar_values`: the scalars, already read at `read_at` (the poll asks for them with sysUpTime);
    `min_interval`: counters read closer than this to their kept reading give no rate and keep it."""
    report = MetricReport()
    context = _Context(previous, state, read_at, rebooted, min_interval)
    if profile.scalars:
        values = scalar_values
        if values is None:
            started = time.time()
            values = await session.get(scalar_oids(profile))
            context.read_at = (started + time.time()) / 2
        fields: dict[str, float] = {}
        for metric in profile.scalars:
            _evaluate(
                metric,
                [values.get(o) for o in metric.oids],
                f"{profile.scalar_measurement}|",
                fields,
                context,
                report,
                {},
            )
        _ratios(profile.scalars, fields, context)
        emitted = {k: v for k, v in fields.items() if _emitted(profile.scalars, k)}
        if emitted:
            report.samples.append(Sample(profile.scalar_measurement, {"device": device_key}, emitted, read_at))
        _check_units("scalars", profile.scalars, [(fields, emitted)], device_key, context, report)
    for table, walked, times in await _walk_tables(session, profile.tables, context, report):
        _table_samples(table, walked, times, device_key, context, report)
    return report


def scalar_oids(profile: Profile) -> list[str]:
    return [oid for m in profile.scalars for oid in m.oids]


def _row_columns(table: Table) -> list[str]:
    """The columns whose rows are the table's rows: its metrics' and tags' (not the other tables of lookups)."""
    return sorted({oid for m in table.metrics for oid in m.oids} | {t.column for t in table.tags if t.column})


def _columns(table: Table) -> list[str]:
    """Every column to walk: the table's own, then the other tables its lookup tags read."""
    rows = _row_columns(table)
    return rows + sorted({t.lookup_column for t in table.tags if t.lookup_column} - set(rows))


def _timed(table: Table) -> list[str]:
    """The columns that time a row, best first: its counters' (a wide table's columns come back in several
    answers, and a rate is timed by the answer that carried the counter), else its first column."""
    counters = [oid for m in table.metrics if m.type in ("counter", "count") for oid in m.oids]
    return list(dict.fromkeys(counters)) or _row_columns(table)[:1]


def _row_times(times: dict[str, dict], timed: list[str]) -> dict:
    """Each row's time from the best of its timing columns that answered for it."""
    merged: dict = {}
    for column in reversed(timed):
        merged.update(times.get(column, {}))
    return merged


async def _walk_tables(session: Session, tables: tuple[Table, ...], ctx: _Context, report: MetricReport) -> list:
    """Every table's columns in one walk (a few requests instead of a few per table), each row timed by the
    answer that carried it; if that walk fails, table by table, so one broken table costs only itself."""
    if not tables:
        return []
    before = ctx.previous.rows if ctx.previous is not None and not ctx.rebooted else {}
    plan = [(table, _columns(table)) for table in tables]
    expected = {c: before[t.name] for t, _ in plan if t.name in before for c in _row_columns(t)}
    times: dict[str, dict] = {c: {} for table, _ in plan for c in _timed(table)}
    try:
        columns = list(dict.fromkeys(c for _, cols in plan for c in cols))
        walked = await session.walk(columns, max(t.max_rows for t in tables), expected, times)
    except SnmpError:
        walked = None
    found = []
    for table, cols in plan:
        timed = _timed(table)
        if walked is None:
            try:
                own: dict[str, dict] = {c: {} for c in timed}
                part = await session.walk(cols, table.max_rows, before.get(table.name), own)
            except SnmpError as exc:
                report.errors.append(f"{table.name}: {exc}")
                report.unread.add(table.measurement)
                continue
            found.append((table, part, _row_times(own, timed)))
        elif any(len(walked[c]) > table.max_rows for c in cols):
            report.errors.append(f"{table.name}: table has more than {table.max_rows} rows; walk stopped")
            report.unread.add(table.measurement)
        else:
            found.append((table, {c: walked[c] for c in cols}, _row_times(times, timed)))
    return found


@dataclass
class _Context:
    previous: CounterState | None
    state: CounterState
    read_at: float
    rebooted: bool
    min_interval: float = 0.0


def _table_samples(
    table: Table, walked: dict, times: dict, device_key: str, ctx: _Context, report: MetricReport
) -> None:
    own = set(_row_columns(table))
    rows = sorted({index for column, values in walked.items() if column in own for index in values})
    ctx.state.rows[table.name] = len(rows)
    if not rows:
        report.missing.append(f"{table.name}: no rows")
        return
    last = max(times.values(), default=ctx.read_at)
    lookups = {
        t.name: _lookup(walked.get(t.lookup_column, {}), t.lookup_part, t.lookup_parts)
        for t in table.tags
        if t.lookup_column
    }
    checked: list[tuple[dict, dict]] = []  # (every field of a row, its sample's fields) for unit checks
    found: list[Sample] = []
    for index in rows:
        tags = _row_tags(table, walked, index, lookups)
        if tags is None or (table.skip is not None and table.skip.search(next(iter(tags.values()), ""))):
            continue
        ctx.read_at = times.get(index, last)  # this row's counters were read when its answer came
        key = f"{table.measurement}|{'|'.join(f'{k}={v}' for k, v in sorted(tags.items()))}|"
        fields: dict[str, float] = {}
        for metric in table.metrics:
            _evaluate(metric, [walked[o].get(index) for o in metric.oids], key, fields, ctx, report, tags)
        _ratios(table.metrics, fields, ctx)
        if table.only is not None and fields.get(table.only[0]) not in table.only[1]:
            continue  # not one of the table's rows (a replica still being sent)
        emitted = {k: v for k, v in fields.items() if _emitted(table.metrics, k)}
        if emitted:
            sample_tags = {"device": device_key, **table.static_tags, **tags}
            found.append(Sample(table.measurement, sample_tags, emitted, ctx.read_at))
        checked.append((fields, emitted))
    report.samples.extend(_collapsed(table, found))
    _check_units(table.name, table.metrics, checked, device_key, ctx, report)


def _collapsed(table: Table, samples: list[Sample]) -> list[Sample]:
    """The table's samples, those with one set of tags made one where the table says which to keep (a volume's newest
    replica at a site: the least age); a row without the field is kept only where no other has it."""
    if table.collapse is None:
        return samples
    field, keep = table.collapse
    best: dict[tuple, Sample] = {}
    for sample in samples:
        key = tuple(sorted(sample.tags.items()))
        held = best.get(key)
        value, other = sample.fields.get(field), held.fields.get(field) if held else None
        if held is None or (
            value is not None and (other is None or (value < other if keep == "min" else value > other))
        ):
            best[key] = sample
    return list(best.values())


def _check_units(
    where: str, metrics: tuple[Metric, ...], rows: list[tuple[dict, dict]], device_key: str, ctx, report
) -> None:
    """Ratios with a unit check: pick the unit the device's average gauges agree with (collectors/latencyunit.py),
    apply it to every row, keep it for polls without evidence, and write the evidence (measurement latency_check)."""
    for metric in metrics:
        if not metric.unit_gauge:
            continue
        key = f"{where}.{metric.name}"
        kept = ctx.previous.units.get(key, "") if ctx.previous is not None else ""
        default = next((n for n, scale in metric.unit_scales if scale == metric.scale), metric.unit_scales[0][0])
        raws = [(fields, emitted, fields.get(UNIT_RAW + metric.name)) for fields, emitted in rows]
        raws = [(fields, emitted, raw) for fields, emitted, raw in raws if raw is not None]
        if not raws:
            if kept:
                ctx.state.units[key] = kept
            continue
        pairs = [(raw, f[metric.unit_gauge]) for f, _, raw in raws if f.get(metric.unit_gauge) is not None]
        decision = decide(pairs, metric.unit_scales, kept, default)
        ctx.state.units[key] = decision.unit
        for _, emitted, raw in raws:
            if metric.name in emitted:
                emitted[metric.name] = raw * decision.scale
        evidence: dict[str, float | int] = {
            "scale": decision.scale,
            "decided": int(decision.decided),
            "rows_checked": decision.rows_checked,
            "rows_agreeing": decision.rows_agreeing,
        }
        if decision.sum_per_op is not None and decision.gauge_ms is not None:
            evidence |= {"sum_per_op": float(decision.sum_per_op), "gauge_ms": float(decision.gauge_ms)}
        tags = {"device": device_key, "table": where, "metric": metric.name}
        report.samples.append(Sample("latency_check", tags, evidence, ctx.read_at))


def _lookup(column: dict, part: int, parts: int = 1) -> dict[tuple[int, ...], str]:
    """{the `parts` numbers from `part` of a row's index: that row's text} of a lookup's column."""
    found = {}
    for index, value in column.items():
        text = value.printable()
        if part + parts <= len(index) and text:
            found[tuple(index[part : part + parts])] = text
    return found


def _number(tag, walked: dict, index: tuple[int, ...]) -> tuple[int, ...] | None:
    """The numbers a lookup tag points with: its column's value in the row, else its parts of the row's index."""
    if not tag.column:
        at, parts = tag.index_part, tag.lookup_parts
        return tuple(index[at : at + parts]) if at is not None and at + parts <= len(index) else None
    value = walked[tag.column].get(index)
    return (int(value.value),) if value is not None and value.kind in NUMERIC else None


def _row_tags(table: Table, walked: dict, index: tuple[int, ...], lookups: dict) -> dict[str, str] | None:
    tags = {}
    for tag in table.tags:
        if tag.lookup_column:  # a number pointing into another table: its text there, else the number itself
            number = _number(tag, walked, index)
            if number is None:
                continue  # no such column on this device (or no number in it): no tag rather than a wrong one
            text = lookups[tag.name].get(number)
            if text or not tag.into:  # an owner without a name is left out of its part's, not put there as numbers
                tags[tag.name] = tag_value(text or ".".join(map(str, number)))
            continue
        if tag.column:
            value = walked[tag.column].get(index)
            text = value.printable() if value is not None else ""
            if not text and value is not None and value.kind in NUMERIC:
                text = str(value.value)
        else:
            text = str(index[tag.index_part]) if tag.index_part is not None and tag.index_part < len(index) else ""
        if tag.parse is not None:  # a row of another kind (a volume beside its .snapshot area) is not this table's
            found = tag.parse.search(text)
            if found is None or not found.group(1):
                return None
            text = found.group(1)
        if not text and tag.into:
            continue  # an owner without a name adds nothing to its part's
        if not text:
            text = ".".join(map(str, index))
        tags[tag.name] = tag_value(text)
    owners: dict[str, list[str]] = {}
    for tag in table.tags:  # an owner's name put before its part's, in the order listed: one tag, unique across owners
        if tag.into and tag.name in tags:
            owners.setdefault(tag.into, []).append(tags.pop(tag.name))
    for name, before in owners.items():
        if name in tags:
            tags[name] = tag_value(" ".join([*before, tags[name]]))
    return tags


def _evaluate(
    metric: Metric,
    values: list[SnmpValue | None],
    key: str,
    fields: dict[str, float],
    ctx: _Context,
    report: MetricReport,
    tags: dict[str, str],
) -> None:
    if metric.type in DERIVED:
        return
    present = [v for v in values if v is not None and not v.missing]
    if not present:
        report.missing.append(metric.name)
        return
    problems = []
    for value in present:  # the first OID whose value reads as a number wins
        try:
            number = parse_number(value, metric)
        except ValueProblem as exc:
            problems.append(str(exc))
            continue
        if metric.type in ("counter", "count"):
            _counter(metric, value, number, key + metric.name, fields, ctx, report.gaps)
        elif metric.type == "age":  # a Unix time the device serves, as how long ago it was; 0 is no time at all
            stamp = number * metric.scale + metric.offset
            if stamp > 0:
                fields[metric.name] = max(0.0, ctx.read_at - stamp)  # a device clock ahead is not the future
        else:
            fields[metric.name] = number * metric.scale + metric.offset
        if metric.name in fields:
            report.values.append((metric.name, tags, fields[metric.name], metric.unit))
        return
    report.errors.append(f"{metric.name}: {problems[0]}")


WIDTHS = {"counter32": 32, "counter64": 64}  # what a counter's SNMP type says of where it wraps
DELTA = "_delta_"  # a counter's unscaled delta over an interval with an honest rate, for ratios of deltas


def _counter(
    metric: Metric, value: SnmpValue, number: float, key: str, fields: dict[str, float], ctx: _Context, gaps
) -> None:
    """A counter's rate, scaled once; read too soon after the kept reading, no rate (nor ratio) and it is kept.
    Only a Counter32 or Counter64 wraps: a number served as a string, a Gauge or an Integer has no known width, and
    going back it was reset. A ratio takes a counter's delta only where its rate is honest (gaps: why not)."""
    raw = int(value.value) if value.kind in NUMERIC else int(number)
    reading = Reading(raw, WIDTHS.get(value.kind, UNKNOWN_WIDTH), ctx.read_at)
    before = ctx.previous.reading(key) if ctx.previous else None
    rate = counter_rate(before, reading, rebooted=ctx.rebooted, min_interval=ctx.min_interval)
    if rate is TOO_SOON:
        ctx.state.counters[key] = before
        gaps[key] = rate.reason
        return
    ctx.state.counters[key] = reading
    if rate.per_second is None:
        gaps[key] = rate.reason
        return
    delta = raw - before.value + (WRAP_32 if rate.reason == WRAPPED else 0)
    fields[DELTA + metric.name] = delta  # for ratios
    # a count: what happened in the interval (a latency histogram's bucket), summed exactly by any range or rollup
    fields[metric.name] = (delta * metric.scale) if metric.type == "count" else rate.per_second * metric.scale


UNIT_RAW = "_unitraw_"  # a unit-checked ratio's unscaled Δsum/Δops, until the rows have decided its unit


def _ratios(metrics: tuple[Metric, ...], fields: dict[str, float], ctx: _Context) -> None:
    """Per-interval averages such as latency per operation: delta(numerator) / delta(denominator); then sums,
    differences, products and quotients of the metrics worked out so far, in declaration order."""
    for metric in metrics:
        if metric.type in ("difference", "product", "quotient"):
            a, b = fields.get(metric.numerator), fields.get(metric.denominator)
            if a is None or b is None:
                continue
            if metric.type == "quotient":
                if a >= 0 and b > 0:  # of amounts: a negative one is garbage from the device, not a share
                    fields[metric.name] = a / b * metric.scale
            else:
                fields[metric.name] = (a - b if metric.type == "difference" else a * b) * metric.scale
            continue
        if metric.type == "sum":
            terms = [fields.get(part) for part in metric.parts]
            if all(t is not None and t >= 0 for t in terms):  # a sum of amounts, none negative
                fields[metric.name] = sum(terms) * metric.scale  # type: ignore[arg-type]
            continue
        if metric.type != "ratio" or ctx.rebooted:
            continue
        numerator, denominator = fields.get(DELTA + metric.numerator), fields.get(DELTA + metric.denominator)
        if numerator is not None and denominator:
            fields[metric.name] = numerator / denominator * metric.scale
            if metric.unit_gauge:
                fields[UNIT_RAW + metric.name] = numerator / denominator
    for name in [k for k in fields if k.startswith(DELTA)]:
        fields.pop(name)


def _emitted(metrics: tuple[Metric, ...], name: str) -> bool:
    return any(m.name == name and m.emit for m in metrics)
