"""Per-reason counters of what a receiver stored or dropped, and the per-source rate bound that protects the rest."""

from __future__ import annotations

import threading
import time
from collections import Counter

# Every reason a message can end with, as the receivers' panel names it.
REASONS = {
    "stored": "stored",
    "truncated": "stored, but cut to the bounds (varbinds, value or text lengths): the event's detail says what",
    "malformed": "malformed (not a valid SNMP or syslog message)",
    "oversized": "larger than EVENTS_MAX_MESSAGE_BYTES",
    "unknown_source": "from an address no device has",
    "ambiguous_source": "several devices at that address, none told apart",
    "bad_community": "unknown community",
    "credential_mismatch": "a credential that is not this device's",
    "v3_unknown_user": "SNMPv3: unknown user",
    "v3_wrong_digest": "SNMPv3: wrong authentication key",
    "v3_decryption": "SNMPv3: wrong privacy key",
    "v3_unknown_engine": "SNMPv3: unknown engine ID (each inform sender's discovery counts here too)",
    "v3_time_window": "SNMPv3: outside the time window (a clock far off, or an old trap played again)",
    "v3_unsupported_level": "SNMPv3: security level not allowed for the user",
    "v3_level_too_low": "SNMPv3: below the security level configured for the user (no key, or no privacy)",
    "unsupported_pdu": "not a trap or an inform",
    "rate_limited": "over the per-source rate (EVENTS_SOURCE_RATE)",
    "queue_full": "the writer's queue was full (EVENTS_QUEUE_MAX messages or EVENTS_QUEUE_MAX_BYTES)",
    "store_full": "EVENTS_MAX_STORED events are kept already",
    "socket_overflow": "dropped by the kernel: socket buffer full",
    "too_many_connections": "TCP connection refused: EVENTS_SYSLOG_MAX_CONNECTIONS open (or _PER_SOURCE from it)",
    "write_failed": "the database refused the batch",
}
# Why a message could not be read, in words for the receivers' panel: never an exception's class name.
_UNREADABLE = (
    (UnicodeError, "text not valid in its encoding"),
    (LookupError, "a value outside what the standard defines"),
    (TypeError, "a field of the wrong type"),
    ((ValueError, ArithmeticError), "a value out of its range"),
)


def unreadable(exc: BaseException) -> str:
    """Why a message that passed the wire checks could not be decoded, in plain words."""
    what = next((words for kinds, words in _UNREADABLE if isinstance(exc, kinds)), "")
    return f"could not be decoded ({what})" if what else "could not be decoded"


DROPPED = [reason for reason in REASONS if reason not in ("stored", "truncated")]  # truncated ones are stored too


class Counts:
    """Counts and a last note per reason, taken (and reset) by the writer thread every few seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[str] = Counter()
        self._notes: dict[str, str] = {}
        self.totals: Counter[str] = Counter()  # since start, for tests and the command's last words

    def add(self, reason: str, count: int = 1, note: str = "", total: bool = True) -> None:
        with self._lock:
            self._counts[reason] += count
            if total:
                self.totals[reason] += count
            if note:
                self._notes[reason] = note[:300]

    def take(self) -> tuple[Counter[str], dict[str, str]]:
        with self._lock:
            counts, notes = self._counts, self._notes
            self._counts, self._notes = Counter(), {}
        return counts, notes


class SourceRate:
    """A token bucket per source address: one chatty device cannot fill the queue that the others share."""

    def __init__(self, rate: float, burst: int, clock=time.monotonic) -> None:
        self.rate, self.burst, self.clock = float(rate), float(burst), clock
        self._buckets: dict[str, list[float]] = {}

    def allow(self, source: str) -> bool:
        """Take a token for one message from this source; False when its bucket is empty (rate-limited)."""
        now = self.clock()
        bucket = self._buckets.get(source)
        if bucket is None:
            if len(self._buckets) > 100_000:  # only known devices get here; keep the table bounded anyway
                self._buckets.clear()
            bucket = self._buckets[source] = [self.burst, now]
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if tokens < 1.0:
            bucket[0] = tokens
            return False
        bucket[0] = tokens - 1.0
        return True


def kernel_drops(port: int, proto: str = "udp") -> int | None:
    """Datagrams the kernel dropped for our socket (receive buffer full): the drops column of /proc/net/udp(6)
    for the local port (Linux; None elsewhere or when the socket is not found)."""
    total, found = 0, False
    for name in (f"/proc/net/{proto}", f"/proc/net/{proto}6"):
        try:
            with open(name, encoding="ascii") as table:
                next(table)
                for line in table:
                    fields = line.split()
                    if len(fields) > 12 and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        total, found = total + int(fields[-1]), True
        except (OSError, ValueError, StopIteration):
            continue
    return total if found else None
