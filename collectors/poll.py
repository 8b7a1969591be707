"""Poll one device: read uptime and interfaces, compute rates against the last counters, build samples."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from collectors.counters import Reading, counter_rate
from collectors.interfaces import Port, read_ports
from collectors.samples import CounterState, Sample
from collectors.sessions import open_session
from collectors.snmptypes import SnmpError, SnmpTarget

SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
UPTIME_WRAP = 2**32  # TimeTicks wrap after 497 days: that is not a reboot


@dataclass
class PollResult:
    """Everything one poll learned: samples to write, ports seen, new counter state, and problems."""

    samples: list[Sample] = field(default_factory=list)
    ports: list[Port] = field(default_factory=list)
    state: CounterState = field(default_factory=CounterState)
    uptime_s: float | None = None
    rebooted: bool = False
    gaps: dict[str, str] = field(default_factory=dict)
    requests: int = 0
    duration_s: float = 0.0


async def poll_device(
    target: SnmpTarget,
    device_key: str,
    previous: CounterState | None,
    *,
    tolerance: float = 1.1,
    engine: str = "pysnmp",
    clock: Callable[[], float] = time.time,
) -> PollResult:
    """Poll a device once. Raises SnmpError when the device cannot be read at all."""
    started = clock()
    session = open_session(target, engine)
    scalars = await session.get([SYS_UPTIME])
    uptime = scalars[SYS_UPTIME]
    if uptime.kind != "timeticks":
        raise SnmpError("the agent did not return sysUpTime; is this an SNMP agent with MIB-II?")
    ports = await read_ports(session)
    read_at = clock()

    result = PollResult(ports=ports, uptime_s=uptime.value / 100.0)
    result.rebooted = _rebooted(previous, uptime.value, read_at)
    state = CounterState(uptime_ticks=uptime.value, taken_at=read_at)
    for port in ports:
        fields: dict[str, float | int] = {"speed_bps": port.speed_bps}
        if port.oper_up is not None:
            fields["oper_up"] = int(port.oper_up)
        max_bytes = port.speed_bps / 8 if port.speed_bps else None
        for direction, value in (("in", port.in_octets), ("out", port.out_octets)):
            if value.kind not in ("counter32", "counter64"):
                continue
            key = f"{port.name}\t{direction}_octets"
            reading = Reading(int(value.value), 64 if value.kind == "counter64" else 32, read_at)
            state.counters[key] = (reading.value, reading.bits, reading.at)
            rate = counter_rate(
                _reading(previous, key),
                reading,
                max_per_second=max_bytes,
                rebooted=result.rebooted,
                tolerance=tolerance,
            )
            if rate.per_second is None:
                result.gaps[f"{port.name} {direction}"] = rate.reason
            else:
                fields[f"{direction}_bps"] = rate.per_second * 8.0
        result.samples.append(Sample("interface", {"device": device_key, "port": port.name}, fields, read_at))
    result.samples.append(Sample("system", {"device": device_key}, {"uptime_s": result.uptime_s}, read_at))
    result.state = state
    result.requests = session.requests
    result.duration_s = clock() - started
    return result


def _reading(previous: CounterState | None, key: str) -> Reading | None:
    if previous is None or key not in previous.counters:
        return None
    value, bits, at = previous.counters[key]
    return Reading(value, bits, at)


def _rebooted(previous: CounterState | None, uptime_ticks: int, now: float) -> bool:
    """sysUpTime went backwards, unless it is the 497-day TimeTicks wrap."""
    if previous is None or previous.uptime_ticks is None or uptime_ticks >= previous.uptime_ticks:
        return False
    elapsed = now - (previous.taken_at or now)
    wrapped_s = (uptime_ticks + UPTIME_WRAP - previous.uptime_ticks) / 100.0
    return abs(wrapped_s - elapsed) > max(5.0, elapsed * 0.1)
