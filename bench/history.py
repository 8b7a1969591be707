"""Keep what the bench replaces in docs/performance.md: the page shows each scenario's latest figures, and every
section a run rewrites is appended to bench/results/HISTORY.md first, so no earlier figure is lost."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

HISTORY = Path(__file__).resolve().parent / "results" / "HISTORY.md"
_HEADING = re.compile(r"^## .*$", re.M)


def sections(document: str) -> dict[str, str]:
    """The document's `## ` sections by heading line; the text before the first one (its run timestamps) under ""."""
    starts = [m.start() for m in _HEADING.finditer(document)]
    bounds = [0, *starts, len(document)]
    found: dict[str, str] = {}
    for begin, end in itertools.pairwise(bounds):
        text = document[begin:end].strip("\n")
        heading = text.split("\n", 1)[0] if text.startswith("## ") else ""
        if text:
            found[heading] = text
    return found


def replaced(old: str, new: str) -> list[tuple[str, str]]:
    """(heading, old text) of each section of `old` that `new` changes or drops, in `old`'s order."""
    now = sections(new)
    return [(heading, text) for heading, text in sections(old).items() if now.get(heading) != text]


def keep(old: str, new: str, label: str, path: Path = HISTORY) -> int:
    """Append to `path`, under a heading naming `label`, every section of `old` that `new` replaces; how many."""
    gone = replaced(old, new)
    if not gone:
        return 0
    parts = []
    for heading, text in gone:
        body = text.split("\n", 1)[1].strip("\n") if heading else text
        title = heading[3:] if heading else "run timestamps"
        parts.append(f"## docs/performance.md, {title}: replaced {label}\n\n{body}\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" if path.exists() else "# Benchmark history\n\n"
    path.write_text(before + "\n".join(parts), encoding="utf-8")
    return len(gone)
