"""Read IF-MIB interface tables: names, speed, status and octet counters (64-bit preferred)."""

from __future__ import annotations

from dataclasses import dataclass

from collectors.sessions import Session
from collectors.snmptypes import SnmpValue

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

MAX_TEXT = 255  # longest name or alias kept from a device


@dataclass(frozen=True)
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


async def read_ports(session: Session, max_rows: int = 10000) -> list[Port]:
    """Walk ifXTable (and ifTable only where it is needed) and return the ports, names made unique."""
    columns = [IF_NAME, IF_ALIAS, IF_HIGH_SPEED, IF_OPER_STATUS]
    if session.target.version != "1":  # SNMPv1 cannot carry Counter64
        columns += [IF_HC_IN_OCTETS, IF_HC_OUT_OCTETS]
    table = await session.walk(columns, max_rows=max_rows)
    indexes = set(table[IF_NAME]) | set(table[IF_OPER_STATUS])
    hc_in = table.get(IF_HC_IN_OCTETS, {})
    hc_out = table.get(IF_HC_OUT_OCTETS, {})

    def has_hc(index: tuple[int, ...]) -> bool:
        return _is_counter(hc_in.get(index), "counter64") and _is_counter(hc_out.get(index), "counter64")

    fallback: dict[str, dict] = {IF_DESCR: {}, IF_SPEED: {}, IF_IN_OCTETS: {}, IF_OUT_OCTETS: {}}
    if not indexes or any(not has_hc(i) or not _text(table[IF_NAME].get(i)) for i in indexes):
        fallback = await session.walk(list(fallback), max_rows=max_rows)
        indexes |= set(fallback[IF_DESCR]) | set(fallback[IF_IN_OCTETS])

    ports: list[Port] = []
    seen: set[str] = set()
    for index in sorted(i for i in indexes if len(i) == 1):
        if_index = index[0]
        name = _text(table[IF_NAME].get(index)) or _text(fallback[IF_DESCR].get(index)) or f"ifIndex {if_index}"
        if name in seen:
            name = f"{name} (ifIndex {if_index})"
        seen.add(name)
        hc = has_hc(index)
        ports.append(
            Port(
                if_index=if_index,
                name=name,
                alias=_text(table[IF_ALIAS].get(index)),
                speed_bps=_speed(table[IF_HIGH_SPEED].get(index), fallback[IF_SPEED].get(index)),
                oper_up=_oper(table[IF_OPER_STATUS].get(index)),
                hc_counters=hc,
                in_octets=hc_in[index] if hc else fallback[IF_IN_OCTETS].get(index, _NONE),
                out_octets=hc_out[index] if hc else fallback[IF_OUT_OCTETS].get(index, _NONE),
            )
        )
    return ports


_NONE = SnmpValue("missing")


def _is_counter(value: SnmpValue | None, kind: str) -> bool:
    return value is not None and value.kind == kind


def _text(value: SnmpValue | None) -> str:
    """Printable text from a device string: control characters dropped, length capped."""
    if value is None or value.kind != "octets":
        return ""
    text = value.as_text()
    return "".join(ch for ch in text if ch.isprintable()).strip()[:MAX_TEXT]


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
