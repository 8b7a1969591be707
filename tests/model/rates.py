"""The counter rules of docs/graphs.md "Counter rules": every answered poll's reading and the rate (or gap) it gives.

`rates(scenario)` returns, per counter name, one `Rate` per reading kept, in time order. A port's rate is in bits
a second (in_bps: the octets' delta * 8 / span); a string counter's in bytes a second. A gap is a `Rate` whose
`value` is None and whose `reason` is the poller's reason from the docs. Each rate's `span` is the time between the
two readings its delta came from, so `value * span` is exactly what moved (docs/graphs.md "Legend statistics").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tests.model.scenario import Counter, Scenario

TOLERANCE = 1.1  # "the bound times 1.1 (answers come late on a busy device)"
COUNTER32_UNKNOWN_SPEED = 2.5e6  # a second: RFC 2863's promise for a Counter32
SANITY_64_BPS = 1e12  # a 64-bit counter of a port of unknown speed: 1 Tbit/s
WRAP32 = 2**32


# sysUpTime may grow this much less than the time elapsed without a reboot (docs/graphs.md: the poll's own timing,
# an agent's slow clock): 5 s, or a tenth of the time since the last poll if more
def uptime_slack_s(elapsed: float) -> float:
    return max(5.0, elapsed / 10)


@dataclass(frozen=True)
class Rate:
    """One reading's rate: `t` the reading's time (epoch s), `value` (None: a gap), `span` (s, 0 for none),
    `reason` (the gap's), `interval_s` (the poll interval the reading was polled at)."""

    t: float
    value: float | None
    span: float
    reason: str
    interval_s: int


@dataclass(frozen=True)
class _Reading:
    t: float
    uptime: int
    values: dict[str, int]


def bound(counter: Counter) -> float | None:
    """The most the counter can count per second (octets: bytes), None for none."""
    if counter.kind == "string":
        return None
    if counter.speed_bps:
        return counter.speed_bps / 8
    return COUNTER32_UNKNOWN_SPEED if counter.kind == "port32" else SANITY_64_BPS / 8


def _rate(counter: Counter, old: _Reading, new: _Reading, interval_s: int) -> Rate:
    """The rate between two kept readings, or the gap the docs name."""
    span = new.t - old.t
    most = bound(counter)

    def gap(reason: str) -> Rate:
        return Rate(new.t, None, span, reason, interval_s)

    if (new.uptime - old.uptime) / 100 < span - uptime_slack_s(span):
        return gap("reboot")
    if counter.width == 32 and most * span >= WRAP32:
        return gap("interval too long for a 32-bit counter")
    delta = new.values[counter.name] - old.values[counter.name]
    if delta < 0:
        if counter.width == 32 and (delta + WRAP32) / span <= most * TOLERANCE:
            delta += WRAP32
        else:
            return gap("counter reset")
    per_s = delta / span
    if most is not None and per_s > most * TOLERANCE:
        unknown32 = counter.width == 32 and not counter.speed_bps
        return gap("faster than a 32-bit counter of unknown speed can be read" if unknown32 else "above line rate")
    value = per_s * 8 if counter.kind != "string" else per_s
    return Rate(new.t, value, span, "", interval_s)


def rates(scenario: Scenario) -> dict[str, list[Rate]]:
    """Every answered poll's rate (or gap) per counter, as the docs' counter rules give them (worked out once per
    scenario: a harness reads the same scenario's model at many ranges)."""
    return {name: list(found) for name, found in _rates(scenario).items()}


@lru_cache(maxsize=256)
def _rates(scenario: Scenario) -> dict[str, tuple[Rate, ...]]:
    out: dict[str, list[Rate]] = {c.name: [] for c in scenario.counters}
    kept: _Reading | None = None
    for poll in scenario.polls:
        if not poll.answered:
            continue  # no reading: the next rate spans the outage
        reading = _Reading(
            poll.t, scenario.uptime_ticks(poll.t), {c.name: scenario.octets(c, poll.t) for c in scenario.counters}
        )
        if kept is not None and reading.t - kept.t < min(poll.interval_s / 2, 10):
            for c in scenario.counters:  # too close: no rate, the older reading stays
                out[c.name].append(Rate(poll.t, None, 0.0, "readings too close", poll.interval_s))
            continue
        for c in scenario.counters:
            if kept is None:
                out[c.name].append(Rate(poll.t, None, 0.0, "first reading", poll.interval_s))
            else:
                out[c.name].append(_rate(c, kept, reading, poll.interval_s))
        kept = reading
    return {name: tuple(found) for name, found in out.items()}


def good(samples: list[Rate]) -> list[Rate]:
    """The samples that carry a rate (gaps are absent fields: they count nowhere)."""
    return [s for s in samples if s.value is not None]


def nearest_rank_p95(values: list[float]) -> float | None:
    """The 95th percentile as docs/graphs.md defines it: of n values, ascending index ceil(0.95 n) - 1."""
    if not values:
        return None
    return sorted(values)[(95 * len(values) + 99) // 100 - 1]  # ceil(0.95 n) in integers: no float rounding
