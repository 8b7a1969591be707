"""What a poll produces: samples bound for InfluxDB, plus per-device counter state kept between polls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import orjson

from collectors.counters import Reading
from collectors.interfaces import KnownPorts


class Sample(NamedTuple):
    """One point: measurement, identifying tags, numeric fields, time in epoch seconds (a cheap immutable record)."""

    measurement: str
    tags: dict[str, str]
    fields: dict[str, float | int]
    time: float


@dataclass
class CounterState:
    """The last counters of one device, so the next poll (in any worker) can compute rates."""

    uptime_ticks: int | None = None
    taken_at: float | None = None
    counters: dict[str, Reading] = field(default_factory=dict)
    ports: KnownPorts | None = None  # names, aliases and speeds as last read (not re-read every poll)
    rows: dict[str, int] = field(default_factory=dict)  # rows of each profile table, to size the next walk

    def reading(self, key: str) -> Reading | None:
        """The counter kept under `key`, as a Reading for rate maths (None when it was not read last time)."""
        return self.counters.get(key)

    def to_json(self) -> bytes:
        """JSON for Redis (orjson: a switch's state is hundreds of counters, and the stdlib's json costs more
        CPU than the poll that read them)."""
        raw = {"uptime_ticks": self.uptime_ticks, "taken_at": self.taken_at, "counters": self.counters}
        if self.ports is not None:
            raw["ports"] = self.ports.to_raw()
        if self.rows:
            raw["rows"] = self.rows
        return orjson.dumps(raw, default=tuple, option=orjson.OPT_NON_STR_KEYS)  # Readings as arrays; ifIndex keys

    @classmethod
    def from_json(cls, text: str | bytes | None) -> CounterState | None:
        """Parse stored state; anything unreadable is treated as no state (the next poll starts fresh)."""
        if not text:
            return None
        try:
            raw = orjson.loads(text)
            kept = raw["counters"]
            if not all(type(k) is str and _is_reading(v) for k, v in kept.items()):
                return None
            counters = {key: _reading(value) for key, value in kept.items()}
            uptime = raw.get("uptime_ticks")
            taken = raw.get("taken_at")
            return cls(
                uptime_ticks=int(uptime) if uptime is not None else None,
                taken_at=float(taken) if taken is not None else None,
                counters=counters,
                ports=KnownPorts.from_raw(raw["ports"]) if "ports" in raw else None,
                rows={str(k): int(v) for k, v in raw.get("rows", {}).items()},
            )
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None


def _reading(value: list) -> Reading:
    """A Reading from a checked [value, bits, at], without NamedTuple's keyword-handling __new__."""
    return tuple.__new__(Reading, value)


def _is_reading(value: object) -> bool:
    return (
        type(value) is list
        and len(value) == 3
        and type(value[0]) is int
        and type(value[1]) is int
        and type(value[2]) in (float, int)
    )
