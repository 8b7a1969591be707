"""Device profiles as YAML data: what to read (scalars, table columns), how to turn it into metrics, which graphs.

Profiles are loaded and validated once (a Django system check reports every problem with its file and
field); polls only use the resulting, already-checked objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

BUILTIN_DIR = Path(__file__).resolve().parent / "profiles"
METRIC_TYPES = ("gauge", "counter", "ratio", "difference", "product")
DERIVED = ("ratio", "difference", "product")
MEASUREMENTS = ("system", "sensor", "volume", "disk_io", "storage", "member", "pool", "raid", "disk", "processor")
IF_COUNTER_GROUPS = ("errors", "discards", "unicast", "broadcast")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_OID = re.compile(r"^\.?\d+(\.\d+)+$")


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
    emit: bool = True


@dataclass(frozen=True)
class Tag:
    """A tag that identifies a table row: from a column's text, or from the row index."""

    name: str
    column: str = ""
    index_part: int | None = None


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
                data = yaml.safe_load(path.read_text(encoding="utf-8"))
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
        for key, value in base.items():
            if key not in ("metrics", "tables", "graphs", "name", "match", "extends", "abstract"):
                merged.setdefault(key, value)
    for key, value in data.items():
        if key in ("metrics", "tables", "graphs"):
            merged[key] = [*merged.get(key, []), *(value or [])]
        else:
            merged[key] = value
    return merged


def _build(name: str, path: Path, data: dict) -> Profile:
    known = {
        "name",
        "description",
        "extends",
        "abstract",
        "match",
        "interfaces",
        "metrics",
        "tables",
        "graphs",
        "metrics_measurement",
        "priority",
    }
    for key in data:
        if key not in known:
            raise ProfileError(f"unknown field {key!r} (expected one of {', '.join(sorted(known))})")
    interfaces = data.get("interfaces", {}) or {}
    if interfaces is False:
        interfaces = {"enabled": False}
    if not isinstance(interfaces, dict):
        raise ProfileError("interfaces: must be a mapping or false")
    counters = tuple(_list(interfaces.get("counters", list(IF_COUNTER_GROUPS)), "interfaces.counters"))
    for group in counters:
        if group not in IF_COUNTER_GROUPS:
            raise ProfileError(f"interfaces.counters: {group!r} is not one of {', '.join(IF_COUNTER_GROUPS)}")
    measurement = data.get("metrics_measurement", "system")
    _check_measurement(measurement, "metrics_measurement")
    scalars = tuple(_metric(m, f"metrics[{i}]", scalar=True) for i, m in enumerate(data.get("metrics", []) or []))
    _check_unique([m.name for m in scalars], "metrics")
    _check_parts(scalars, "metrics")
    tables = tuple(_table(t, f"tables[{i}]") for i, t in enumerate(data.get("tables", []) or []))
    _check_unique([t.name for t in tables], "tables")
    graphs = tuple(_graph(g, f"graphs[{i}]", {t.name for t in tables}) for i, g in enumerate(data.get("graphs") or []))
    return Profile(
        name=name,
        path=str(path),
        description=str(data.get("description", "")),
        priority=_int(data, "priority"),
        abstract=bool(data.get("abstract", False)),
        match=_match(data.get("match", {}) or {}),
        interfaces=bool(interfaces.get("enabled", True)),
        interface_counters=counters,
        skip_ports=_regex(interfaces.get("skip_ports"), "interfaces.skip_ports"),
        scalars=scalars,
        scalar_measurement=measurement,
        tables=tables,
        graphs=graphs,
    )


def _metric(data: object, where: str, scalar: bool, columns: set[str] | None = None) -> Metric:
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: must be a mapping")
    allowed = {
        "name",
        "oid",
        "oids",
        "column",
        "columns",
        "type",
        "unit",
        "scale",
        "offset",
        "parse",
        "pick",
        "numerator",
        "denominator",
        "emit",
    }
    for key in data:
        if key not in allowed:
            raise ProfileError(f"{where}.{key}: unknown field")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProfileError(f"{where}.name: must be snake_case (got {name!r})")
    kind = data.get("type", "gauge")
    if kind not in METRIC_TYPES:
        raise ProfileError(f"{where}.type: {kind!r} is not one of {', '.join(METRIC_TYPES)}")
    key_one, key_many = ("oid", "oids") if scalar else ("column", "columns")
    oids = [data[key_one]] if key_one in data else list(_list(data.get(key_many, []), f"{where}.{key_many}"))
    if kind in DERIVED:
        for part in ("numerator", "denominator"):
            if not isinstance(data.get(part), str):
                raise ProfileError(f"{where}.{part}: a {kind} needs the name of another metric here")
    elif not oids:
        raise ProfileError(f"{where}.{key_one}: missing")
    for oid in oids:
        if not isinstance(oid, str) or not _OID.match(oid):
            raise ProfileError(f"{where}.{key_one}: {oid!r} is not a numeric OID")
    scale = data.get("scale", 1)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or scale == 0:
        raise ProfileError(f"{where}.scale: must be a non-zero number")
    offset = data.get("offset", 0)
    if isinstance(offset, bool) or not isinstance(offset, (int, float)):
        raise ProfileError(f"{where}.offset: must be a number")
    pick = data.get("pick", 0)
    if isinstance(pick, bool) or not isinstance(pick, int) or pick < 0:
        raise ProfileError(f"{where}.pick: must be an integer >= 0")
    parse = _regex(data.get("parse"), f"{where}.parse")
    if parse is not None and parse.groups != 1:
        raise ProfileError(f"{where}.parse: the regex needs exactly one (group) around the number")
    return Metric(
        name=name,
        oids=tuple(o.lstrip(".") for o in oids),
        type=kind,
        unit=str(data.get("unit", "")),
        scale=float(scale),
        offset=float(offset),
        parse=parse,
        pick=pick,
        numerator=str(data.get("numerator", "")),
        denominator=str(data.get("denominator", "")),
        emit=bool(data.get("emit", True)),
    )


def _table(data: object, where: str) -> Table:
    if not isinstance(data, dict):
        raise ProfileError(f"{where}: must be a mapping")
    for key in data:
        if key not in {"name", "measurement", "metrics", "tags", "static_tags", "skip", "max_rows"}:
            raise ProfileError(f"{where}.{key}: unknown field")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ProfileError(f"{where}.name: must be snake_case (got {name!r})")
    measurement = data.get("measurement")
    _check_measurement(measurement, f"{where}.measurement")
    metrics = tuple(_metric(m, f"{where}.metrics[{i}]", scalar=False) for i, m in enumerate(data.get("metrics") or []))
    if not metrics:
        raise ProfileError(f"{where}.metrics: a table needs at least one metric")
    names = [m.name for m in metrics]
    _check_unique(names, f"{where}.metrics")
    _check_parts(metrics, f"{where}.metrics")
    tags = []
    for i, tag in enumerate(data.get("tags") or []):
        if not isinstance(tag, dict) or not isinstance(tag.get("name"), str) or not _NAME.match(tag["name"]):
            raise ProfileError(f"{where}.tags[{i}]: needs a snake_case `name`")
        if "column" in tag and not _OID.match(str(tag["column"])):
            raise ProfileError(f"{where}.tags[{i}].column: {tag['column']!r} is not a numeric OID")
        part = tag.get("index")
        if "column" not in tag and not (isinstance(part, int) and not isinstance(part, bool)):
            raise ProfileError(f"{where}.tags[{i}]: needs `column` (an OID) or `index` (a position in the row index)")
        tags.append(Tag(tag["name"], str(tag.get("column", "")).lstrip("."), part if "column" not in tag else None))
    if not tags:
        raise ProfileError(f"{where}.tags: a table needs at least one identifying tag")
    static = data.get("static_tags", {}) or {}
    if not isinstance(static, dict):
        raise ProfileError(f"{where}.static_tags: must be a mapping")
    max_rows = data.get("max_rows", 2000)
    if not isinstance(max_rows, int) or isinstance(max_rows, bool) or not 1 <= max_rows <= 100000:
        raise ProfileError(f"{where}.max_rows: must be an integer from 1 to 100000")
    return Table(
        name=name,
        measurement=measurement,
        metrics=metrics,
        tags=tuple(tags),
        static_tags={str(k): str(v) for k, v in static.items()},
        skip=_regex(data.get("skip"), f"{where}.skip"),
        max_rows=max_rows,
    )


def _match(data: object) -> Match:
    if not isinstance(data, dict):
        raise ProfileError("match: must be a mapping")
    for key in data:
        if key not in {"sys_object_id", "sys_descr", "oid_present"}:
            raise ProfileError(f"match.{key}: unknown field (sys_object_id, sys_descr, oid_present)")
    prefixes = tuple(str(p).lstrip(".") for p in _list(data.get("sys_object_id", []), "match.sys_object_id"))
    for prefix in prefixes:
        if not _OID.match(prefix):
            raise ProfileError(f"match.sys_object_id: {prefix!r} is not a numeric OID")
    present = tuple(str(p).lstrip(".") for p in _list(data.get("oid_present", []), "match.oid_present"))
    for oid in present:
        if not _OID.match(oid):
            raise ProfileError(f"match.oid_present: {oid!r} is not a numeric OID")
    descr = tuple(_regex(p, "match.sys_descr") for p in _list(data.get("sys_descr", []), "match.sys_descr"))
    return Match(prefixes, descr, present)


def _graph(data: object, where: str, tables: set[str]) -> GraphOffer:
    if isinstance(data, str):
        return GraphOffer(data)
    if not isinstance(data, dict) or not isinstance(data.get("template"), str):
        raise ProfileError(f"{where}: needs a `template`")
    per = str(data.get("per", ""))
    if per and per not in tables:
        raise ProfileError(f"{where}.per: {per!r} is not a table of this profile")
    return GraphOffer(data["template"], per)


def _regex(value: object, where: str) -> re.Pattern | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProfileError(f"{where}: must be a regular expression string")
    try:
        return re.compile(value)
    except re.error as exc:
        raise ProfileError(f"{where}: bad regular expression: {exc}") from None


def _list(value: object, where: str) -> list:
    if isinstance(value, (str, int)):
        return [value]
    if not isinstance(value, list):
        raise ProfileError(f"{where}: must be a list")
    return value


def _check_parts(metrics: tuple[Metric, ...], where: str) -> None:
    """A ratio's or difference's parts must be metrics declared beside it (ratios need counters)."""
    by_name = {m.name: m for m in metrics}
    for m in metrics:
        if m.type not in DERIVED:
            continue
        for part in (m.numerator, m.denominator):
            if part not in by_name:
                raise ProfileError(f"{where}.{m.name}: {part!r} is not declared beside it")
            if m.type == "ratio" and by_name[part].type != "counter":
                raise ProfileError(
                    f"{where}.{m.name}: a ratio divides counter deltas; {part!r} is a {by_name[part].type}"
                )


def _int(data: dict, key: str) -> int:
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ProfileError(f"{key}: must be an integer")
    return value


def _check_unique(names: list[str], where: str) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise ProfileError(f"{where}: {name!r} is declared twice")
        seen.add(name)


def _check_measurement(value: object, where: str) -> None:
    if value not in MEASUREMENTS:
        raise ProfileError(f"{where}: {value!r} is not one of {', '.join(MEASUREMENTS)}")


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]
