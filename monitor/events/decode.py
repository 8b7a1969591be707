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
TEXT_VARBINDS = 4  # an unknown trap's text shows this many varbinds (all are kept in the detail)


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


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        return "?"


def _shown(value) -> str:
    return (value if isinstance(value, str) else str(value)).replace(PORT_MARK, "")


def decode(varbinds: list[tuple[str, object]], book: Catalog | None = None) -> TrapInfo:
    """Name a notification's varbinds (SNMPv2 form: v1 traps are converted by RFC 3584 first)."""
    book = book or catalog()
    trap_oid, uptime, agent = "", None, ""
    named: dict[str, str] = {}
    kept: list[list] = []
    if_index: int | None = None
    for oid, value in varbinds:
        if oid == TRAP_OID:
            trap_oid = _shown(value)
            continue
        if oid == SYS_UPTIME:
            uptime = value if isinstance(value, int) else None
            continue
        if oid == TRAP_COMMUNITY:
            continue
        if oid == TRAP_ADDRESS:
            agent = _shown(value)
        obj, instance = book.object_name(oid)
        name = f"{obj.name}.{instance}".rstrip(".") if obj else ""
        shown = obj.values.get(value, _shown(value)) if obj and isinstance(value, int) else _shown(value)
        if obj:
            named.setdefault(obj.name, shown)
            if obj.name in IF_OBJECTS and if_index is None:
                if obj.name == "ifIndex" and isinstance(value, int):
                    if_index = value
                elif instance.isdigit():
                    if_index = int(instance)
        kept.append([oid, name, value if isinstance(value, int | float) else _shown(value)])
    port_hint = named.get("ifName") or named.get("ifDescr") or ""
    found = book.notification(trap_oid) if trap_oid else None
    if found is None:
        shown = ", ".join(f"{name or oid}={_shown(value)[:60]}" for oid, name, value in kept[:TEXT_VARBINDS])
        more = f" (+{len(kept) - TEXT_VARBINDS} more)" if len(kept) > TEXT_VARBINDS else ""
        text = f"Unknown trap {trap_oid or '(no snmpTrapOID)'}" + (f": {shown}{more}" if kept else "")
        return TrapInfo(trap_oid, "", "trap_unknown", 6, text, if_index, port_hint, agent, uptime, kept)
    severity = found.severity
    if found.severity_from:
        raw = next((v for o, n, v in kept if n.split(".")[0] == found.severity_from and isinstance(v, int)), None)
        severity = book.severity_maps.get(found.severity_from, {}).get(raw, severity)
    values = _Blank(named)
    values["port"] = PORT_MARK
    text = string.Formatter().vformat(found.text, (), values)
    return TrapInfo(trap_oid, found.name, found.kind, severity, text, if_index, port_hint, agent, uptime, kept)
