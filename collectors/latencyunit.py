"""Which unit a latency sum counts, decided by the device's own average-latency gauges, not assumed.

Arrays such as EqualLogic serve a cumulative latency sum and an operation count (their ratio is the mean latency
of the interval) and also a gauge of the average latency in milliseconds. The sum's unit is disputed (the MIB text
says milliseconds; real values are only plausible as microseconds), so each candidate unit is tried: the one whose
Δsum/Δops agrees with the gauge on more rows than any other wins. A gauge is an integer of milliseconds averaged
over the array's own window, so "agrees" allows the rounding and half to one and a half times the value (see
`agrees`); candidates a thousand times apart only both agree on rows below a millisecond, which say nothing: when
no unit wins on more rows, the unit kept from earlier polls, or the profile's default, stays.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median


@dataclass(frozen=True)
class UnitDecision:
    """The scale applied to Δsum/Δops, the unit it stands for, and the evidence of this poll."""

    unit: str
    scale: float
    decided: bool  # this poll's rows decided it (else it is the kept or default unit)
    rows_checked: int
    rows_agreeing: int
    sum_per_op: float | None  # median Δsum/Δops of the rows checked, unscaled
    gauge_ms: float | None  # median gauge of those rows


def agrees(value_ms: float, gauge_ms: float) -> bool:
    """A latency worked out from the counters agrees with the device's gauge: a whole number of milliseconds
    (rounded or cut, so g stands for [g - 0.5, g + 1)), averaged over the array's own window (half to one and a
    half times ours). A gauge of 0 says "below a millisecond"."""
    if gauge_ms < 0.5:
        return value_ms < 1.5
    return 0.5 * (gauge_ms - 0.5) <= value_ms <= 1.5 * (gauge_ms + 1.0)


def decide(
    pairs: list[tuple[float, float]], units: tuple[tuple[str, float], ...], kept: str, default: str
) -> UnitDecision:
    """The unit for this poll from (Δsum/Δops, gauge ms) per row; `kept`: the unit decided earlier ("" if none)."""
    scales = dict(units)
    votes = {name: sum(1 for raw, gauge in pairs if agrees(raw * scale, gauge)) for name, scale in units}
    best = max(votes.values(), default=0)
    winners = [name for name, count in votes.items() if count == best]
    raw = median(r for r, _ in pairs) if pairs else None
    gauge = median(g for _, g in pairs) if pairs else None
    if best > 0 and len(winners) == 1:
        unit = winners[0]
        return UnitDecision(unit, scales[unit], True, len(pairs), best, raw, gauge)
    unit = kept if kept in scales else default
    return UnitDecision(unit, scales[unit], False, len(pairs), votes.get(unit, 0), raw, gauge)
