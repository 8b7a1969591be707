"""Device profiles as YAML data: what to read (scalars, table columns), how to turn it into metrics, which graphs.

Profiles are loaded and validated once by the pydantic schema in collectors/profileschema.py (a Django system check
reports every problem with its file and field); polls only use the resulting, already-checked objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from collectors.profileschema import (
    DERIVED,
    IF_COUNTER_GROUPS,
    MEASUREMENTS,
    METRIC_TYPES,
    MORE,
    MetricFile,
    ProfileFile,
    TableFile,
    describe,
)

BUILTIN_DIR = Path(__file__).resolve().parent / "profiles"
# libyaml's safe loader where PyYAML was built with it (the same documents 7 times as fast: the built-in profiles in
# 11 ms instead of 75 ms, which every web worker's first device page paid), else PyYAML's own.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
__all__ = ["DERIVED", "IF_COUNTER_GROUPS", "MEASUREMENTS", "METRIC_TYPES", "ProfileError", "load_profiles"]


class ProfileError(ValueError):
    """A profile file is wrong; the message names the file and the field."""


@dataclass(frozen=True)
class Metric:
    """One value to read: an OID (scalar) or a column (table), and how to turn it into a number."""

    name: str
    oids: tuple[str, ...] = ()
    type: str = "gauge"
    unit: str = ""
    scale: float = 1.0
    offset: float = 0.0
    parse: re.Pattern | None = None
    pick: int = 0
    numerator: str = ""
    denominator: str = ""
    parts: tuple[str, ...] = ()  # a sum's terms
    emit: bool = True
    unit_gauge: str = ""  # a ratio whose unit the device's own average gauge decides (collectors/latencyunit.py)
    unit_scales: tuple[tuple[str, float], ...] = ()  # (unit name, scale to the metric's unit)
    states: tuple[tuple[int | None, str, str], ...] = ()  # (code, state, the vendor's word); None: codes above
    progress: str = ""  # the metric beside it holding the status's percent done (a rebuild)
    active: str = ""  # the TruthValue beside it: while not true(1) the status is over (a cleared alert): ok
    word_events: bool = False  # a change of its word within a state is an event (a failover: primary -> secondary)

    def state_of(self, value: float | None) -> tuple[str, str] | None:
        """(state, the vendor's word) of a status code by the profile's state map; a code above those named where
        the map has `more` (a count) is that state, its word after the number ("2 failed"); any other code the map
        does not name is a warning named by its number, never ok; None without a map or a value."""
        if not self.states or value is None or value != value:
            return None
        code = int(value) if float(value).is_integer() else None
        for known, state, word in self.states:
            if known == code and code is not None:
                return state, word
        (more, state, word), top = self.states[-1], self.states[-2][0] if len(self.states) > 1 else None
        if more is None and code is not None and top is not None and code > top:  # `more` is last, after the codes
            return state, f"{code} {word}"
        return "warning", f"unknown ({value:g})"


@dataclass(frozen=True)
class Tag:
    """A tag of a table row: from a column's text, from the row index, or (`lookup_column`) the text that another
    table's column holds in the row whose index, at `lookup_part`, is this column's number (or this row's index
    part `index_part`, where the tag has no column)."""

    name: str
    column: str = ""
    index_part: int | None = None
    lookup_column: str = ""
    lookup_part: int = 0
    lookup_parts: int = 1  # how many index parts, from lookup_part there and index_part here, are matched
    parse: re.Pattern | None = None  # the tag is its one group; a row whose text does not match is left out
    into: str = ""  # the tag whose text this one's is put before ("eql-member-2" + "Disk 0"); not a tag of its own

    @property
    def attribute(self) -> bool:
        """Looked up from a column's number (a volume's pool): says something of the row, does not name it, and may
        be missing where that column is."""
        return bool(self.lookup_column and self.column)


@dataclass(frozen=True)
class Table:
    """A table walked column by column; one sample per row in `measurement`."""

    name: str
    measurement: str
    metrics: tuple[Metric, ...]
    tags: tuple[Tag, ...]
    static_tags: dict[str, str] = field(default_factory=dict)
    skip: re.Pattern | None = None  # rows whose first tag matches are ignored (ram0, loop1...)
    max_rows: int = 2000
    only: tuple[str, tuple[int, ...]] | None = None  # (metric, values): rows whose metric holds another are left out
    collapse: tuple[str, str] | None = None  # (field, "min" or "max"): of the rows with one set of tags, that one


@dataclass(frozen=True)
class Match:
    sys_object_id: tuple[str, ...] = ()
    sys_descr: tuple[re.Pattern, ...] = ()
    oid_present: tuple[str, ...] = ()


@dataclass(frozen=True)
class GraphOffer:
    template: str
    per: str = ""  # "" for one graph per device, or a table name for one graph per row


@dataclass(frozen=True)
class Profile:
    name: str
    path: str
    description: str = ""
    abstract: bool = False
    priority: int = 0
    match: Match = field(default_factory=Match)
    interfaces: bool = True
    interface_counters: tuple[str, ...] = IF_COUNTER_GROUPS
    skip_ports: re.Pattern | None = None
    scalars: tuple[Metric, ...] = ()
    scalar_measurement: str = "system"
    tables: tuple[Table, ...] = ()
    graphs: tuple[GraphOffer, ...] = ()

    def declared_oids(self) -> list[str]:
        """Every OID and column the profile reads (for conformance checks and the probe)."""
        oids = [oid for m in self.scalars for oid in m.oids]
        oids += [oid for t in self.tables for m in t.metrics for oid in m.oids]
        return oids


def load_profiles(directories: list[Path]) -> dict[str, Profile]:
    """Load every *.yaml in the directories (later ones override by name). Raises ProfileError on the first problem."""
    profiles, errors = load_profiles_collecting(directories)
    if errors:
        raise ProfileError(errors[0])
    return profiles


def load_profiles_collecting(directories: list[Path]) -> tuple[dict[str, Profile], list[str]]:
    """Load profiles, collecting every error instead of stopping at the first (for the system check)."""
    raw: dict[str, tuple[Path, dict]] = {}
    errors: list[str] = []
    for directory in directories:
        if not directory.is_dir():
            errors.append(f"{directory}: profile directory does not exist")
            continue
        for path in sorted(directory.glob("*.yaml")):
            try:
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506 -- a safe loader
            except (OSError, yaml.YAMLError) as exc:
                errors.append(f"{path}: not valid YAML: {_one_line(exc)}")
                continue
            if not isinstance(data, dict) or not isinstance(data.get("name"), str):
                errors.append(f"{path}: a profile must be a mapping with a `name`")
                continue
            raw[data["name"]] = (path, data)
    profiles: dict[str, Profile] = {}
    for name, (path, _) in raw.items():
        try:
            merged = _resolve_extends(name, raw, [])
            profiles[name] = _build(name, path, merged)
        except ProfileError as exc:
            errors.append(f"{path}: {exc}")
    return profiles, errors


def _resolve_extends(name: str, raw: dict[str, tuple[Path, dict]], chain: list[str]) -> dict:
    if name in chain:
        raise ProfileError(f"extends: circular ({' -> '.join([*chain, name])})")
    if name not in raw:
        raise ProfileError(f"extends: no profile named {name!r}")
    data = dict(raw[name][1])
    merged: dict = {}
    for parent in _list(data.get("extends", []), "extends"):
        base = _resolve_extends(parent, raw, [*chain, name])
        for key in ("metrics", "tables", "graphs"):
            merged[key] = [*merged.get(key, []), *base.get(key, [])]
        if isinstance(base.get("state_maps"), dict):  # a child's maps add to its parents' (and may replace one)
            merged["state_maps"] = {**merged.get("state_maps", {}), **base["state_maps"]}
        for key, value in base.items():
            if key not in ("metrics", "tables", "graphs", "name", "match", "extends", "abstract", "state_maps"):
                merged.setdefault(key, value)
    for key, value in data.items():
        if key in ("metrics", "tables", "graphs"):
            merged[key] = [*merged.get(key, []), *(value or [])]
        elif key == "state_maps" and isinstance(value, dict):
            merged[key] = {**merged.get(key, {}), **value}
        else:
            merged[key] = value
    return merged


def _build(name: str, path: Path, data: dict) -> Profile:
    """The merged profile validated by the schema (collectors/profileschema.py), then the poller's dataclasses."""
    try:
        checked = ProfileFile.model_validate(data)
    except ValidationError as exc:
        raise ProfileError("; ".join(describe(exc))) from None
    maps = checked.state_maps
    scalars = tuple(_metric(m, f"metrics[{i}]", scalar=True, maps=maps) for i, m in enumerate(checked.metrics))
    _check_unique([m.name for m in scalars], "metrics")
    _check_parts(scalars, "metrics")
    tables = tuple(_table(t, f"tables[{i}]", maps) for i, t in enumerate(checked.tables))
    _check_unique([t.name for t in tables], "tables")
    _check_statuses_told_apart(tables)
    names = {t.name for t in tables}
    for i, offer in enumerate(checked.graphs):
        if offer.per and offer.per not in names:
            raise ProfileError(f"graphs[{i}].per: {offer.per!r} is not a table of this profile")
    return Profile(
        name=name,
        path=str(path),
        description=checked.description,
        priority=checked.priority,
        abstract=checked.abstract,
        match=Match(
            tuple(checked.match.sys_object_id),
            tuple(re.compile(p) for p in checked.match.sys_descr),
            tuple(checked.match.oid_present),
        ),
        interfaces=checked.interfaces.enabled,
        interface_counters=tuple(checked.interfaces.counters),
        skip_ports=re.compile(checked.interfaces.skip_ports) if checked.interfaces.skip_ports else None,
        scalars=scalars,
        scalar_measurement=checked.metrics_measurement,
        tables=tables,
        graphs=tuple(GraphOffer(g.template, g.per) for g in checked.graphs),
    )


def _metric(data: MetricFile, where: str, scalar: bool, maps: dict | None = None) -> Metric:
    oids = data.addresses(scalar)
    if data.type not in DERIVED and not oids:
        raise ProfileError(f"{where}.{'oid' if scalar else 'column'}: missing")
    check = data.unit_check
    return Metric(
        name=data.name,
        oids=tuple(oids),
        type=data.type,
        unit=data.unit,
        scale=float(data.scale),
        offset=float(data.offset),
        parse=re.compile(data.parse) if data.parse else None,
        pick=data.pick,
        numerator=data.numerator or "",
        denominator=data.denominator or "",
        parts=tuple(data.parts),
        emit=data.emit,
        unit_gauge=check.gauge if check else "",
        unit_scales=tuple(check.units.items()) if check else (),
        states=_states((maps or {}).get(data.states or "", {})),
        progress=data.progress or "",
        active=data.active or "",
        word_events=data.word_events,
    )


def _states(named: dict) -> tuple[tuple[int | None, str, str], ...]:
    """A state map as (code, state, word) in code order, `more` last as code None."""
    codes = tuple((code, *meaning) for code, meaning in sorted((c, m) for c, m in named.items() if c != MORE))
    return codes + (((None, *named[MORE]),) if MORE in named else ())


def _check_statuses_told_apart(tables: tuple[Table, ...]) -> None:
    """Two tables whose rows look alike (one measurement, the same static tags and tag names) may not both map a
    status of the same name: a row of one could not be told from a row of the other, nor read by the right map."""
    seen: list[tuple[Table, set, set, str]] = []  # (table, its static tags, its tag names, a status it maps)
    for table in tables:
        static, names = set(table.static_tags.items()), {t.name for t in table.tags if not t.into}
        for metric in (m for m in table.metrics if m.states):
            for other, o_static, o_names, o_metric in seen:
                if other.measurement != table.measurement or o_metric != metric.name:
                    continue
                if (o_static <= static and o_names <= names) or (static <= o_static and names <= o_names):
                    raise ProfileError(
                        f"tables.{table.name}.{metric.name}: its rows look like those of table {other.name!r} (one "
                        "measurement, the tags of one within the other's); give each a `static_tags` value that "
                        "tells them apart"
                    )
            seen.append((table, static, names, metric.name))


def _check_into(tags: tuple[Tag, ...], where: str) -> None:
    """An `into` names another tag of the table, one that is a tag of its own (not itself put into a third)."""
    own = {t.name for t in tags if not t.into}
    for i, tag in enumerate(tags):
        if tag.into and (tag.into not in own or tag.into == tag.name):
            raise ProfileError(f"{where}[{i}].into: {tag.into!r} is not another tag of this table")


def _table(data: TableFile, where: str, maps: dict | None = None) -> Table:
    metrics = tuple(_metric(m, f"{where}.metrics[{i}]", scalar=False, maps=maps) for i, m in enumerate(data.metrics))
    _check_unique([m.name for m in metrics], f"{where}.metrics")
    _check_parts(metrics, f"{where}.metrics")
    kinds = {m.name: m.type for m in metrics}
    if data.only and kinds.get(data.only.metric) != "gauge":
        raise ProfileError(f"{where}.only.metric: {data.only.metric!r} is not a gauge of this table")
    if data.collapse and data.collapse.field not in kinds:
        raise ProfileError(f"{where}.collapse.field: {data.collapse.field!r} is not a metric of this table")
    tags = tuple(
        Tag(
            t.name,
            t.column or "",
            t.index,
            t.lookup.column if t.lookup else "",
            t.lookup.index if t.lookup else 0,
            t.lookup.parts if t.lookup else 1,
            re.compile(t.parse) if t.parse else None,
            t.into or "",
        )
        for t in data.tags
    )
    _check_into(tags, f"{where}.tags")
    return Table(
        name=data.name,
        measurement=data.measurement,
        metrics=metrics,
        tags=tags,
        static_tags=dict(data.static_tags),
        skip=re.compile(data.skip) if data.skip else None,
        max_rows=data.max_rows,
        only=(data.only.metric, tuple(data.only.values)) if data.only else None,
        collapse=(data.collapse.field, data.collapse.keep) if data.collapse else None,
    )


def _list(value: object, where: str) -> list:
    if isinstance(value, (str, int)):
        return [value]
    if not isinstance(value, list):
        raise ProfileError(f"{where}: must be a list")
    return value


def _check_parts(metrics: tuple[Metric, ...], where: str) -> None:
    """A derived metric's parts must be metrics declared beside it (ratios need counters; sums and quotients
    are worked out in order, so a derived part must come before them)."""
    by_name = {m.name: m for m in metrics}
    order = {m.name: i for i, m in enumerate(metrics)}
    for m in metrics:
        if m.unit_gauge and m.unit_gauge not in by_name:
            raise ProfileError(f"{where}.{m.name}.unit_check.gauge: {m.unit_gauge!r} is not declared beside it")
        for beside in ("progress", "active"):
            name = getattr(m, beside)
            if name and (name not in by_name or by_name[name].type != "gauge"):
                raise ProfileError(f"{where}.{m.name}.{beside}: {name!r} is not a gauge declared beside it")
        if m.type not in DERIVED:
            continue
        for part in m.parts or (m.numerator, m.denominator):
            if part not in by_name:
                raise ProfileError(f"{where}.{m.name}: {part!r} is not declared beside it")
            if m.type == "ratio" and by_name[part].type != "counter":
                raise ProfileError(
                    f"{where}.{m.name}: a ratio divides counter deltas; {part!r} is a {by_name[part].type}"
                )
            if by_name[part].type in DERIVED and order[part] > order[m.name]:
                raise ProfileError(f"{where}.{m.name}: {part!r} is derived too and must be declared before it")


def _check_unique(names: list[str], where: str) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise ProfileError(f"{where}: {name!r} is declared twice")
        seen.add(name)


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
