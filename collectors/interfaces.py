"""Read IF-MIB interface tables: names, speed, status, octet counters (64-bit preferred) and optional counter groups."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

from collectors.sessions import Session
from collectors.snmptypes import MISSING, Oid, SnmpValue

IF_DESCR = "1.3.6.1.2.1.2.2.1.2"
IF_SPEED = "1.3.6.1.2.1.2.2.1.5"
IF_OPER_STATUS = "1.3.6.1.2.1.2.2.1.8"
IF_IN_OCTETS = "1.3.6.1.2.1.2.2.1.10"
IF_OUT_OCTETS = "1.3.6.1.2.1.2.2.1.16"
IF_NAME = "1.3.6.1.2.1.31.1.1.1.1"
IF_HC_IN_OCTETS = "1.3.6.1.2.1.31.1.1.1.6"
IF_HC_OUT_OCTETS = "1.3.6.1.2.1.31.1.1.1.10"
IF_HIGH_SPEED = "1.3.6.1.2.1.31.1.1.1.15"
IF_ALIAS = "1.3.6.1.2.1.31.1.1.1.18"

# Optional counter groups: field name -> (64-bit column, 32-bit column) read per port.
COUNTER_GROUPS: dict[str, dict[str, tuple[str, str]]] = {
    "errors": {"in_errors": ("", "1.3.6.1.2.1.2.2.1.14"), "out_errors": ("", "1.3.6.1.2.1.2.2.1.20")},
    "discards": {"in_discards": ("", "1.3.6.1.2.1.2.2.1.13"), "out_discards": ("", "1.3.6.1.2.1.2.2.1.19")},
    "unicast": {
        "in_ucast_pps": ("1.3.6.1.2.1.31.1.1.1.7", "1.3.6.1.2.1.2.2.1.11"),
        "out_ucast_pps": ("1.3.6.1.2.1.31.1.1.1.11", "1.3.6.1.2.1.2.2.1.17"),
    },
    "broadcast": {
        "in_bcast_pps": ("1.3.6.1.2.1.31.1.1.1.9", "1.3.6.1.2.1.31.1.1.1.3"),
        "out_bcast_pps": ("1.3.6.1.2.1.31.1.1.1.13", "1.3.6.1.2.1.31.1.1.1.5"),
    },
}
# Pseudo-ports that a user rarely wants graphed: unticked by default at discovery.
PSEUDO_PORT = re.compile(r"(?i)^(cpu|lo\d*|loopback|null|vlan|vl\d|stack|sit\d|tunl|ip6tnl|docker|veth|virbr)")


@dataclass(slots=True)
class Port:
    """One interface as read in this poll, keyed for history by its name, not its ifIndex."""

    if_index: int
    name: str
    alias: str
    speed_bps: int
    oper_up: bool | None
    hc_counters: bool
    in_octets: SnmpValue
    out_octets: SnmpValue
    counters: dict[str, SnmpValue] = field(default_factory=dict)
    octets_at: float = 0.0  # when the octet counters were read (their own short walk, for exact rates)
    counters_at: float = 0.0  # when the other counters were read

    @property
    def pseudo(self) -> bool:
        return bool(PSEUDO_PORT.match(self.name))


async def read_ports(session: Session, groups: tuple[str, ...] = (), max_rows: int = 10000) -> list[Port]:
    """Walk ifXTable (and ifTable only where it is needed) and return the ports, names made unique."""
    v1 = session.target.version == "1"  # SNMPv1 cannot carry Counter64
    extra = {f: cols[1] if v1 or not cols[0] else cols[0] for g in groups for f, cols in COUNTER_GROUPS[g].items()}
    started = time.time()
    table = await session.walk([IF_NAME, IF_ALIAS, IF_HIGH_SPEED, IF_OPER_STATUS, *extra.values()], max_rows=max_rows)
    counters_at = (started + time.time()) / 2
    started = time.time()
    if not v1:
        table.update(await session.walk([IF_HC_IN_OCTETS, IF_HC_OUT_OCTETS], max_rows=max_rows))
    octets_at = (started + time.time()) / 2
    indexes = set(table[IF_NAME]) | set(table[IF_OPER_STATUS])
    hc_in = table.get(IF_HC_IN_OCTETS, {})
    hc_out = table.get(IF_HC_OUT_OCTETS, {})

    def has_hc(index: Oid) -> bool:
        return hc_in.get(index, MISSING).kind == "counter64" and hc_out.get(index, MISSING).kind == "counter64"

    fallback: dict[str, dict[Oid, SnmpValue]] = {IF_DESCR: {}, IF_SPEED: {}, IF_IN_OCTETS: {}, IF_OUT_OCTETS: {}}
    if not indexes or any(not has_hc(i) or not table[IF_NAME].get(i, MISSING).printable() for i in indexes):
        started = time.time()
        fallback = await session.walk(list(fallback), max_rows=max_rows)
        if not any(has_hc(i) for i in indexes):
            octets_at = (started + time.time()) / 2
        indexes |= set(fallback[IF_DESCR]) | set(fallback[IF_IN_OCTETS])

    ports: list[Port] = []
    seen: set[str] = set()
    for index in sorted(i for i in indexes if len(i) == 1):
        if_index = index[0]
        name = (
            table[IF_NAME].get(index, MISSING).printable()
            or fallback[IF_DESCR].get(index, MISSING).printable()
            or f"ifIndex {if_index}"
        )
        if name in seen:
            name = f"{name} (ifIndex {if_index})"
        seen.add(name)
        hc = has_hc(index)
        ports.append(
            Port(
                if_index=if_index,
                name=name,
                alias=table[IF_ALIAS].get(index, MISSING).printable(),
                speed_bps=_speed(table[IF_HIGH_SPEED].get(index), fallback[IF_SPEED].get(index)),
                oper_up=_oper(table[IF_OPER_STATUS].get(index)),
                hc_counters=hc,
                in_octets=hc_in[index] if hc else fallback[IF_IN_OCTETS].get(index, MISSING),
                out_octets=hc_out[index] if hc else fallback[IF_OUT_OCTETS].get(index, MISSING),
                counters={f: table[column].get(index, MISSING) for f, column in extra.items()},
                octets_at=octets_at,
                counters_at=counters_at,
            )
        )
    return ports


def _speed(high_speed: SnmpValue | None, speed: SnmpValue | None) -> int:
    """Port speed in bit/s: ifHighSpeed (Mbit/s) when it is set, else ifSpeed (which caps at 4.29 Gbit/s)."""
    if high_speed is not None and high_speed.kind in ("gauge", "int") and high_speed.value > 0:
        return int(high_speed.value) * 1_000_000
    if speed is not None and speed.kind in ("gauge", "int") and speed.value > 0:
        return int(speed.value)
    return 0


def _oper(value: SnmpValue | None) -> bool | None:
    if value is None or value.kind != "int":
        return None
    return value.value == 1
