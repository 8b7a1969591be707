"""Counters to rates: tell a 32-bit wrap from a reset or reboot, and write a gap rather than a spike."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

WRAP_32 = 2**32


class Reading(NamedTuple):
    """One counter value as read: its width in bits (32 or 64) and when it was read (epoch seconds)."""

    value: int
    bits: int
    at: float


class Rate(NamedTuple):
    """A per-second rate, or None with the reason there is no honest rate for this interval."""

    per_second: float | None
    reason: str = "ok"


FIRST = Rate(None, "first sample")
new_reading = partial(tuple.__new__, Reading)  # Reading((value, bits, at)) built in C: one per counter per poll
_rate = partial(tuple.__new__, Rate)


def counter_rate(
    previous: Reading | None,
    current: Reading,
    *,
    max_per_second: float | None = None,
    rebooted: bool = False,
    tolerance: float = 1.1,
) -> Rate:
    """Rate between two readings of one counter.

    max_per_second is the most the counter can honestly grow (a port's speed in bytes/s); a delta
    above it times `tolerance` is a discontinuity, not traffic. A counter that went backwards is a
    32-bit wrap only when it is 32-bit and the wrapped delta fits that limit (or no limit is
    known and the device did not reboot); otherwise it is a reset and the interval is a gap.
    """
    if previous is None:
        return FIRST
    if rebooted:
        return Rate(None, "device rebooted")
    elapsed = current.at - previous.at
    if elapsed <= 0:
        return Rate(None, "no time elapsed")
    if previous.bits != current.bits:
        return Rate(None, "counter width changed")
    limit = max_per_second * tolerance if max_per_second else None
    delta = current.value - previous.value
    reason = "ok"
    if delta < 0:
        if current.bits != 32:
            return Rate(None, "counter reset")
        delta += WRAP_32
        reason = "32-bit wrap"
        if delta < 0:
            return Rate(None, "counter reset")
    rate = delta / elapsed
    if limit is not None and rate > limit:
        return Rate(None, "counter reset" if reason != "ok" else "above line rate")
    return _rate((rate, reason))
