"""Tell whether a process on this host is gone (exited, or killed and not yet reaped)."""

from __future__ import annotations

import os


def gone(pid: int) -> bool:
    """True when no live process has this pid (a zombie counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return False
