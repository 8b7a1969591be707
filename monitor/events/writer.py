"""A receiver's writer thread: a queue bounded in messages and bytes that drops NEW messages when full (counted),
never stored ones; batches written in one statement; counters flushed and the device directory refreshed every few
seconds."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.db.models import Max, Min

from monitor.events import sources
from monitor.events.counting import Counts
from monitor.events.countrows import CountRows
from monitor.events.decode import PORT_MARK
from monitor.events.inbox import Inbox, packed, size_of
from monitor.events.models import Event
from monitor.events.portnames import PortWords
from monitor.events.record import make, store
from monitor.models import Interface

log = logging.getLogger(__name__)
BATCH = 1000
FLUSH_COUNTS_S = 2.0
CAPACITY_CHECK_S = 60.0


@dataclass(slots=True)
class Incoming:
    """A decoded message matched to its device, on its way to the table (its detail JSON text while queued)."""

    device_id: int
    kind: str
    severity: int
    text: str
    source: str
    received: float  # epoch seconds
    name: str = ""
    facility: int | None = None
    if_index: int | None = None
    port_hint: str = ""
    detail: dict | str = field(default_factory=dict)


class Writer(threading.Thread):
    """The thread between a receiver's loop and the database: batches, counts, the device directory."""

    def __init__(self, receiver: str, kind: str, counts: Counts, on_directory=None, udp_port=None):
        super().__init__(name=f"events-writer-{kind}", daemon=True)
        self.receiver, self.kind, self.counts = receiver, kind, counts
        self.queue = Inbox(settings.EVENTS_QUEUE_MAX, settings.EVENTS_QUEUE_MAX_BYTES)
        self.on_directory = on_directory  # called with each fresh Directory (from this thread)
        self.stopping = threading.Event()
        self.idle = threading.Event()
        self._rows = 0  # events in the table, as last measured plus this writer's since (see _room)
        self._exact = False
        self._next_capacity = 0.0
        self.rows = CountRows(receiver, kind, counts, udp_port)

    def offer(self, item: Incoming) -> bool:
        """From the receiving loop: never blocks; a full queue (in messages or bytes) drops this (new) message and
        counts it (False)."""
        if isinstance(item.detail, dict):
            item.detail = packed(item.detail)
        if self.queue.put(item, size_of(item.text, item.detail, item.name, item.port_hint)):
            self.idle.clear()
            return True
        self.counts.add("queue_full", note=f"{self.queue.qsize()} messages, {self.queue.bytes} bytes waiting")
        return False

    def run(self) -> None:
        next_counts = next_directory = 0.0
        while not (self.stopping.is_set() and self.queue.empty()):
            batch = self._take(0.2)
            now = time.monotonic()
            if now >= next_directory and self._guarded(self.refresh_directory):
                next_directory = now + settings.EVENTS_REFRESH_S
            if batch:
                self._guarded(self.write_retrying, batch)
            if (now >= next_counts or self.stopping.is_set()) and self._guarded(self.flush_counts):
                next_counts = now + FLUSH_COUNTS_S
            if not batch and self.queue.empty():
                self.idle.set()
        self._guarded(self.flush_counts)

    def _guarded(self, step, *args) -> bool:
        """One step of the loop; the database away is logged and tried again later (the receiver keeps answering)."""
        try:
            step(*args)
            return True
        except Exception as exc:
            log.error("events writer: %s: %s: %s", step.__name__, type(exc).__name__, exc)
            close_old_connections()
            time.sleep(0.2)
            return False

    def _take(self, wait: float) -> list[Incoming]:
        try:
            batch = [self.queue.get(timeout=wait)]
        except queue.Empty:
            return []
        while len(batch) < BATCH:
            try:
                batch.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def write_retrying(self, batch: list[Incoming], attempts: int = 4) -> None:
        """A locked or restarting database gets a few tries (a second or so); then the batch is counted lost
        (write_failed), each message once: what did not fit under the bound was already counted store_full."""
        fitted = None
        for attempt in range(attempts):
            try:
                if fitted is None:
                    fitted = self._fit(batch)
                self._insert(fitted)
                return
            except Exception as exc:
                if not isinstance(exc, DatabaseError) or attempt == attempts - 1:
                    self.counts.add("write_failed", len(batch if fitted is None else fitted))
                    raise
                log.warning("events writer: %s, trying again", exc)
                close_old_connections()
                time.sleep(0.25 * (attempt + 1))

    def refresh_directory(self) -> None:
        directory = sources.load(settings.EVENTS_TRAP_RELAYS)
        if self.on_directory is not None:
            self.on_directory(directory)

    def write(self, batch: list[Incoming]) -> list[Event]:
        """Store a batch: what does not fit under EVENTS_MAX_STORED is refused (counted), the rest inserted."""
        return self._insert(self._fit(batch))

    def _fit(self, batch: list[Incoming]) -> list[Incoming]:
        room = self._room(len(batch))
        if room < len(batch):
            self.counts.add("store_full", len(batch) - room)
        return batch[:room]

    def _insert(self, batch: list[Incoming]) -> list[Event]:
        """Ports named by ifIndex, by name, or in the text (a syslog line about one port); one INSERT for the batch."""
        if not batch:
            return []
        wanted = {i.device_id for i in batch}
        ports: dict[int, dict[int, str]] = {}
        names: dict[int, set[str]] = {}
        for device_id, if_index, name in Interface.objects.filter(device_id__in=wanted).values_list(
            "device_id", "if_index", "name"
        ):
            ports.setdefault(device_id, {})[if_index] = name
            names.setdefault(device_id, set()).add(name)
        words = {device_id: PortWords(found) for device_id, found in names.items()}
        rows = []
        for item in batch:
            port = ports.get(item.device_id, {}).get(item.if_index, "") if item.if_index is not None else ""
            if not port and item.port_hint in names.get(item.device_id, ()):
                port = item.port_hint
            detail = json.loads(item.detail) if isinstance(item.detail, str) else item.detail
            if not port and item.if_index is None:
                mentioned = words[item.device_id].named(item.text) if item.device_id in words else []
                port = mentioned[0] if mentioned else ""
                if len(mentioned) > 1:  # about several ports: shown on each of their graphs
                    detail = detail | {"ports": mentioned[:32]}
            shown = port or (f"ifIndex {item.if_index}" if item.if_index is not None else "the port")
            rows.append(
                make(
                    item.device_id,
                    item.kind,
                    item.text.replace(PORT_MARK, shown),
                    source=item.source,
                    severity=item.severity,
                    time=datetime.fromtimestamp(item.received, UTC),
                    name=item.name,
                    port=port,
                    facility=item.facility,
                    detail=detail,
                )
            )
        saved = store(rows)
        self._rows += len(saved)
        self.counts.add("stored", len(saved))
        return saved

    def _room(self, wanted: int) -> int:
        """Rows that still fit under EVENTS_MAX_STORED. The table is measured every CAPACITY_CHECK_S by its id span
        (an upper bound, cheap), and counted exactly only when the span says it may be full; this writer's own rows
        are added in between. Nothing stored is ever deleted to make room."""
        now, limit = time.monotonic(), settings.EVENTS_MAX_STORED
        if now >= self._next_capacity:
            self._next_capacity = now + CAPACITY_CHECK_S
            span = Event.objects.aggregate(low=Min("id"), high=Max("id"))
            self._rows = 0 if span["low"] is None else span["high"] - span["low"] + 1
            self._exact = False
        if self._rows + wanted > limit and not self._exact:
            self._rows, self._exact = Event.objects.count(), True
        room = max(limit - self._rows, 0)
        if room < wanted:
            log.warning("events: %d stored, the limit EVENTS_MAX_STORED: new events are refused", self._rows)
        return room

    def flush_counts(self) -> None:
        """Add this receiver's counts since the last flush to its rows (several receivers may share the table)."""
        self.rows.flush()

    def stop(self, timeout: float = 10.0) -> None:
        self.stopping.set()
        self.join(timeout)
