"""Process helpers: tell whether a process on this host is gone; set a polling process's garbage collector and
priority."""

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


def lower_priority(nice: int) -> None:
    """Run this process (and what it forks) at CPU niceness `nice`, so that the web pages' requests and InfluxDB's
    answers to them win the CPU when the pollers want it at the same moment (a poll has a minute; a page, 300 ms).

    Linux's autogroups share the CPU between sessions before niceness counts within one, so a process that leads
    its own session (as `make demo` and the bench start the worker) sets its session's nice value too. Never
    raises the priority back; an OS without these knobs is left as it is.
    """
    if nice <= 0:
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except (AttributeError, OSError):
        return
    if os.getsid(0) != os.getpid():
        return  # a session shared with others (a shell): leave its autogroup alone
    try:
        with open("/proc/self/autogroup", "r+", encoding="ascii") as handle:
            if int(handle.read().rsplit("nice", 1)[1]) < nice:
                handle.seek(0)
                handle.write(f"{nice}\n")
    except (OSError, ValueError, IndexError):
        pass


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
