"""Signals other parts hang off the poll path (alerts evaluate here), so polling stays unaware of them."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.dispatch import Signal


@dataclass(frozen=True)
class PollEvent:
    """One device's poll: its row (status fields as just recorded), its samples, and its safe error ("" if ok)."""

    device: object
    samples: list = field(default_factory=list)
    error: str = ""
    rebooted: bool = False  # sysUpTime says the device restarted since the last poll (an event on its timeline)
    unread: frozenset = frozenset()  # measurements this poll could not read whole: what it lacks of them is not gone


# Sent once per batch of polls, after their samples are written (or spooled) and their rows updated.
# Argument: polls (list[PollEvent]).
polls_finished = Signal()
