"""A receiver's counts by reason written to its rows (Receiver, ReceiverCount), with the kernel's drops of its UDP
socket; several receivers, on several machines, may share the tables."""

from __future__ import annotations

from django.db.models import F
from django.utils import timezone

from monitor.events.counting import Counts, kernel_drops
from monitor.events.models import Receiver, ReceiverCount


class CountRows:
    """Adds what a receiver counted since the last flush to its rows; a failed flush keeps its counts for the next."""

    def __init__(self, receiver: str, kind: str, counts: Counts, udp_port=None):
        self.receiver, self.kind, self.counts = receiver, kind, counts
        self.udp_port = udp_port  # callable: the UDP port whose kernel drops are counted (socket_overflow)
        self.started = timezone.now()
        self._kernel_drops: int | None = None

    def flush(self) -> None:
        """Add the counts since the last flush to the rows, and mark the receiver seen."""
        self._count_kernel_drops()
        counts, notes = self.counts.take()
        try:
            self._add(counts, notes)
        except Exception:
            for reason, count in counts.items():  # kept for the next flush, not lost
                self.counts.add(reason, count, notes.get(reason, ""), total=False)
            raise

    def _add(self, counts, notes: dict[str, str]) -> None:
        now = timezone.now()
        receiver, _ = Receiver.objects.update_or_create(
            name=self.receiver, defaults={"kind": self.kind, "last_seen": now, "started_at": self.started}
        )
        for reason, count in counts.items():
            note = notes.get(reason, "")
            row, created = ReceiverCount.objects.get_or_create(
                receiver=receiver, reason=reason, defaults={"count": count, "last_at": now, "note": note}
            )
            if not created:
                changes = {"count": F("count") + count, "last_at": now}
                if reason in notes:
                    changes["note"] = notes[reason]
                ReceiverCount.objects.filter(pk=row.pk).update(**changes)

    def _count_kernel_drops(self) -> None:
        port = self.udp_port() if self.udp_port is not None else None
        drops = kernel_drops(port) if port else None
        if drops is not None:
            if self._kernel_drops is not None and drops > self._kernel_drops:
                self.counts.add("socket_overflow", drops - self._kernel_drops)
            self._kernel_drops = drops
