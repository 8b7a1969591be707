"""A deadline for blocking socket I/O: a socket timeout bounds each read, not a whole answer, so at the deadline
the socket is shut down and whatever read or write blocks on it returns at once."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


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
