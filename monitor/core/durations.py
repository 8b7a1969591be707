"""A duration as people say it, for lags that run from seconds to months (a SnapMirror a year behind)."""

from __future__ import annotations


def duration_text(seconds: float) -> str:
    """'45 s', '12 min', '3 h 05 min', '2 d 4 h' (negative durations read as 0 s)."""
    whole = max(0, round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min"
    if whole < 86400:
        return f"{whole // 3600} h {whole % 3600 // 60:02d} min"
    return f"{whole // 86400} d {whole % 86400 // 3600} h"
