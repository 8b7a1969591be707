"""What both receivers share: an asyncio loop (its own thread for tests, the main thread for the commands), the
writer thread, the counters, the per-source bound and the device directory."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading

from django.conf import settings

from monitor.events import sources
from monitor.events.counting import Counts, SourceRate
from monitor.events.writer import Incoming, Writer

log = logging.getLogger(__name__)


class Listener:
    """A receiver's frame: the loop, the writer thread, the counts, the rate bound and the device directory."""

    kind = ""

    def __init__(self, bind: str, port: int, name: str = ""):
        self.bind, self.port = bind, port
        self.name = name or f"{self.kind}@{socket.gethostname()}:{port}"
        self.counts = Counts()
        self.rate = SourceRate(settings.EVENTS_SOURCE_RATE, settings.EVENTS_SOURCE_BURST)
        self.directory = sources.Directory()
        self.writer = Writer(
            self.name, self.kind, self.counts, on_directory=self._directory_arrived, udp_port=lambda: self.bound_port
        )
        self.bound_port = 0  # set once the UDP socket is bound
        self.loop: asyncio.AbstractEventLoop | None = None
        self.ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self.error: BaseException | None = None

    # The part each receiver writes.
    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    def directory_changed(self, directory: sources.Directory) -> None:
        """On the loop: a fresh directory is in place (the trap receiver re-reads its credentials here)."""

    # Shared.
    def _directory_arrived(self, directory: sources.Directory) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self._swap, directory)
        else:
            self._swap(directory)

    def _swap(self, directory: sources.Directory) -> None:
        self.directory = directory
        try:
            self.directory_changed(directory)
        except Exception as exc:
            log.error("%s: could not apply the device directory: %s", self.name, type(exc).__name__)  # no secret

    def admit(self, address: str, size: int) -> tuple[sources.Entry, ...] | None:
        """The cheap checks before any decoding: size, a known source, its rate. None: dropped (counted)."""
        if size > settings.EVENTS_MAX_MESSAGE_BYTES:
            self.counts.add("oversized", note=f"{size} bytes from {address}")
            return None
        address = sources.normal_address(address)
        found = self.directory.candidates(address)
        if not found and address not in self.directory.relays:
            self.counts.add("unknown_source", note=f"last from {address}")
            return None
        if not self.rate.allow(address):
            self.counts.add("rate_limited", note=f"last from {address}")
            return None
        return found

    def deliver(self, item: Incoming) -> bool:
        """Hand a decoded, matched message to the writer (never blocks; a full queue counts it and says False).
        A message the bounds cut (its detail's "truncated") is counted so once it is taken."""
        cut = item.detail.get("truncated") if isinstance(item.detail, dict) else None
        source = item.detail.get("from", "?") if cut else ""
        taken = self.writer.offer(item)  # the detail is JSON text from here on
        if taken and cut:
            self.counts.add("truncated", note=f"last from {source}: " + ", ".join(f"{k} {v}" for k, v in cut.items()))
        return taken

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        await self.open()
        self.writer.start()
        self.ready.set()
        try:
            await self._stop.wait()
        finally:
            await self.close()
            self.writer.stop()

    def start(self, timeout: float = 30.0) -> Listener:
        """Run in a background thread (tests, the demo); returns once the sockets are bound."""

        def run() -> None:
            try:
                self.writer.refresh_directory()  # the first directory before the first message (outside the loop)
                asyncio.run(self._main())
            except BaseException as exc:
                self.error = exc
                self.ready.set()
                log.exception("%s stopped", self.name)

        self._thread = threading.Thread(target=run, name=f"events-{self.kind}", daemon=True)
        self._thread.start()
        if not self.ready.wait(timeout) or self.error is not None:
            raise RuntimeError(f"{self.name} did not start: {self.error}")
        return self

    def stop(self, timeout: float = 15.0) -> None:
        """Stop the thread started by start(): the sockets close and what is queued is written."""
        if self.loop is not None and self._stop is not None and not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def serve_forever(self) -> None:
        """The command's main loop: until SIGTERM or Ctrl-C, then what is queued is written before exit."""

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(signum, lambda: self._stop and self._stop.set())
            await self._main()

        self.writer.refresh_directory()
        asyncio.run(main())

    def refresh(self, timeout: float = 10.0) -> None:
        """Read the devices again now (tests, after adding one) instead of at the next EVENTS_REFRESH_S."""
        directory = sources.load(settings.EVENTS_TRAP_RELAYS)
        done = threading.Event()

        def swap() -> None:
            self._swap(directory)
            done.set()

        self.loop.call_soon_threadsafe(swap)
        done.wait(timeout)

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """For tests: wait until every admitted message has been written."""
        return self.writer.idle.wait(timeout)

    def flush_counts(self) -> None:
        """Write the counts gathered since the last flush now (tests; the writer does it every 2 s)."""
        self.writer.flush_counts()
