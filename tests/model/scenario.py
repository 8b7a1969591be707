"""A device's true history: what each counter carried and how the device was polled, as plain data.

The scenario is the truth both sides read: the agent serves `octets(counter, t)` and `uptime_ticks(t)` at the
moment a poll reads it, and the model works out from the same scenario what a chart and a legend must show.
Traffic is piecewise constant (bits per second from each segment's start to the next one's), so every counter
value is an exact integral: floor(bytes since the counter last started) plus its starting value, modulo its width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Segment:
    """From `start` (epoch s) until the next segment, the counter moves `bps` bits a second (octets: bps / 8)."""

    start: float
    bps: float


@dataclass(frozen=True)
class Counter:
    """One counter of the device.

    `kind`: "port32" (ifInOctets, Counter32), "port64" (ifHCInOctets, Counter64): a port's octets in, drawn as
    in_bps; "string": a profile counter served as an OCTET STRING of digits (octets, drawn as bytes/s; no width).
    `speed_bps`: the port's speed (0: none served, as a VLAN interface); ignored for "string".
    `resets`: moments its statistics were cleared (the counter restarts from 0, the device keeps running).
    `start_value`: its value when the device (re)booted, and 0 after a reset."""

    name: str
    kind: str
    speed_bps: float
    segments: tuple[Segment, ...]
    resets: tuple[float, ...] = ()
    start_value: int = 0

    @property
    def width(self) -> int | None:
        return {"port32": 32, "port64": 64}.get(self.kind)

    def bps(self, t: float) -> float:
        """The true rate at `t` (bits a second)."""
        rate = 0.0
        for segment in self.segments:
            if segment.start <= t:
                rate = segment.bps
        return rate

    def bits_between(self, a: float, b: float) -> float:
        """The true bits moved from `a` to `b` (a <= b), exactly."""
        bounds = [s.start for s in self.segments] + [math.inf]
        moved = 0.0
        for segment, until in zip(self.segments, bounds[1:], strict=True):
            lo, hi = max(a, segment.start), min(b, until)
            if hi > lo:
                moved += segment.bps * (hi - lo)
        return moved


@dataclass(frozen=True)
class Poll:
    """One poll the scheduler made: `t`, the moment the agent's answer carried (the reading's time); `interval_s`,
    the device's poll interval in force then; `answered`: False when the agent did not answer (a timeout)."""

    t: float
    interval_s: int
    answered: bool = True


@dataclass(frozen=True)
class Scenario:
    """One device: its counters, its polls in time order, and the moments it rebooted (uptime and every counter
    back to its start value). `booted` is when the agent last booted before the first poll."""

    key: str
    counters: tuple[Counter, ...]
    polls: tuple[Poll, ...]
    reboots: tuple[float, ...] = ()
    booted: float = 0.0
    notes: tuple[str, ...] = field(default=(), compare=False)  # what the scenario plays, for failure messages

    def last_boot(self, t: float) -> float:
        """When the device last booted at or before `t`."""
        return max([self.booted, *(r for r in self.reboots if r <= t)])

    def uptime_ticks(self, t: float) -> int:
        """sysUpTime at `t`, in hundredths of a second (TimeTicks; wraps at 2^32)."""
        return int((t - self.last_boot(t)) * 100) % 2**32

    def counter_start(self, counter: Counter, t: float) -> tuple[float, int]:
        """When the counter last started counting at or before `t` (a boot or a reset), and from what value."""
        boot = self.last_boot(t)
        reset = max((r for r in counter.resets if boot < r <= t), default=None)
        return (reset, 0) if reset is not None else (boot, counter.start_value)

    def octets(self, counter: Counter, t: float) -> int:
        """The value the agent serves at `t`: octets since the counter started, modulo its width."""
        since, first = self.counter_start(counter, t)
        value = first + math.floor(counter.bits_between(since, t) / 8)
        return value % 2**counter.width if counter.width else value
