"""What a poll produces: samples bound for InfluxDB, plus per-device counter state kept between polls."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import NamedTuple

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

    def reading(self, key: str) -> Reading | None:
        """The counter kept under `key`, as a Reading for rate maths (None when it was not read last time)."""
        return self.counters.get(key)

    def to_json(self) -> str:
        raw = {"uptime_ticks": self.uptime_ticks, "taken_at": self.taken_at, "counters": self.counters}
        if self.ports is not None:
            raw["ports"] = self.ports.to_raw()
        return json.dumps(raw, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes | None) -> CounterState | None:
        """Parse stored state; anything unreadable is treated as no state (the next poll starts fresh)."""
        if not text:
            return None
        try:
            raw = json.loads(text)
            counters = {str(k): Reading(int(v[0]), int(v[1]), float(v[2])) for k, v in raw["counters"].items()}
            uptime = raw.get("uptime_ticks")
            taken = raw.get("taken_at")
            return cls(
                uptime_ticks=int(uptime) if uptime is not None else None,
                taken_at=float(taken) if taken is not None else None,
                counters=counters,
                ports=KnownPorts.from_raw(raw["ports"]) if "ports" in raw else None,
            )
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None
