"""What a poll produces: samples bound for InfluxDB, plus per-device counter state kept between polls."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

import orjson

from collectors.counters import Reading
from collectors.interfaces import KnownPorts
from collectors.rollup import Windows


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
    windows: Windows = field(default_factory=Windows)  # open 5-minute and 1-hour rollup windows (collectors/rollup)
    units: dict[str, str] = field(
        default_factory=dict
    )  # unit-checked ratios: the unit decided (collectors/latencyunit)
    optics: dict = field(default_factory=dict)  # which port each optic sensor is (collectors/optics.py's plan)

    def reading(self, key: str) -> Reading | None:
        """The counter kept under `key`, as a Reading for rate maths (None when it was not read last time)."""
        return self.counters.get(key)

    def to_json(self) -> bytes:
        """JSON for Redis, the counters as columns (keys, values, widths, times): a switch keeps hundreds of
        counters, and reading them back must cost less than the poll that read them."""
        keys = list(self.counters)
        values, bits, times = zip(*self.counters.values(), strict=True) if keys else ((), (), ())
        raw = {"uptime_ticks": self.uptime_ticks, "taken_at": self.taken_at, "keys": keys}
        raw |= {"values": values, "bits": bits, "times": times}
        if self.ports is not None:
            raw["ports"] = self.ports.to_raw()
        if self.rows:
            raw["rows"] = self.rows
        if self.windows.series or self.windows.pending:
            raw["windows"] = self.windows.to_raw()
        if self.units:
            raw["units"] = self.units
        if self.optics:
            raw["optics"] = self.optics
        return orjson.dumps(raw, option=orjson.OPT_NON_STR_KEYS)  # ifIndex keys in the port knowledge

    @classmethod
    def from_json(cls, text: str | bytes | None) -> CounterState | None:
        """Parse stored state; anything unreadable is treated as no state (the next poll starts fresh)."""
        if not text:
            return None
        try:
            raw = orjson.loads(text)
            keys, values, bits, times = raw["keys"], raw["values"], raw["bits"], raw["times"]
            if not (len(keys) == len(values) == len(bits) == len(times)):
                return None
            if not (_only(keys, str) and _only(values, int) and _only(bits, int) and _only(times, float, int)):
                return None
            uptime = raw.get("uptime_ticks")
            taken = raw.get("taken_at")
            return cls(
                uptime_ticks=int(uptime) if uptime is not None else None,
                taken_at=float(taken) if taken is not None else None,
                counters=dict(zip(keys, map(_reading, zip(values, bits, times, strict=True)), strict=True)),
                ports=KnownPorts.from_raw(raw["ports"]) if "ports" in raw else None,
                rows={str(k): int(v) for k, v in raw.get("rows", {}).items()},
                windows=Windows.from_raw(raw.get("windows")),
                units={str(k): str(v) for k, v in (raw.get("units") or {}).items()},
                optics=raw["optics"] if isinstance(raw.get("optics"), dict) else {},
            )
        except (orjson.JSONDecodeError, ValueError, KeyError, TypeError, IndexError, AttributeError):
            return None


_reading = partial(tuple.__new__, Reading)  # a Reading from a checked (value, bits, at), in C


def _only(items: list, *types: type) -> bool:
    """Every item is of one of these exact types (a list of a state written by hand or by an old version is not)."""
    return type(items) is list and set(map(type, items)) <= set(types)
