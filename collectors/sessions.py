"""Choose the SNMP engine behind the session interface (get/walk): pysnmp by default, or the lean "fast" one."""

from __future__ import annotations

from collections.abc import Callable
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


def open_session(target: SnmpTarget, engine: str = "pysnmp", clock: Callable[[], float] | None = None) -> Session:
    """A session to one agent on the named engine; "fast" hands SNMPv3 targets to pysnmp. `clock`: what times each
    answer (None: when its datagram arrived, on the wall clock)."""
    if engine == "fast" and target.version in ("1", "2c"):
        from collectors.fastsnmp import FastSession

        return FastSession(target, clock)
    if engine in ENGINES:
        from collectors.snmp import SnmpSession

        return SnmpSession(target, clock)
    raise ValueError(f"unknown SNMP engine {engine!r}; choose one of {', '.join(ENGINES)}")
