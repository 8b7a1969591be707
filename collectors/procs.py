"""Process helpers: tell whether a process on this host is gone; set a polling process's garbage collector."""

from __future__ import annotations

import gc
import os

# Young collections every 50,000 new container objects instead of 700, and older ones rarely: see tune_gc.
GC_THRESHOLDS = (50_000, 50, 100)


def tune_gc_for_polling() -> None:
    """Freeze what the process has loaded so far and look for reference cycles less often.

    A poll makes thousands of short-lived objects without cycles (freed by reference counting), and a batch
    keeps its devices' results alive until it ends; with the default thresholds the collector kept scanning
    them and every module Django loaded: about a quarter of a switch poll's CPU (docs/performance.md).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


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
