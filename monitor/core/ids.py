"""Row ids from requests: ASCII digits within the 64-bit signed range, so a lookup can never raise."""

from __future__ import annotations

MAX_ID = 2**63 - 1  # the widest integer column of SQLite and PostgreSQL


def parse_id(raw: str | None) -> int | None:
    """The id `raw` names, or None when it is not 1 to 19 ASCII digits at most MAX_ID.

    str.isdigit() is true for '²', int() reads fullwidth digits or ' 1_0 ', and a 30-digit id
    overflows the database: a 500 each time. Only what this accepts reaches a query.
    """
    text = raw if isinstance(raw, str) else ""
    if not 0 < len(text) <= 19 or not text.isascii() or not text.isdigit():
        return None
    number = int(text)
    return number if number <= MAX_ID else None
