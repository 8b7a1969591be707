"""A deadline for blocking socket I/O: a socket timeout bounds each read, not a whole answer, so at the deadline
the socket is shut down and whatever read or write blocks on it returns at once. A send's deadline ends inside its
claim's lease (`lease_left`), so no other worker claims the row while it is being sent."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from datetime import datetime

from django.utils import timezone

LEASE_MARGIN_S = 2.0  # a send ends this long before its claim's lease does: no other worker takes the row meanwhile


def lease_left(claimed_until: datetime | None, margin: float = LEASE_MARGIN_S) -> float:
    """Seconds a send may take: until `margin` before the claim's lease ends (0 or less: no time; no claim: 0)."""
    return (claimed_until - timezone.now()).total_seconds() - margin if claimed_until else 0.0


def overrun(seconds: float, who: str) -> str:
    """Why a send gave up at its deadline."""
    return f"no complete answer within {max(round(seconds), 1)} s (the {who} is too slow)"


class Watchdog:
    """Shuts a socket down at the deadline, so a blocked read returns at once; `fired` says it did."""

    def __init__(self, sock: socket.socket, deadline: float):
        self.fired = False
        self._handle = sock.dup()  # the same connection: still reachable once TLS has wrapped the socket
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(deadline - time.monotonic(), 0), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        with self._lock:
            if self._handle.fileno() == -1:
                return  # the send ended first
            self.fired = True
            with contextlib.suppress(OSError):  # the peer closed it already
                self._handle.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._handle.close()
