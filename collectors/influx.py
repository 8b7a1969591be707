"""Write samples to InfluxDB 2.x; while it is away, keep them in a bounded on-disk spool and replay later."""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from influxdb_client import InfluxDBClient, WritePrecision
from influxdb_client.client.write_api import SYNCHRONOUS

from collectors.lineprotocol import format_samples
from collectors.procs import gone
from collectors.samples import Sample

log = logging.getLogger(__name__)


TIERS = ("raw", "5m", "1h")  # where a line goes: the raw samples' bucket, or a rollup tier's (collectors/rollup)


def _oldest_ms(lines: list[str]) -> int | None:
    """The oldest timestamp (ms, the precision written) of line-protocol lines; None when one has none."""
    try:
        return min(int(line.rpartition(" ")[2]) for line in lines)
    except ValueError:
        return None


def _tier_of(path: Path) -> str:
    """The tier a spool file's lines belong to (`<ns>-<pid>-<tier>.lp`; older files without one are raw)."""
    tier = path.name.split(".", 1)[0].rsplit("-", 1)[-1]
    return tier if tier in TIERS else "raw"


class InfluxWriteError(Exception):
    """InfluxDB refused or could not take a write (the message holds no token); status is the HTTP status or None."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status

    @property
    def invalid(self) -> bool:
        """InfluxDB read the lines and refused them as invalid: sending them again can never succeed."""
        return self.status in INVALID_STATUSES


INVALID_STATUSES = (400, 422)
REJECTED_DIR = "rejected"


class WriteResult(enum.Enum):
    """What became of a write: in InfluxDB, in the spool for a later replay, refused as invalid (kept aside in
    spool/rejected for inspection, never replayed), or lost (spool full or unwritable)."""

    WRITTEN = "written"
    SPOOLED = "spooled"
    REJECTED = "rejected"
    LOST = "lost"

    def __bool__(self) -> bool:
        """True only when written, as the bool write_lines used to return."""
        return self is WriteResult.WRITTEN

    def worse(self, other: WriteResult) -> WriteResult:
        """The worse of two results (lost over spooled over written), for lines of one device sent in two writes."""
        order = (WriteResult.WRITTEN, WriteResult.SPOOLED, WriteResult.REJECTED, WriteResult.LOST)
        return max(self, other, key=order.index)


class InfluxWriter:
    """Synchronous batched writer with a spool directory for outages."""

    def __init__(
        self,
        url: str,
        token: str,
        org: str,
        bucket: str,
        spool_dir: Path,
        *,
        timeout_ms: int = 10000,
        spool_max_bytes: int = 512 * 1024 * 1024,
        rollup_buckets: dict[str, str] | None = None,
        on_replayed: Callable[[str, int | None], None] | None = None,
    ):
        self.org = org
        self.bucket = bucket
        self.buckets = {"raw": bucket, **(rollup_buckets or {})}  # tier -> bucket
        self.spool_dir = Path(spool_dir)
        self.spool_max_bytes = spool_max_bytes
        self.on_replayed = on_replayed  # told each replayed file's tier and oldest time (ms): written late
        self._client = InfluxDBClient(url=url, token=token, org=org, timeout=timeout_ms)
        self._api = self._client.write_api(write_options=SYNCHRONOUS)

    def close(self) -> None:
        self._client.close()

    def write(self, samples: Iterable[Sample]) -> bool:
        """Write samples now, or spool them if InfluxDB is unavailable. Returns True when written."""
        return self.write_lines(format_samples(samples)) is WriteResult.WRITTEN

    def write_lines(self, lines: list[str], tier: str = "raw") -> WriteResult:
        """Write line protocol to a tier's bucket now, or spool it if InfluxDB is unavailable; says which, or that
        the lines are lost."""
        if not lines:
            return WriteResult.WRITTEN
        try:
            self._post(lines, tier)
        except InfluxWriteError as exc:
            if exc.invalid:
                self._reject(lines, exc)
                return WriteResult.REJECTED
            if self._spool(lines, tier):
                log.warning("InfluxDB write failed, %d lines spooled: %s", len(lines), exc)
                return WriteResult.SPOOLED
            log.error("InfluxDB write failed and the spool cannot keep them: %d lines lost: %s", len(lines), exc)
            return WriteResult.LOST
        self.replay_spool()
        return WriteResult.WRITTEN

    def _post(self, lines: list[str], tier: str = "raw") -> None:
        bucket = self.buckets.get(tier)
        if bucket is None:  # a rollup line with no bucket configured for its tier: a caller's mistake, said once
            raise InfluxWriteError(f"no bucket for the {tier} tier", 422)
        try:
            self._api.write(bucket=bucket, org=self.org, record="\n".join(lines), write_precision=WritePrecision.MS)
        except Exception as exc:  # urllib3 and ApiException both land here
            status = getattr(exc, "status", None)
            reason = getattr(exc, "reason", None) or type(exc).__name__
            raise InfluxWriteError(f"HTTP {status} {reason}" if status else str(reason), status) from None

    def spooled_bytes(self) -> int:
        return self.spool_summary()[0]

    def spool_summary(self) -> tuple[int, float | None]:
        """Bytes waiting in the spool, and the modification time of its oldest file (None when empty)."""
        total, oldest = 0, None
        for path in self._spool_files():
            with contextlib.suppress(FileNotFoundError):  # claimed by another worker since the listing
                stat = path.stat()
                total += stat.st_size
                oldest = stat.st_mtime if oldest is None else min(oldest, stat.st_mtime)
        return total, oldest

    def _spool_files(self) -> list[Path]:
        if not self.spool_dir.is_dir():
            return []
        return sorted(p for p in self.spool_dir.glob("*.lp") if p.is_file())

    def _spool(self, lines: list[str], tier: str = "raw") -> bool:
        """Keep lines in a new spool file; False (said in the log) when the bound is reached or the disk refuses."""
        data = ("\n".join(lines) + "\n").encode()
        name = f"{time.time_ns():020d}-{os.getpid()}-{tier}.lp"
        tmp = self.spool_dir / (name + ".tmp")
        try:
            if self.spooled_bytes() + len(data) > self.spool_max_bytes:
                log.error(
                    "spool %s reached its bound of %d bytes: %d new lines dropped, the files already spooled are kept",
                    self.spool_dir,
                    self.spool_max_bytes,
                    len(lines),
                )
                return False
            self.spool_dir.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            tmp.rename(self.spool_dir / name)
        except OSError as exc:  # disk full or read-only: say so; polling of other devices goes on
            log.error("cannot spool %d lines to %s: %s", len(lines), self.spool_dir, exc.strerror or exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
            return False
        return True

    def replay_spool(self, limit_files: int = 50) -> int:
        """Send spooled files oldest first; each is claimed by rename so two workers never send one twice."""
        self._reclaim_orphans()
        sent = 0
        for path in self._spool_files()[:limit_files]:
            claimed = path.with_suffix(f".claimed-{os.getpid()}")
            try:
                path.rename(claimed)
            except FileNotFoundError:
                continue  # another worker took it
            lines = [line for line in claimed.read_text().splitlines() if line]
            try:
                self._post(lines, _tier_of(path))
            except InfluxWriteError as exc:
                if not exc.invalid:
                    claimed.rename(path)
                    break
                self._reject(lines, exc)  # a file InfluxDB will never take must not hold up the ones behind it
            else:
                if self.on_replayed is not None:
                    self.on_replayed(_tier_of(path), _oldest_ms(lines))
            claimed.unlink()
            sent += 1
        return sent

    def _reject(self, lines: list[str], exc: InfluxWriteError) -> None:
        """Keep lines InfluxDB refused as invalid in spool/rejected, for a person to look at; never replayed."""
        where = self.spool_dir / REJECTED_DIR
        name = where / f"{time.time_ns():020d}-{os.getpid()}.lp"
        try:
            where.mkdir(parents=True, exist_ok=True)
            name.write_text("\n".join(lines) + "\n")
        except OSError as problem:
            log.error("InfluxDB refused %d lines as invalid (%s) and they cannot be kept: %s", len(lines), exc, problem)
            return
        log.error("InfluxDB refused %d lines as invalid (%s): kept in %s, not sent again", len(lines), exc, name)

    def _reclaim_orphans(self) -> None:
        """Put back files claimed by a worker that died mid-replay (its pid no longer exists)."""
        if not self.spool_dir.is_dir():
            return
        for claimed in self.spool_dir.glob("*.claimed-*"):
            pid = claimed.suffix.rpartition("-")[2]
            if pid.isdigit() and gone(int(pid)):
                with contextlib.suppress(FileNotFoundError):
                    claimed.rename(claimed.with_suffix(".lp"))
