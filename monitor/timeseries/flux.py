"""Flux for many graphs at once: one predicate over their series, one chain per statistic. Each chain reads
storage itself (`from |> range |> filter |> aggregate`), so InfluxDB pushes the aggregate down; chains sharing
one `data = from(...)` variable are not pushed down (measured 40x slower). Values travel as parameters."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from monitor.timeseries.templates import GraphTemplate


@dataclass(frozen=True)
class Member:
    """One series set a graph reads: a device, the instance (port, volume... or "" for device-wide), its interval,
    and the interval pages count its windows as written by (0: its interval; cache.counted_interval_s)."""

    device: str
    instance: str
    interval_s: int
    counted_s: int = 0

    @property
    def counts_by_s(self) -> int:
        return self.counted_s or self.interval_s


@dataclass(frozen=True)
class Plot:
    """What one chart draws: a template and its member (a graph), or several members summed (an aggregate)."""

    key: str
    template: GraphTemplate
    members: tuple[Member, ...]
    scale: float = 1.0

    @property
    def summed(self) -> bool:
        return len(self.members) > 1


@dataclass
class Params:
    """Parameter names for values, each value bound once (`params=` of influxdb-client)."""

    values: dict[str, object] = field(default_factory=dict)
    _names: dict[tuple[type, object], str] = field(default_factory=dict)

    def __call__(self, value: object) -> str:
        key = (type(value), value)
        name = self._names.get(key)
        if name is None:
            name = self._names[key] = f"p{len(self._names)}"
            self.values[name] = value
        return name


def series_predicate(
    template: GraphTemplate,
    member: Member,
    fields: Iterable[str],
    bind: Params,
    value_at_least: str = "",
    every_instance: bool = False,
    strictly: bool = False,
    instances: Iterable[str] = (),
) -> str:
    """`r` matches one member's series of these fields (tag names come from code; values are parameters);
    `instances`: of these ports (volumes...) of the device instead; `every_instance`: of every one."""
    terms = [f"r._measurement == {bind(template.measurement)}", f"r.device == {bind(member.device)}"]
    if template.instance_tag and not every_instance:
        tag = template.instance_tag
        terms.append(any_of([f"r.{tag} == {bind(name)}" for name in (instances or [member.instance])]))
    terms += [f"r.{tag} == {bind(value)}" for tag, value in sorted(template.filters.items())]
    terms.append(any_of([f"r._field == {bind(name)}" for name in fields]))
    if value_at_least:
        terms.append(f"r._value {'>' if strictly else '>='} {value_at_least}")
    return "(" + " and ".join(terms) + ")"


def keep_columns(plots: Iterable[Plot], timed: bool = True) -> str:
    """The columns a result needs: time and value, field, the plots' identifying tags, and measurement and device
    only where the plots span more than one (monitor.timeseries.lookup fills in the only one): every row carries
    its table's group, and on a device page those two were a third of what InfluxDB wrote (docs/performance.md)."""
    plots = list(plots)
    names = ["_time", "_value"] if timed else ["_value"]
    names.append("_field")
    if len({plot.template.measurement for plot in plots}) > 1:
        names.append("_measurement")
    if len({member.device for plot in plots for member in plot.members}) > 1:
        names.append("device")
    for plot in plots:
        tags = ([plot.template.instance_tag] if plot.template.instance_tag else []) + sorted(plot.template.filters)
        names += [tag for tag in tags if tag not in names]
    return "[" + ", ".join(f'"{name}"' for name in names) + "]"


def chain(bucket: str, predicate: str, tail: str, keep: str, name: str, window: str = "p") -> str:
    """One storage read: bucket, the window `p_start`..`p_stop` (another prefix: another window), the predicate,
    then `tail`, yielded as `name`."""
    return (
        f"from(bucket: {bucket}) |> range(start: {window}_start, stop: {window}_stop)\n"
        f"  |> filter(fn: (r) => {predicate})\n"
        f'  {tail} |> keep(columns: {keep}) |> yield(name: "{name}")\n'
    )


def window(fn: str) -> str:
    """One row per window of `p_every`, empty ones included, so times follow from the row's place (no time
    column to format and parse: a third less for InfluxDB to write and for Python to read)."""
    return f'|> aggregateWindow(every: p_every, fn: {fn}, createEmpty: true, timeSrc: "_start")'


def grid(start_ms: int, stop_ms: int, every_ms: int) -> list[int]:
    """The times of `window` rows: the range's start, then each window's start up to the range's end."""
    first = start_ms - start_ms % every_ms
    return [start_ms, *range(first + every_ms, stop_ms, every_ms)]


def any_of(terms: list[str]) -> str:
    """`a or b or ...` as a balanced tree: a chain of hundreds of `or` is deeper than Flux accepts."""
    if len(terms) == 1:
        return terms[0]
    middle = len(terms) // 2
    return f"({any_of(terms[:middle])} or {any_of(terms[middle:])})"
