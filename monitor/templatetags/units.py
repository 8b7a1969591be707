"""Numbers as people read them: SI prefixes with three significant figures, as the graphs' legends show them."""

from __future__ import annotations

import math

from django import template

register = template.Library()
NONE = "\u2013"  # an en dash, as the graphs' legends show a missing value
PREFIXES = ("", "k", "M", "G", "T", "P")


@register.filter
def si(value, unit: str = "") -> str:
    """479945052, "bit/s" -> "480 Mbit/s"; 1536, "B" -> "1.54 kB"; not a number -> an en dash."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return NONE
    if not math.isfinite(number):
        return NONE
    size, step = abs(number), 0
    while size >= 1000 and step < len(PREFIXES) - 1:
        size /= 1000
        step += 1
    # Rounding can carry into the next prefix (999.7 k -> "1000 k"): show it as 1.00 M instead.
    if round(size) >= 1000 and step < len(PREFIXES) - 1:
        size, step = size / 1000, step + 1
    digits = 0 if size >= 100 else 1 if size >= 10 else 2
    shown = f"{math.copysign(size, number):.{digits}f}"
    return f"{shown} {PREFIXES[step]}{unit}".rstrip()
