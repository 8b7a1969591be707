"""RFC 3414's time window for the engines that send us SNMPv3 traps, which pysnmp leaves open.

For a trap the sending device's engine is authoritative: the receiver keeps its latest boots and time (RFC 3414
3.2.7b) and refuses a message from an older boot, or more than 150 s behind the engine's clock as last seen, so a
captured trap cannot be played again later. pysnmp overwrites its notion with every message's own values before
comparing, which lets any replay through; this keeps ours, updated only by messages that passed authentication and
matched their device."""

from __future__ import annotations

import time

WINDOW_S = 150
BOOTS_MAX = 2147483647
ENGINES_MAX = 100_000  # only engines of configured users reach here; bounded anyway


class EngineClocks:
    """The latest (boots, time) each remote engine sent, and when we saw it."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self._latest: dict[str, tuple[int, int, float]] = {}

    def fresh(self, engine_id: str, boots: int, engine_time: int) -> bool:
        """True when an authenticated message's boots and time are inside the window. A newer message (a later boot,
        or a later time) moves the notion on first, as 3.2.7b says; an older one is compared with the notion as it
        has run on since (at most 150 s behind it)."""
        now = self.clock()
        latest = self._latest.get(engine_id)
        if latest is None or boots > latest[0] or (boots == latest[0] and engine_time > latest[1]):
            if latest is None and len(self._latest) >= ENGINES_MAX:
                self._latest.clear()
            self._latest[engine_id] = (boots, engine_time, now)
            return boots < BOOTS_MAX
        known_boots, known_time, seen_at = latest
        if known_boots == BOOTS_MAX or boots < known_boots:
            return False
        return engine_time >= known_time + (now - seen_at) - WINDOW_S
