"""Flux for many graphs at once: one predicate over their series, one chain per statistic. Each chain reads
storage itself (`from |> range |> filter |> aggregate`), so InfluxDB pushes the aggregate down; chains sharing
one `data = from(...)` variable are not pushed down (measured 40x slower). Values travel as parameters."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from monitor.graphtemplates import GraphTemplate


@dataclass(frozen=True)
class Member:
    """One series set a graph reads: a device, the instance (port, volume... or "" for device-wide), its interval."""

    device: str
    instance: str
    interval_s: int


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
    template: GraphTemplate, member: Member, fields: Iterable[str], bind: Params, value_at_least: str = ""
) -> str:
    """`r` matches one member's series of these fields (tag names come from code; values are parameters)."""
    terms = [f"r._measurement == {bind(template.measurement)}", f"r.device == {bind(member.device)}"]
    if template.instance_tag:
        terms.append(f"r.{template.instance_tag} == {bind(member.instance)}")
    terms += [f"r.{tag} == {bind(value)}" for tag, value in sorted(template.filters.items())]
    terms.append("(" + " or ".join(f"r._field == {bind(name)}" for name in fields) + ")")
    if value_at_least:
        terms.append(f"r._value >= {value_at_least}")
    return "(" + " and ".join(terms) + ")"


def keep_columns(plots: Iterable[Plot], timed: bool = True) -> str:
    """The columns a result needs: time and value, field, measurement, device and the plots' identifying tags."""
    names = ["_time", "_value"] if timed else ["_value"]
    names += ["_field", "_measurement", "device"]
    for plot in plots:
        tags = ([plot.template.instance_tag] if plot.template.instance_tag else []) + sorted(plot.template.filters)
        names += [tag for tag in tags if tag not in names]
    return "[" + ", ".join(f'"{name}"' for name in names) + "]"


def chain(bucket: str, predicate: str, tail: str, keep: str, name: str) -> str:
    """One storage read: bucket, the window `p_start`..`p_stop`, the predicate, then `tail`, yielded as `name`."""
    return (
        f"from(bucket: {bucket}) |> range(start: p_start, stop: p_stop)\n"
        f"  |> filter(fn: (r) => {predicate})\n"
        f'  {tail} |> keep(columns: {keep}) |> yield(name: "{name}")\n'
    )


def window(fn: str) -> str:
    return f'|> aggregateWindow(every: p_every, fn: {fn}, createEmpty: false, timeSrc: "_start")'


# Σ value x its own interval: the time since the previous sample, or one poll interval after a gap longer than
# two (elapsed() drops each series' first sample; that one is added as first() x one interval).
TOTAL_TAIL = (
    "|> elapsed(unit: 1ms) |> map(fn: (r) => ({r with _value: float(v: r._value) * "
    "(if float(v: r.elapsed) > 2000.0 * p_interval then p_interval else float(v: r.elapsed) / 1000.0)})) |> sum()"
)
