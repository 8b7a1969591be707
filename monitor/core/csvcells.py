"""CSV cells that a spreadsheet opens as text: a cell starting with = + - @ (or a tab or CR) would run as a formula."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutral_cell(value: object) -> object:
    """Text for a CSV cell that a spreadsheet cannot run as a formula (other values as they are)."""
    if isinstance(value, str) and value[:1] in FORMULA_STARTS:
        return "'" + value
    return value
