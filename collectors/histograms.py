"""Latency histograms as arrays serve them (NIMBLE-MIB: 13 buckets a direction, each counting the I/Os that took
up to its bound), and the percentile arithmetic on bucket counts: one definition for the poll's alert rules
(monitor/alerts/rules.py) and the ranges' reads (monitor/timeseries/histogram.py)."""

from __future__ import annotations

import math

# (field suffix, upper bound in ms): each bucket holds the I/Os above the previous bound, up to its own
BUCKETS = (
    ("100us", 0.1), ("200us", 0.2), ("500us", 0.5), ("1ms", 1.0), ("2ms", 2.0), ("5ms", 5.0), ("10ms", 10.0),
    ("20ms", 20.0), ("50ms", 50.0), ("100ms", 100.0), ("200ms", 200.0), ("500ms", 500.0), ("over_500ms", math.inf),
)  # fmt: skip
OPS = ("read", "write")
# The bound a percentile in the last bucket (over 500 ms) is given where a number must be finite (an alert's value,
# a webhook's JSON): a page says "> 500 ms" for it.
OVER_LAST_MS = 1000.0


def fields(op: str) -> list[str]:
    """The stored bucket fields of one direction, fastest first."""
    return [f"{op}_lat_{suffix}" for suffix, _ in BUCKETS]


def percentile(counts: list[float], q: float) -> float | None:
    """The upper bound (ms) of the bucket holding the q-th I/O of these bucket counts (inf: over the last bound);
    None when they count no I/O."""
    total = sum(counts)
    if total <= 0:
        return None
    rank = q * total
    running = 0.0
    for (_, bound), count in zip(BUCKETS, counts, strict=True):
        running += count
        if running >= rank:
            return bound
    return BUCKETS[-1][1]


def bound_text(ms: float | None) -> str:
    """A bucket's bound as people read it: "≤ 500 µs", "≤ 2 ms", "> 500 ms"; a dash for no I/O."""
    if ms is None:
        return "\u2013"
    if ms > BUCKETS[-2][1]:
        return f"> {BUCKETS[-2][1]:g} ms"
    return f"\u2264 {ms * 1000:g} \u00b5s" if ms < 1 else f"\u2264 {ms:g} ms"
