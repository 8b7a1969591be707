"""Poll one device: uptime, interfaces and the profile's metrics; rates against the last counters; samples."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from collectors.counters import TOO_SOON, counter_rate, min_rate_interval, new_reading
from collectors.interfaces import Port, read_ports
from collectors.metrics import read_metrics, scalar_oids
from collectors.optics import read_optics
from collectors.profiles import IF_COUNTER_GROUPS, Profile
from collectors.rollup import MOVED, SPAN, TOTALS
from collectors.samples import CounterState, Sample
from collectors.sessions import open_session
from collectors.snmptypes import SnmpError, SnmpTarget

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
UPTIME_WRAP = 2**32  # TimeTicks wrap after 497 days: that is not a reboot
UNKNOWN_SPEED_BPS = 1e12  # no port is faster than 1 Tbit/s: the line-rate check of a port whose speed is unknown
MIN_FRAME_BITS = 84 * 8  # the shortest Ethernet frame on the wire (64 bytes + preamble + gap): most packets/s
OPTICS = "optics"  # an optional interface group: transceivers' light levels (collectors/optics.py)
SPANNED = TOTALS["interface"]  # a port's rates with totals: their sample says what their counter deltas cover


@dataclass
class PollResult:
    """Everything one poll learned: samples to write, ports seen, new counter state, and problems."""

    samples: list[Sample] = field(default_factory=list)
    ports: list[Port] = field(default_factory=list)
    state: CounterState = field(default_factory=CounterState)
    uptime_s: float | None = None
    rebooted: bool = False
    gaps: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    values: list[tuple[str, dict[str, str], float | str, str]] = field(default_factory=list)
    failure: str = ""  # why the device's main data could not be read (its interfaces); "" when it was
    unread: set[str] = field(default_factory=set)  # measurements not read whole (a table or the optics that failed)
    requests: int = 0
    duration_s: float = 0.0


async def poll_device(
    target: SnmpTarget,
    device_key: str,
    previous: CounterState | None,
    *,
    profile: Profile | None = None,
    tolerance: float = 1.1,
    engine: str = "pysnmp",
    clock: Callable[[], float] | None = None,
    interval_s: float | None = None,
) -> PollResult:
    """Poll a device once. Raises SnmpError (from the session) when the device cannot be read at all.

    `interval_s`, the device's poll interval, sets how close two readings may be and still give a rate; `clock`
    times the poll and every answer (None: the wall clock, answers timed as their datagrams arrived)."""
    session = open_session(target, engine, clock)
    clock = clock or time.time
    started = clock()
    min_interval = min_rate_interval(interval_s)
    scalars = scalar_oids(profile) if profile is not None else []
    first = await session.get([SYS_UPTIME, *scalars])  # the profile's scalars travel with sysUpTime
    uptime = first[SYS_UPTIME]
    ticks = uptime.value if uptime.kind == "timeticks" else None
    read_at = scalars_at = clock()
    result = PollResult(uptime_s=ticks / 100.0 if ticks is not None else None)
    if ticks is None:
        result.errors.append("sysUpTime: not served, so reboots cannot be detected")
    result.rebooted = ticks is not None and _rebooted(previous, ticks, read_at)
    state = CounterState(uptime_ticks=ticks, taken_at=read_at)
    if profile is None or profile.interfaces:
        groups = profile.interface_counters if profile is not None else IF_COUNTER_GROUPS
        try:
            known = previous.ports if previous is not None else None
            result.ports, state.ports = await read_ports(
                session, tuple(g for g in groups if g != OPTICS), known=known, rebooted=result.rebooted, clock=clock
            )
        except SnmpError as exc:
            result.failure = f"interfaces: {exc}"
            result.errors.append(result.failure)
            if previous is not None and not result.rebooted:  # the next poll's rates span this failed one
                state.counters.update(previous.counters)
                state.ports = previous.ports
        read_at = clock()
        for port in result.ports:
            result.samples.append(
                _port_sample(port, device_key, previous, state, read_at, result, tolerance, min_interval)
            )
        if OPTICS in groups and result.ports:
            await _optics(session, device_key, result, state, previous.optics if previous else {}, clock)
    if profile is not None:
        report = await read_metrics(
            session,
            profile,
            device_key,
            previous,
            state,
            scalars_at,
            result.rebooted,
            scalar_values=first,
            min_interval=min_interval,
        )
        result.samples += report.samples
        result.errors += report.errors
        result.missing += report.missing
        result.values += report.values
        result.gaps |= report.gaps
        result.unread |= report.unread
    if result.uptime_s is not None:
        result.samples.append(Sample("system", {"device": device_key}, {"uptime_s": result.uptime_s}, read_at))
    result.state = state
    result.requests = session.requests
    result.duration_s = clock() - started
    return result


async def _optics(
    session, device_key: str, result: PollResult, state: CounterState, known: dict, clock: Callable[[], float]
) -> None:
    """The ports' transceiver readings, one sample a port (and lane); a device that fails them fails nothing else (an
    SNMP failure keeps the sensors' plan; an answer no reader expected drops it, to be worked out afresh)."""
    state.optics = known
    try:
        readings, state.optics = await read_optics(session, {p.if_index: p.name for p in result.ports}, known, clock())
    except SnmpError as exc:
        result.errors.append(f"optics: {exc}")
        result.unread.add("optics")
        return
    except Exception as exc:
        result.errors.append(f"optics: unreadable answer ({type(exc).__name__})")
        result.unread.add("optics")
        state.optics = {}  # worked out afresh next time
        return
    at = clock()
    fields: dict[tuple[str, str], dict[str, float]] = {}
    for reading in readings:
        fields.setdefault((reading.port, reading.lane), {})[reading.field] = reading.value
    for (port, lane), values in fields.items():
        optic = f"{port} lane {lane}" if lane else port  # the series: one per port, or per lane of a multi-lane module
        tags = {"device": device_key, "port": port, "optic": optic} | ({"lane": lane} if lane else {})
        result.samples.append(Sample("optics", tags, values, at))


def _port_sample(
    port: Port,
    device_key: str,
    previous: CounterState | None,
    state: CounterState,
    read_at: float,
    result: PollResult,
    tolerance: float,
    min_interval: float,
) -> Sample:
    fields: dict[str, float | int] = {"speed_bps": port.speed_bps}
    if port.oper_up is not None:
        fields["oper_up"] = int(port.oper_up)
    ceiling_only = not port.speed_bps  # 1 Tbit/s bounds a port of unknown speed, but is not its line rate
    line_rate = port.speed_bps or UNKNOWN_SPEED_BPS  # a port of unknown speed is no faster than the fastest there is
    max_bytes, max_packets = line_rate / 8, line_rate / MIN_FRAME_BITS
    kept = previous.counters if previous is not None else {}
    octets_at, counters_at = port.octets_at or read_at, port.counters_at or read_at
    prefix, rebooted = port.name + "\t", result.rebooted
    # (field, value, most bytes/s, scale, when read): octets become bit/s and are checked against the line rate
    counters = [
        ("in_bps", port.in_octets, max_bytes, 8.0, octets_at),
        ("out_bps", port.out_octets, max_bytes, 8.0, octets_at),
    ]
    counters += [(name, value, max_packets, 1.0, counters_at) for name, value in port.counters.items()]
    spans = set()
    for name, value, limit, scale, at in counters:
        kind = value.kind
        if kind == "counter64":
            reading = new_reading((value.value, 64, at))
        elif kind == "counter32":
            reading = new_reading((value.value, 32, at))
        else:
            continue
        key = prefix + name
        before = kept.get(key)
        rate = counter_rate(
            before,
            reading,
            max_per_second=limit,
            rebooted=rebooted,
            tolerance=tolerance,
            min_interval=min_interval,
            ceiling_only=ceiling_only,
        )
        state.counters[key] = before if rate is TOO_SOON else reading  # too soon: the next rate spans both
        if rate.per_second is None:
            result.gaps[f"{port.name} {name}"] = rate.reason
        else:
            fields[name] = rate.per_second * scale
            if name in SPANNED:
                span = reading.at - before.at
                spans.add(span)
                fields[MOVED[name]] = rate.per_second * span  # the octets it moved: its counter delta
    if len(spans) == 1:  # in and out from other readings (one's width changed as the other's came too soon): none
        fields[SPAN] = spans.pop()
    return Sample("interface", {"device": device_key, "port": port.name}, fields, read_at)


def _rebooted(previous: CounterState | None, uptime_ticks: int, now: float) -> bool:
    """sysUpTime grew less than the time since the last poll (a reboot), unless it is the 497-day TimeTicks wrap."""
    if previous is None or previous.uptime_ticks is None:
        return False
    elapsed = now - (previous.taken_at or now)
    tolerance = max(5.0, elapsed * 0.1)
    grown_s = (uptime_ticks - previous.uptime_ticks) / 100.0
    if grown_s < 0:
        return abs(grown_s + UPTIME_WRAP / 100.0 - elapsed) > tolerance
    return grown_s < elapsed - tolerance
