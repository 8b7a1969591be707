"""The writer's queue, bounded in messages (EVENTS_QUEUE_MAX) and in bytes (EVENTS_QUEUE_MAX_BYTES).

A count alone let a flood of large messages hold gigabytes while the database was slow; each message is counted
here by what it holds (its text and its detail, kept as compact JSON text while it waits, and the object around
them), so the memory a receiver can hold for the database is bounded whatever the messages carry."""

from __future__ import annotations

import json
import queue
import sys
import threading
from typing import Any

ITEM_BYTES = 512  # a queued message's object, its small fields and its slot in the queue


def packed(detail: dict) -> str:
    """A detail as it waits in the queue: compact JSON text (a dict of lists of strings holds several times more)."""
    return json.dumps(detail, ensure_ascii=False, separators=(",", ":"), default=str)


def size_of(*texts: str) -> int:
    """The bytes a queued message holds: its texts as Python keeps them, and the rest at a fixed cost."""
    return ITEM_BYTES + sum(sys.getsizeof(text) for text in texts)


class Inbox:
    """A FIFO that refuses what would pass either bound (never blocks the receiving loop)."""

    def __init__(self, max_items: int, max_bytes: int) -> None:
        self._queue: queue.Queue[tuple[Any, int]] = queue.Queue(maxsize=max_items)
        self._lock = threading.Lock()
        self.max_bytes = max_bytes
        self.bytes = 0  # held now
        self.peak = 0  # the most held at once since start (tests, the bench)

    def put(self, item: Any, size: int) -> bool:
        """Queue an item of `size` bytes; False (nothing queued) when it would pass a bound."""
        with self._lock:
            if self.bytes + size > self.max_bytes:
                return False
            try:
                self._queue.put_nowait((item, size))
            except queue.Full:
                return False
            self.bytes += size
            self.peak = max(self.peak, self.bytes)
        return True

    def get(self, timeout: float | None = None) -> Any:
        """The oldest item, waiting up to `timeout` (queue.Empty when none came)."""
        return self._release(self._queue.get(timeout=timeout))

    def get_nowait(self) -> Any:
        return self._release(self._queue.get_nowait())

    def _release(self, entry: tuple[Any, int]) -> Any:
        item, size = entry
        with self._lock:
            self.bytes -= size
        return item

    def empty(self) -> bool:
        return self._queue.empty()

    def qsize(self) -> int:
        return self._queue.qsize()
