"""Choose the SNMP engine behind the session interface (get/walk): pysnmp by default, or the lean "fast" one."""

from __future__ import annotations

from typing import Protocol

from collectors.snmptypes import Oid, SnmpTarget, SnmpValue

ENGINES = ("pysnmp", "fast")


class Session(Protocol):
    """What pollers need from an SNMP session, whatever the engine."""

    target: SnmpTarget
    requests: int

    async def get(self, oids: list[str]) -> dict[str, SnmpValue]: ...

    async def walk(
        self,
        columns: list[str],
        max_rows: int = 10000,
        expected_rows: int | dict[str, int] | None = None,
        times: dict[str, dict[Oid, float]] | None = None,
    ) -> dict[str, dict[Oid, SnmpValue]]: ...


def open_session(target: SnmpTarget, engine: str = "pysnmp") -> Session:
    """A session to one agent on the named engine; "fast" hands SNMPv3 targets to pysnmp."""
    if engine == "fast" and target.version in ("1", "2c"):
        from collectors.fastsnmp import FastSession

        return FastSession(target)
    if engine in ENGINES:
        from collectors.snmp import SnmpSession

        return SnmpSession(target)
    raise ValueError(f"unknown SNMP engine {engine!r}; choose one of {', '.join(ENGINES)}")
