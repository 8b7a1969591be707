"""The trap catalogue (traps.yaml): notification OIDs to names, kinds, severities and texts; varbind names."""

from __future__ import annotations

import functools
import string
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from monitor.events.kinds import KINDS, SEVERITIES

PATH = Path(__file__).with_name("traps.yaml")


@dataclass(frozen=True)
class Notification:
    oid: str
    name: str
    kind: str
    severity: int
    text: str
    severity_from: str = ""


@dataclass(frozen=True)
class ObjectName:
    name: str
    values: dict[int, str] = field(default_factory=dict)


@dataclass
class Catalog:
    """The parsed catalogue: notifications and named objects by OID, vendor severity maps by object name."""

    notifications: dict[str, Notification]
    objects: dict[str, ObjectName]
    severity_maps: dict[str, dict[int, int]]

    def notification(self, oid: str) -> Notification | None:
        """By OID, also in the other SMI form: X.0.N (from a v1 trap) and X.N (a v2 notification) are one trap."""
        found = self.notifications.get(oid)
        if found is None:
            head, _, last = oid.rpartition(".")
            if head.endswith(".0"):
                found = self.notifications.get(f"{head[:-2]}.{last}")
            else:
                found = self.notifications.get(f"{head}.0.{last}")
        return found

    def object_name(self, oid: str) -> tuple[ObjectName | None, str]:
        """The named object an OID is an instance of, and the instance ("5" of ifOperStatus.5)."""
        parts = oid.split(".")
        for cut in range(len(parts) - 1, max(len(parts) - 16, 0), -1):
            found = self.objects.get(".".join(parts[:cut]))
            if found is not None:
                return found, ".".join(parts[cut:])
        return None, ""


def _is_oid(text: str) -> bool:
    return bool(text) and all(p.isdigit() for p in text.split("."))


def parse(data: dict) -> tuple[Catalog, list[str]]:
    """The catalogue and every problem in it (a problem names the entry and the field)."""
    problems: list[str] = []
    objects: dict[str, ObjectName] = {}
    for oid, spec in (data.get("objects") or {}).items():
        spec = {"name": spec} if isinstance(spec, str) else spec
        if not _is_oid(str(oid)) or not isinstance(spec, dict) or not spec.get("name"):
            problems.append(f"traps.yaml objects: {oid!r} needs a numeric OID and a name")
            continue
        objects[str(oid)] = ObjectName(
            str(spec["name"]), {int(k): str(v) for k, v in (spec.get("values") or {}).items()}
        )
    known = {o.name for o in objects.values()} | {"port"}
    maps: dict[str, dict[int, int]] = {}
    for name, mapping in (data.get("severity_from") or {}).items():
        bad = [v for v in mapping.values() if v not in SEVERITIES]
        if bad:
            problems.append(f"traps.yaml severity_from {name}: unknown severities {bad}")
        maps[name] = {int(k): SEVERITIES.index(v) for k, v in mapping.items() if v in SEVERITIES}
    notifications: dict[str, Notification] = {}
    for entry in data.get("notifications") or []:
        where = f"traps.yaml notification {entry.get('name') or entry.get('oid')!r}"
        oid, kind, severity = str(entry.get("oid", "")), entry.get("kind"), entry.get("severity")
        if not _is_oid(oid) or not entry.get("name"):
            problems.append(f"{where}: needs a numeric oid and a name")
            continue
        if kind not in KINDS or severity not in SEVERITIES:
            problems.append(f"{where}: kind must be one of {sorted(KINDS)} and severity one of {list(SEVERITIES)}")
            continue
        fields = {f for _, f, _, _ in string.Formatter().parse(entry.get("text", "")) if f}
        if fields - known:
            problems.append(f"{where}: text names unknown objects {sorted(fields - known)}")
        if entry.get("severity_from") and entry["severity_from"] not in maps:
            problems.append(f"{where}: severity_from {entry['severity_from']!r} has no map")
        notifications[oid] = Notification(
            oid,
            str(entry["name"]),
            kind,
            SEVERITIES.index(severity),
            str(entry.get("text", "")),
            entry.get("severity_from", ""),
        )
    return Catalog(notifications, objects, maps), problems


@functools.cache
def catalog() -> Catalog:
    """The shipped catalogue, read once per process (checked at start by checks.py)."""
    return parse(yaml.safe_load(PATH.read_text(encoding="utf-8")))[0]


def problems() -> list[str]:
    """Every problem of the shipped catalogue (empty when it is sound): the system check's messages."""
    try:
        return parse(yaml.safe_load(PATH.read_text(encoding="utf-8")))[1]
    except (OSError, yaml.YAMLError, AttributeError, TypeError, ValueError) as exc:
        return [f"traps.yaml cannot be read: {exc}"]
