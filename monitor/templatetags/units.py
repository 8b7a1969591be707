"""Numbers as people read them on server-rendered pages, by docs/ui.md's conventions (static/js/format.js writes the
browser's the same way): three significant figures with an SI prefix, on the unit for bit/s, B, B/s and pkt/s
("480 Mbit/s"), on the number for words ("2.10k IOPS"), never for %, °C and s; milliseconds from 1000 on are
seconds; a missing value is an en dash."""

from __future__ import annotations

import math

from django import template

from monitor.core.durations import duration_text

register = template.Library()
NONE = "\u2013"  # an en dash, as the graphs' legends show a missing value
PREFIXES = ("", "k", "M", "G", "T", "P")
GLUED = ("bit/s", "B", "B/s", "pkt/s")  # symbols a prefix joins ("Mbit/s"); others take it on the number
FIXED = ("%", "°C", "s")  # never prefixed


def _scale(size: float, unit: str) -> tuple[float, str, bool]:
    """(divisor, unit as written, whether a prefix is on the number) for numbers of this size."""
    if unit in FIXED:
        return 1.0, unit, False
    if unit == "ms":
        return (1000.0, "s", False) if size >= 1000 else (1.0, "ms", False)
    step = 0
    while step < len(PREFIXES) - 1 and size >= 1000 ** (step + 1):
        step += 1
    if unit in GLUED or not PREFIXES[step]:
        return 1000.0**step, PREFIXES[step] + unit, False
    return 1000.0**step, PREFIXES[step] + (" " + unit if unit else ""), True


def _figures(size: float) -> str:
    """Three significant figures: 480, 65.0, 2.10, 0.0123; 0 as 0."""
    if size == 0:
        return "0"
    rounded = float(f"{size:.3g}")
    if rounded >= 100:
        return f"{size:.0f}"
    if rounded >= 1:
        return f"{rounded:.{2 - math.floor(math.log10(rounded))}f}"
    return f"{rounded:.3g}"


@register.filter
def si(value, unit: str = "") -> str:
    """479945052, "bit/s" -> "480 Mbit/s"; 1536, "B" -> "1.54 kB"; 2100, "IOPS" -> "2.10k IOPS"; 1250, "ms" ->
    "1.25 s"; not a number -> an en dash."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return NONE
    if not math.isfinite(number):
        return NONE
    size = abs(number)
    divisor, shown, on_number = _scale(size, unit)
    # Rounding can carry into the next prefix (999.7 k -> "1000 k"): show it as 1.00 M instead.
    if unit not in FIXED and float(f"{size / divisor:.3g}") >= 1000:
        divisor, shown, on_number = _scale(size * 1.001, unit)
    text = ("-" if number < 0 and size / divisor else "") + _figures(size / divisor)
    if not shown:
        return text
    return text + shown if on_number else f"{text} {shown}"


@register.filter
def duration(seconds) -> str:
    """Seconds as a duration ("3 h 05 min", "2 d 4 h"); a missing value is an en dash."""
    try:
        return duration_text(float(seconds))
    except (TypeError, ValueError):
        return NONE
