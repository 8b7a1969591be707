"""Counters to rates: tell a 32-bit wrap from a reset or reboot, and write a gap rather than a spike."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

WRAP_32 = 2**32
MIN_RATE_INTERVAL_S = 10.0  # agents refresh their counters every few seconds: a shorter delta is a false 0 or a spike


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
REBOOTED = Rate(None, "device rebooted")
TOO_SOON = Rate(None, "too soon after the kept reading")  # the caller keeps that reading: the next rate spans both
TOO_LONG = Rate(None, "interval too long for a 32-bit counter")
new_reading = partial(tuple.__new__, Reading)  # Reading((value, bits, at)) built in C: one per counter per poll
_rate = partial(tuple.__new__, Rate)


def min_rate_interval(interval_s: float | None) -> float:
    """The shortest interval a rate may span for a device polled every `interval_s` seconds (0 when unknown)."""
    return min(interval_s / 2, MIN_RATE_INTERVAL_S) if interval_s else 0.0


def counter_rate(
    previous: Reading | None,
    current: Reading,
    *,
    max_per_second: float | None = None,
    rebooted: bool = False,
    tolerance: float = 1.1,
    min_interval: float = 0.0,
    ceiling_only: bool = False,
) -> Rate:
    """Rate between two readings of one counter.

    max_per_second is the most the counter can honestly grow (a port's speed in bytes/s); a delta
    above it times `tolerance` is a discontinuity, not traffic. A 32-bit counter whose interval could
    hold a whole wrap at that rate cannot be read (one wrap or several?): a gap, TOO_LONG. With
    `ceiling_only` the limit is only a sanity bound (a port of unknown speed) and that rule is off.
    A counter that went backwards is a 32-bit wrap only when it is 32-bit and the wrapped delta fits
    that limit (or no limit is known and the device did not reboot); otherwise it is a reset and the
    interval is a gap. Readings less than `min_interval` apart give TOO_SOON: the caller keeps the
    previous reading, so the next rate spans the longer interval.
    """
    if previous is None:
        return FIRST
    if rebooted:
        return REBOOTED
    elapsed = current.at - previous.at
    if elapsed <= 0:
        return Rate(None, "no time elapsed")
    bits = current.bits
    if previous.bits != bits:
        return Rate(None, "counter width changed")
    if elapsed < min_interval:
        return TOO_SOON
    limit = None
    if max_per_second:
        if bits == 32 and max_per_second * elapsed >= 4294967296.0 and not ceiling_only:  # 2**32
            return TOO_LONG
        limit = max_per_second * tolerance
    delta = current.value - previous.value
    reason = "ok"
    if delta < 0:
        if bits != 32:
            return Rate(None, "counter reset")
        delta += WRAP_32
        reason = "32-bit wrap"
        if delta < 0:
            return Rate(None, "counter reset")
    rate = delta / elapsed
    if limit is not None and rate > limit:
        return Rate(None, "counter reset" if reason != "ok" else "above line rate")
    return _rate((rate, reason))
