"""Device strings as tag values: the one rule every module that turns a device string into a tag applies."""

from __future__ import annotations


def tag_value(text: str) -> str:
    """A device string as it can be stored as a tag: the one thing line protocol cannot carry is a final
    backslash (it would escape the separator after it), so trailing backslashes become slashes. Apply it
    wherever a device string becomes a tag, so the rows and the series agree."""
    if text.endswith("\\"):
        stripped = text.rstrip("\\")
        return stripped + "/" * (len(text) - len(stripped))
    return text
