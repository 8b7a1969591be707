"""The profile file format as pydantic models: every field typed and checked, messages that name the field.

collectors/profiles.py loads the YAML, merges `extends`, validates the result with `ProfileFile` and turns it into
the frozen dataclasses the poller uses; `describe` turns pydantic's errors into one line per problem
(`metrics[0].type: 'gauje' is not one of gauge, counter, ...`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

METRIC_TYPES = ("gauge", "counter", "count", "age", "ratio", "difference", "product", "sum", "quotient")
DERIVED = ("ratio", "difference", "product", "sum", "quotient")
MEASUREMENTS = (
    "system", "sensor", "volume", "disk_io", "storage", "member", "pool", "raid", "disk", "processor", "controller",
    "enclosure", "replication", "alert", "server",
)  # fmt: skip
IF_COUNTER_GROUPS = ("errors", "discards", "unicast", "broadcast")
# One vocabulary for every vendor's status codes (docs/profiles.md "States"), the worst last
STATES = ("ok", "warning", "degraded", "rebuilding", "failed")
MORE = "more"  # in a state map: any code above the largest named (a count of failed disks)
# read only when a profile names them: EtherLike-MIB pause frames; transceiver optics (collectors/optics.py)
IF_OPTIONAL_GROUPS = ("pause", "optics")
NAME = re.compile(r"^[a-z][a-z0-9_]*$")
OID = re.compile(r"^\.?\d+(\.\d+)+$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False, frozen=True)


def _snake(value: object) -> str:
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError(f"must be snake_case (got {value!r})")
    return value


def _oid(value: object) -> str:
    text = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if text is None or not OID.match(text):
        raise ValueError(f"{value!r} is not a numeric OID")
    return text.lstrip(".")


def _regex(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("must be a regular expression string")
    try:
        re.compile(value)
    except re.error as exc:
        raise ValueError(f"bad regular expression: {exc}") from None
    return value


def _as_list(value: object) -> object:
    return [value] if isinstance(value, (str, int)) and not isinstance(value, bool) else value


def _number(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number (got {value!r})")
    return value


class UnitCheck(_Strict):
    """A ratio whose unit the device's own average gauge decides: each candidate unit's scale to the metric's unit."""

    gauge: str
    units: dict[str, float] = Field(min_length=2)

    @field_validator("gauge")
    @classmethod
    def _gauge(cls, value: object) -> str:
        return _snake(value)

    @field_validator("units")
    @classmethod
    def _units(cls, value: dict[str, float]) -> dict[str, float]:
        for name, scale in value.items():
            if not scale > 0:
                raise ValueError(f"{name}: the scale must be a positive number")
        return value


class MetricFile(_Strict):
    name: str
    oid: str | None = None
    oids: list[str] = Field(default_factory=list)
    column: str | None = None
    columns: list[str] = Field(default_factory=list)
    type: str = "gauge"
    unit: str = ""
    scale: float = 1.0
    offset: float = 0.0
    parse: str | None = None
    pick: int = Field(default=0, ge=0)
    numerator: str | None = None
    denominator: str | None = None
    parts: list[str] = Field(default_factory=list)
    emit: bool = True
    unit_check: UnitCheck | None = None
    states: str | None = None  # the name of a state map of the profile (`state_maps`): a status code's meaning
    progress: str | None = None  # a status's percent done (a rebuild), a gauge declared beside it
    active: str | None = None  # a TruthValue gauge beside a status: while it is not true(1), the part is ok (cleared)
    word_events: bool = False  # a status whose word changing is news though its state stays (a controller's role)

    v_name = field_validator("name", mode="before")(lambda cls, v: _snake(v))
    v_states = field_validator("states", "progress", "active", mode="before")(
        lambda cls, v: None if v is None else _snake(v)
    )
    v_oids = field_validator("oid", "column", mode="before")(lambda cls, v: None if v is None else _oid(v))
    v_many = field_validator("oids", "columns", mode="before")(lambda cls, v: [_oid(o) for o in _as_list(v)])
    v_parse = field_validator("parse", mode="before")(lambda cls, v: _regex(v))
    v_scale = field_validator("scale", "offset", mode="before")(lambda cls, v: _number(v))

    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: object) -> str:
        if value not in METRIC_TYPES:
            raise ValueError(f"{value!r} is not one of {', '.join(METRIC_TYPES)}")
        return str(value)

    @field_validator("scale")
    @classmethod
    def _nonzero(cls, value: float) -> float:
        if value == 0:
            raise ValueError("must be a non-zero number")
        return value

    @field_validator("parse")
    @classmethod
    def _one_group(cls, value: str | None) -> str | None:
        if value is not None and re.compile(value).groups != 1:
            raise ValueError("the regex needs exactly one (group) around the number")
        return value

    @model_validator(mode="after")
    def _parts(self) -> MetricFile:
        if self.type in ("ratio", "difference", "product", "quotient"):
            for part in ("numerator", "denominator"):
                if not isinstance(getattr(self, part), str):
                    raise ValueError(f"{part}: a {self.type} needs the name of another metric here")
        if self.type == "sum" and len(self.parts) < 2:
            raise ValueError("parts: a sum needs the names of two or more other metrics")
        if self.unit_check is not None and self.type != "ratio":
            raise ValueError("unit_check: only a ratio (a sum of times over a count) has a unit to check")
        if self.states is not None and self.type != "gauge":
            raise ValueError("states: only a gauge (a status code as the device serves it) has states")
        if self.progress is not None and self.states is None:
            raise ValueError("progress: only a status (a metric with `states`) has a progress")
        if self.active is not None and self.states is None:
            raise ValueError("active: only a status (a metric with `states`) is cleared by another")
        if self.word_events and self.states is None:
            raise ValueError("word_events: only a status (a metric with `states`) has words")
        return self

    def addresses(self, scalar: bool) -> list[str]:
        """The OIDs (scalar) or columns (table) this metric reads, first that reads wins."""
        one, many = (self.oid, self.oids) if scalar else (self.column, self.columns)
        return [one] if one else list(many)


class LookupFile(_Strict):
    """A tag whose number (its column's, or its `index` part of the row index) points into another table: the text
    of that table's `column` in the row whose index, at position `index`, is that number (a volume's pool index ->
    the pool's name; a controller fan's row index -> its controller's name). With `parts`, that many index parts
    from there are matched together (a replication row's member.volume -> that volume's name)."""

    column: str
    index: int = Field(default=0, ge=0)
    parts: int = Field(default=1, ge=1, le=8)  # index parts matched, from `index` on (and from the tag's own `index`)

    v_column = field_validator("column", mode="before")(lambda cls, v: _oid(v))


class TagFile(_Strict):
    name: str
    column: str | None = None
    index: int | None = None
    lookup: LookupFile | None = None
    parse: str | None = None  # one regex group: the tag is what it holds; a row whose text does not match is left out
    into: str | None = None  # another tag of the table this one's text is put before (its owner), not a tag itself

    v_name = field_validator("name", mode="before")(lambda cls, v: _snake(v))
    v_into = field_validator("into", mode="before")(lambda cls, v: None if v is None else _snake(v))
    v_column = field_validator("column", mode="before")(lambda cls, v: None if v is None else _oid(v))
    v_parse = field_validator("parse", mode="before")(lambda cls, v: _regex(v))

    @model_validator(mode="after")
    def _source(self) -> TagFile:
        if self.column is None and self.index is None:
            raise ValueError("needs `column` (an OID) or `index` (a position in the row index)")
        if self.column is not None and self.index is not None:
            raise ValueError("takes `column` or `index`, not both")
        if self.parse is not None and (re.compile(self.parse).groups != 1 or self.column is None or self.lookup):
            raise ValueError("parse: one regex group, on a column's own text")
        return self


def _measurement(value: object) -> str:
    if value not in MEASUREMENTS:
        raise ValueError(f"{value!r} is not one of {', '.join(MEASUREMENTS)}")
    return str(value)


class OnlyFile(_Strict):
    """Rows whose `metric` (a gauge of the table) holds none of `values` are not the table's (a replica still being
    sent is no replica yet)."""

    metric: str
    values: list[int] = Field(min_length=1)

    v_metric = field_validator("metric", mode="before")(lambda cls, v: _snake(v))


class CollapseFile(_Strict):
    """Rows with the same tags are one: the one whose `field` is the least (`min`) or the greatest (`max`) (a
    volume's newest replica at a site, of all its replicas there)."""

    field: str
    keep: Literal["min", "max"]

    v_field = field_validator("field", mode="before")(lambda cls, v: _snake(v))


class TableFile(_Strict):
    name: str
    measurement: str
    metrics: list[MetricFile] = Field(min_length=1)
    tags: list[TagFile] = Field(min_length=1)
    static_tags: dict[str, str] = Field(default_factory=dict)
    skip: str | None = None
    max_rows: int = Field(default=2000, ge=1, le=100000)
    only: OnlyFile | None = None
    collapse: CollapseFile | None = None

    v_name = field_validator("name", mode="before")(lambda cls, v: _snake(v))
    v_measurement = field_validator("measurement", mode="before")(lambda cls, v: _measurement(v))
    v_skip = field_validator("skip", mode="before")(lambda cls, v: _regex(v))

    @field_validator("static_tags", mode="before")
    @classmethod
    def _texts(cls, value: object) -> object:
        """Tag values are text: `slot: 1` is the tag "1", as before the schema."""
        if isinstance(value, dict):
            return {
                k: str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v for k, v in value.items()
            }
        return value or {}


class MatchFile(_Strict):
    sys_object_id: list[str] = Field(default_factory=list)
    sys_descr: list[str] = Field(default_factory=list)
    oid_present: list[str] = Field(default_factory=list)

    v_oids = field_validator("sys_object_id", "oid_present", mode="before")(
        lambda cls, v: [_oid(o) for o in _as_list(v)]
    )
    v_descr = field_validator("sys_descr", mode="before")(lambda cls, v: [_regex(p) for p in _as_list(v)])


class InterfacesFile(_Strict):
    enabled: bool = True
    counters: list[str] = Field(default_factory=lambda: list(IF_COUNTER_GROUPS))
    skip_ports: str | None = None

    v_skip = field_validator("skip_ports", mode="before")(lambda cls, v: _regex(v))

    @field_validator("counters", mode="before")
    @classmethod
    def _groups(cls, value: object) -> object:
        allowed = IF_COUNTER_GROUPS + IF_OPTIONAL_GROUPS
        for group in _as_list(value) or []:
            if group not in allowed:
                raise ValueError(f"{group!r} is not one of {', '.join(allowed)}")
        return _as_list(value)


class GraphFile(_Strict):
    template: str
    per: str = ""


def _state_map(value: object) -> dict[int | str, tuple[str, str]]:
    """{code: [state, the vendor's word]}: a state of STATES and the word the vendor's MIB gives the code; `more`
    means any whole number above the largest code named (a count: `{0: [ok, none], more: [failed, failed]}`)."""
    if not isinstance(value, dict) or not value:
        raise ValueError("must map status codes to [state, word]")
    if MORE in value and not any(isinstance(c, int) and not isinstance(c, bool) for c in value):
        raise ValueError(f"{MORE}: only beside a code it comes after")
    out = {}
    for code, meaning in value.items():
        if code != MORE and (isinstance(code, bool) or not isinstance(code, int)):
            raise ValueError(f"{code!r}: a status code is an integer (or `{MORE}`, the codes above those named)")
        if not (isinstance(meaning, (list, tuple)) and len(meaning) == 2):
            raise ValueError(f"{code}: must be [state, word] (got {meaning!r})")
        state, word = meaning
        if state not in STATES:
            raise ValueError(f"{code}: {state!r} is not one of {', '.join(STATES)}")
        if isinstance(word, bool):
            raise ValueError(f"{code}: write the vendor's word in quotes (YAML reads on, off, yes, no as true/false)")
        if not isinstance(word, str) or not word.strip() or len(word) > 60:
            raise ValueError(f"{code}: the vendor's word must be text of 1 to 60 characters")
        out[code] = (state, word)
    return out


class ProfileFile(_Strict):
    """A whole profile after `extends` has been merged."""

    name: str
    description: str = ""
    extends: list[str] = Field(default_factory=list)
    abstract: bool = False
    priority: int = 0
    match: MatchFile = Field(default_factory=MatchFile)
    interfaces: InterfacesFile = Field(default_factory=InterfacesFile)
    metrics: list[MetricFile] = Field(default_factory=list)
    metrics_measurement: str = "system"
    tables: list[TableFile] = Field(default_factory=list)
    graphs: list[GraphFile] = Field(default_factory=list)
    state_maps: dict[str, dict[int | str, tuple[str, str]]] = Field(default_factory=dict)

    v_extends = field_validator("extends", mode="before")(lambda cls, v: _as_list(v))
    v_measurement = field_validator("metrics_measurement", mode="before")(lambda cls, v: _measurement(v))

    @field_validator("priority", mode="before")
    @classmethod
    def _int(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError("must be an integer")
        return value

    @field_validator("state_maps", mode="before")
    @classmethod
    def _maps(cls, value: object) -> object:
        if not isinstance(value, dict):
            raise ValueError("must map names to state maps")
        return {_snake(name): _state_map(states) for name, states in value.items()}

    @model_validator(mode="after")
    def _known_maps(self) -> ProfileFile:
        metrics = [("metrics", m) for m in self.metrics]
        metrics += [(f"tables.{t.name}", m) for t in self.tables for m in t.metrics]
        for where, metric in metrics:
            if metric.states is not None and metric.states not in self.state_maps:
                raise ValueError(f"{where}.{metric.name}.states: no state map named {metric.states!r}")
        return self

    @field_validator("interfaces", mode="before")
    @classmethod
    def _interfaces(cls, value: object) -> object:
        if value is False:
            return {"enabled": False}
        return value or {}

    @field_validator("match", mode="before")
    @classmethod
    def _match(cls, value: object) -> object:
        return value or {}

    @field_validator("graphs", mode="before")
    @classmethod
    def _graphs(cls, value: object) -> object:
        return [{"template": g} if isinstance(g, str) else g for g in value or []]

    @field_validator("metrics", "tables", mode="before")
    @classmethod
    def _lists(cls, value: object) -> object:
        return value or []


def describe(exc: ValidationError) -> list[str]:
    """One line per problem: where (`tables[0].metrics[2].type`) and what, in the profile's own words."""
    lines = []
    for error in exc.errors(include_url=False):
        where = _where(error["loc"])
        kind = error["type"]
        if kind == "extra_forbidden":
            parent, name = _where(error["loc"][:-1]), error["loc"][-1]
            lines.append(f"{parent + ': ' if parent else ''}unknown field {name!r}")
            continue
        message = error["msg"].removeprefix("Value error, ")
        if kind == "missing":
            message = "missing"
        elif kind in ("int_type", "int_parsing"):
            message = f"must be an integer (got {_shown(error.get('input'))})"
        elif kind in ("float_type", "float_parsing"):
            message = f"must be a number (got {_shown(error.get('input'))})"
        elif kind in ("string_type",):
            message = f"must be a string (got {_shown(error.get('input'))})"
        elif kind in ("list_type",):
            message = "must be a list"
        elif kind in ("dict_type", "model_type", "model_attributes_type"):
            message = "must be a mapping"
        elif kind == "too_short":
            least = error.get("ctx", {}).get("min_length", 1)
            message = "needs at least one entry" if least == 1 else f"needs at least {least} entries"
        elif kind.startswith("greater_than") or kind.startswith("less_than"):
            message = f"{_shown(error.get('input'))} is out of range ({message.removeprefix('Input should be ')})"
        lines.append(f"{where}: {message}" if where else message)
    return lines


def _where(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def _shown(value: object) -> str:
    return repr(value)[:60]
