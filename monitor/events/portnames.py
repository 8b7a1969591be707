"""Which of a device's ports a message names: a syslog line about `1/g7` belongs on 1/g7's graphs, not on every
port's. Words are split in one pass (linear in the text, whatever the device serves as port names)."""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORDS = re.compile(r"[^\s,;()<>\[\]{}\"'=|]+")
_TRIM = ".:!?"  # sentence punctuation after a word: "down on 1/g7." names 1/g7


class PortWords:
    """A device's port names as words to look up. Names of digits only ("7") and names with spaces (some ifDescr)
    are left out: a number or phrase in a message is no proof it is about that port."""

    def __init__(self, names: Iterable[str]):
        kept = [name for name in names if name and not name.isdigit() and not any(c.isspace() for c in name)]
        self.exact = {name: name for name in kept}
        self.folded = {name.casefold(): name for name in kept}

    def named(self, text: str) -> list[str]:
        """The ports `text` names as whole words, in the order it names them (each once)."""
        found: dict[str, None] = {}
        if not self.exact:
            return []
        for match in _WORDS.finditer(text):
            word = match.group().strip(_TRIM)
            port = self.exact.get(word) or self.folded.get(word.casefold())
            if port is not None:
                found[port] = None
        return list(found)
