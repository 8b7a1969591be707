"""Read IF-MIB interface tables: names, speed, status, octet counters (64-bit preferred) and optional counter groups."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from collectors.sessions import Session
from collectors.snmptypes import MISSING, Oid, SnmpValue
from collectors.tags import tag_value

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
    # EtherLike-MIB dot3PauseTable (RFC 3635), indexed by ifIndex: 802.3x pause frames, the sign of a congested
    # iSCSI path. The 32-bit columns (dot3InPauseFrames, dot3OutPauseFrames), which more agents implement than
    # the HC ones; pause frames are few, so they do not wrap between polls. Read only where a profile asks.
    "pause": {"in_pause_pps": ("", "1.3.6.1.2.1.10.7.10.1.3"), "out_pause_pps": ("", "1.3.6.1.2.1.10.7.10.1.4")},
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


@dataclass(frozen=True)
class KnownPorts:
    """Names, aliases and speeds as last read, kept between polls so that not every poll re-reads them.

    Cacti's re-index rule, tightened: they are read again after a reboot, when the set of interfaces or any
    link state changes (a renegotiated link may come back at another speed), and at least every
    `STATIC_MAX_AGE_S` seconds (aliases edited on the switch show within that).
    """

    static: dict[int, tuple[str, str, int]]  # ifIndex -> (name, alias, speed in bit/s)
    seen: dict[int, bool | None]  # ifIndex -> link up, for every interface with a status or 64-bit counter
    read_at: float

    def to_raw(self) -> dict:
        return {"static": {str(i): list(v) for i, v in self.static.items()}, "seen": self.seen, "at": self.read_at}

    @classmethod
    def from_raw(cls, raw: object) -> KnownPorts | None:
        """Stored form back; anything unreadable is no knowledge (the next poll reads everything)."""
        try:
            static = {int(i): (str(v[0]), str(v[1]), int(v[2])) for i, v in raw["static"].items()}  # type: ignore[index]
            seen = {int(i): None if v is None else bool(v) for i, v in raw["seen"].items()}  # type: ignore[index]
            return cls(static, seen, float(raw["at"]))  # type: ignore[index]
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None


STATIC_MAX_AGE_S = 300.0


async def read_ports(
    session: Session,
    groups: tuple[str, ...] = (),
    max_rows: int = 10000,
    known: KnownPorts | None = None,
    rebooted: bool = False,
    clock: Callable[[], float] = time.time,
) -> tuple[list[Port], KnownPorts]:
    """Walk the status and counter columns, and names, aliases and speeds when `known` cannot be reused.

    Status, 64-bit octets and the counter groups travel in one walk; each port's counters are timed by the
    response that carried them (its rate divides by the time between two such answers); `clock` dates the names."""
    v1 = session.target.version == "1"  # SNMPv1 cannot carry Counter64
    extra = {f: cols[1] if v1 or not cols[0] else cols[0] for g in groups for f, cols in COUNTER_GROUPS[g].items()}
    rows = len(known.seen) if known is not None and not rebooted else None  # the last poll's table size
    octets = [] if v1 else [IF_HC_IN_OCTETS, IF_HC_OUT_OCTETS]
    times: dict[str, dict[Oid, float]] = {IF_OPER_STATUS: {}, IF_HC_IN_OCTETS: {}}
    table = await session.walk([IF_OPER_STATUS, *octets, *extra.values()], max_rows, rows, times)
    hc_in = table.get(IF_HC_IN_OCTETS, {})
    hc_out = table.get(IF_HC_OUT_OCTETS, {})
    status = table[IF_OPER_STATUS]
    hc = {i for i, v in hc_in.items() if v.kind == "counter64" and hc_out.get(i, MISSING).kind == "counter64"}
    seen = {i[0]: _oper(status.get(i)) for i in set(status) | set(hc_in) if len(i) == 1}
    fresh = (
        known is not None
        and not rebooted
        and 0 <= clock() - known.read_at < STATIC_MAX_AGE_S
        and known.seen == seen
        and (seen.keys() <= known.static.keys())
    )
    fallback: dict[str, dict[Oid, SnmpValue]] = {IF_DESCR: {}, IF_SPEED: {}, IF_IN_OCTETS: {}, IF_OUT_OCTETS: {}}
    if fresh and known is not None:
        static, read_at = known.static, known.read_at
        if any((i,) not in hc for i in static):  # 32-bit counters: only the counters are needed again
            times[IF_IN_OCTETS] = {}
            fallback.update(await session.walk([IF_IN_OCTETS, IF_OUT_OCTETS], max_rows, len(static), times))
    else:
        static, fallback = await _read_static(session, status, hc_in, hc, times, max_rows)
        read_at = clock()
    answered = {**times[IF_OPER_STATUS], **times[IF_HC_IN_OCTETS]}  # when each row's answer came
    answered_32 = times.get(IF_IN_OCTETS, {})
    missing_at = max(answered.values(), default=0.0)
    ports = []
    for if_index, (name, alias, speed) in sorted(static.items()):
        index = (if_index,)
        at = answered.get(index, missing_at)
        if index in hc:
            in_octets, out_octets, octets_at = hc_in[index], hc_out[index], at
        else:
            in_octets = fallback[IF_IN_OCTETS].get(index, MISSING)
            out_octets = fallback[IF_OUT_OCTETS].get(index, MISSING)
            octets_at = answered_32.get(index, at)
        ports.append(
            Port(
                if_index=if_index,
                name=name,
                alias=alias,
                speed_bps=speed,
                oper_up=seen.get(if_index),
                hc_counters=index in hc,
                in_octets=in_octets,
                out_octets=out_octets,
                counters={f: table[column].get(index, MISSING) for f, column in extra.items()},
                octets_at=octets_at,
                counters_at=at,
            )
        )
    return ports, KnownPorts(static, seen, read_at)


async def _read_static(session: Session, status: dict, hc_in: dict, hc: set, times: dict, max_rows: int):
    """ifName, ifAlias, ifHighSpeed (and ifTable's descriptions, speeds and 32-bit counters where needed)."""
    names = await session.walk([IF_NAME, IF_ALIAS, IF_HIGH_SPEED], max_rows=max_rows)
    indexes = set(names[IF_NAME]) | set(status) | set(hc_in)
    fallback: dict[str, dict[Oid, SnmpValue]] = {IF_DESCR: {}, IF_SPEED: {}, IF_IN_OCTETS: {}, IF_OUT_OCTETS: {}}
    if not indexes or any(i not in hc or not names[IF_NAME].get(i, MISSING).printable() for i in indexes):
        times[IF_IN_OCTETS] = {}
        fallback = await session.walk(list(fallback), max_rows, None, times)
        indexes |= set(fallback[IF_DESCR]) | set(fallback[IF_IN_OCTETS])
    static: dict[int, tuple[str, str, int]] = {}
    taken: set[str] = set()
    for index in sorted(i for i in indexes if len(i) == 1):
        if_index = index[0]
        name = tag_value(
            names[IF_NAME].get(index, MISSING).printable()
            or fallback[IF_DESCR].get(index, MISSING).printable()
            or f"ifIndex {if_index}"
        )
        if name in taken:
            name = f"{name} (ifIndex {if_index})"
        taken.add(name)
        alias = names[IF_ALIAS].get(index, MISSING).printable()
        static[if_index] = (name, alias, _speed(names[IF_HIGH_SPEED].get(index), fallback[IF_SPEED].get(index)))
    return static, fallback


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
