"""Counters to rates: tell a 32-bit wrap from a reset or reboot, and write a gap rather than a spike or an alias."""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

WRAP_32 = 2**32
UNKNOWN_WIDTH = 0  # Reading.bits of a number the device did not type as a counter (a string, a Gauge): never wraps
# The most a Counter32 with no line rate is trusted to count per second: RFC 2863 (section 3.1.6) wants 64-bit
# counters on interfaces faster than 20 Mbit/s, where 2^32 bytes take 28.6 minutes. Up to this a wrap is told from a
# reset, and an interval shorter than 2^32 / 2.5 M = 28.6 minutes holds one wrap at most (docs/graphs.md).
COUNTER32_MAX_PER_SECOND = 20_000_000 / 8
MIN_RATE_INTERVAL_S = 10.0  # agents refresh their counters every few seconds: a shorter delta is a false 0 or a spike


class Reading(NamedTuple):
    """One counter value as read: its width in bits (32 or 64; UNKNOWN_WIDTH when the device did not say) and when
    it was read (epoch seconds)."""

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
RESET = Rate(None, "counter reset")
WRAPPED = "32-bit wrap"  # the reason of a rate across a wrap
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
    above it times `tolerance` is a discontinuity, not traffic. With `ceiling_only` it is only a sanity
    bound (a port of unknown speed), not a line rate. A 32-bit counter is read against its line rate,
    else COUNTER32_MAX_PER_SECOND: an interval that could hold a whole wrap at that rate cannot be read
    (one wrap or several?), a gap, TOO_LONG; a rate above it is a gap too. A counter that went backwards
    is a 32-bit wrap only when it is 32-bit and the wrapped delta fits that rate; otherwise (64 bits, a
    width the device did not say, a wrap too fast) it is a reset and the interval is a gap. Readings less
    than `min_interval` apart give TOO_SOON: the caller keeps the previous reading, so the next rate spans
    the longer interval.
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
    limit, over = max_per_second, "above line rate"
    if bits == 32:
        if not limit or (ceiling_only and limit > COUNTER32_MAX_PER_SECOND):  # no line rate: what 32 bits can hold
            limit, over = COUNTER32_MAX_PER_SECOND, "faster than a 32-bit counter of unknown speed can be read"
        if limit * elapsed >= 4294967296.0:  # 2**32
            return TOO_LONG
    delta = current.value - previous.value
    reason = "ok"
    if delta < 0:
        if bits != 32:
            return RESET
        delta += WRAP_32
        reason = WRAPPED
        if delta < 0:
            return RESET
    rate = delta / elapsed
    if limit and rate > limit * tolerance:
        return RESET if reason != "ok" else Rate(None, over)
    return _rate((rate, reason))
