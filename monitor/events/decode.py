"""A trap's varbinds (plain Python values) to what a person reads: its name, kind, severity, port and text."""

from __future__ import annotations

import string
from dataclasses import dataclass, field

from monitor.events.catalog import Catalog, catalog

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
TRAP_OID = "1.3.6.1.6.3.1.1.4.1.0"
TRAP_ADDRESS = "1.3.6.1.6.3.18.1.3.0"
TRAP_COMMUNITY = "1.3.6.1.6.3.18.1.4.0"  # RFC 3584 puts a v1 trap's community here: a secret, never kept
IF_OBJECTS = ("ifIndex", "ifAdminStatus", "ifOperStatus", "ifDescr", "ifName", "ifAlias", "ifType")
PORT_MARK = "\ue000"  # where the port's name goes (a private-use character: never in a device string)
TEXT_VARBINDS = 4  # an unknown trap's text shows this many varbinds (the detail lists them, up to the bounds)
# A trap is bounded by what it costs, not by what it carries: at most VARBINDS_MAX varbinds are read (more are cut
# before pysnmp decodes them, traps.py), a value or OID is kept up to VALUE_CHARS characters, and the varbinds an
# event's detail lists come to at most DETAIL_CHARS characters; what is cut is said in the detail ("truncated").
VARBINDS_MAX = 64
VALUE_CHARS = 256
DETAIL_CHARS = 4000


@dataclass
class TrapInfo:
    oid: str
    name: str
    kind: str
    severity: int
    text: str  # may hold PORT_MARK, replaced by the port's name once it is known
    if_index: int | None = None
    port_hint: str = ""  # ifName or ifDescr carried by the trap
    agent_address: str = ""  # a v1 trap's agent-addr
    uptime_ticks: int | None = None
    varbinds: list[list] = field(default_factory=list)  # [oid, name, value]
    truncated: dict = field(default_factory=dict)  # what the bounds cut: {"varbinds": carried, "kept": listed, ...}


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def _shown(value) -> str:
    return (value if isinstance(value, str) else str(value)).replace(PORT_MARK, "")


def cut(text: str, limit: int = VALUE_CHARS) -> str:
    """Text kept up to `limit` characters, an ellipsis saying it was cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def decode(varbinds: list[tuple[str, object]], book: Catalog | None = None, dropped: int = 0) -> TrapInfo:
    """Name a notification's varbinds (SNMPv2 form: v1 traps are converted by RFC 3584 first), within the bounds;
    `dropped` varbinds were cut off its end before (traps.py)."""
    book = book or catalog()
    trap_oid, uptime, agent = "", None, ""
    named: dict[str, str] = {}
    kept: list[list] = []
    if_index: int | None = None
    budget, values_cut = DETAIL_CHARS, 0
    for oid, value in varbinds[: VARBINDS_MAX + 5]:  # a v1 trap gains 5 in its SNMPv2 form (RFC 3584)
        if oid == TRAP_OID:
            trap_oid = cut(_shown(value))
            continue
        if oid == SYS_UPTIME:
            uptime = value if isinstance(value, int) else None
            continue
        if oid == TRAP_COMMUNITY:
            continue
        if isinstance(value, str) and len(value) > VALUE_CHARS:
            value, values_cut = cut(value), values_cut + 1
        if oid == TRAP_ADDRESS:
            agent = _shown(value)
        obj, instance = book.object_name(oid)
        name = cut(f"{obj.name}.{instance}".rstrip(".")) if obj else ""
        shown = obj.values.get(value, _shown(value)) if obj and isinstance(value, int) else _shown(value)
        if obj:
            named.setdefault(obj.name, shown)
            if obj.name in IF_OBJECTS and if_index is None:
                if obj.name == "ifIndex" and isinstance(value, int):
                    if_index = value
                elif instance.isdigit():
                    if_index = int(instance)
        if len(oid) > VALUE_CHARS:
            oid, values_cut = cut(oid), values_cut + 1
        row = [oid, name, value if isinstance(value, int | float) else _shown(value)]
        budget -= len(row[0]) + len(name) + len(str(row[2])) + 10
        if budget >= 0:
            kept.append(row)
    carried = dropped + sum(1 for oid, _ in varbinds if oid not in (TRAP_OID, SYS_UPTIME, TRAP_COMMUNITY))
    truncated = {"varbinds": carried, "kept": len(kept)} if carried > len(kept) else {}
    if values_cut:
        truncated["values_cut"] = values_cut
    port_hint = named.get("ifName") or named.get("ifDescr") or ""
    found = book.notification(trap_oid) if trap_oid else None
    if found is None:
        shown = ", ".join(f"{name or oid}={_shown(value)[:60]}" for oid, name, value in kept[:TEXT_VARBINDS])
        more = f" (+{carried - TEXT_VARBINDS} more)" if carried > TEXT_VARBINDS else ""
        text = f"Unknown trap {trap_oid or '(no snmpTrapOID)'}" + (f": {shown}{more}" if kept else "")
        return TrapInfo(trap_oid, "", "trap_unknown", 6, text, if_index, port_hint, agent, uptime, kept, truncated)
    severity = found.severity
    if found.severity_from:
        raw = next((v for o, n, v in kept if n.split(".")[0] == found.severity_from and isinstance(v, int)), None)
        severity = book.severity_maps.get(found.severity_from, {}).get(raw, severity)
    values = _Blank(named)
    values["port"] = PORT_MARK
    text = string.Formatter().vformat(found.text, (), values)
    return TrapInfo(
        trap_oid, found.name, found.kind, severity, text, if_index, port_hint, agent, uptime, kept, truncated
    )
