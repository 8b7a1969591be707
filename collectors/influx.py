"""Write samples to InfluxDB 2.x; while it is away, keep them in a bounded on-disk spool and replay later."""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterable
from pathlib import Path

from influxdb_client import InfluxDBClient, WritePrecision
from influxdb_client.client.write_api import SYNCHRONOUS

from collectors.lineprotocol import format_samples
from collectors.procs import gone
from collectors.samples import Sample

log = logging.getLogger(__name__)


class InfluxWriteError(Exception):
    """InfluxDB refused or could not take a write (the message holds no token)."""


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
    ):
        self.org = org
        self.bucket = bucket
        self.spool_dir = Path(spool_dir)
        self.spool_max_bytes = spool_max_bytes
        self._client = InfluxDBClient(url=url, token=token, org=org, timeout=timeout_ms)
        self._api = self._client.write_api(write_options=SYNCHRONOUS)

    def close(self) -> None:
        self._client.close()

    def write(self, samples: Iterable[Sample]) -> bool:
        """Write samples now, or spool them if InfluxDB is unavailable. Returns True when written."""
        return self.write_lines(format_samples(samples))

    def write_lines(self, lines: list[str]) -> bool:
        """Write line protocol now, or spool it if InfluxDB is unavailable. Returns True when written."""
        if not lines:
            return True
        try:
            self._post(lines)
        except InfluxWriteError as exc:
            log.warning("InfluxDB write failed, %d lines spooled: %s", len(lines), exc)
            self._spool(lines)
            return False
        self.replay_spool()
        return True

    def _post(self, lines: list[str]) -> None:
        try:
            self._api.write(
                bucket=self.bucket, org=self.org, record="\n".join(lines), write_precision=WritePrecision.MS
            )
        except Exception as exc:  # urllib3 and ApiException both land here
            status = getattr(exc, "status", None)
            reason = getattr(exc, "reason", None) or type(exc).__name__
            raise InfluxWriteError(f"HTTP {status} {reason}" if status else str(reason)) from None

    def spooled_bytes(self) -> int:
        return sum(p.stat().st_size for p in self._spool_files())

    def _spool_files(self) -> list[Path]:
        if not self.spool_dir.is_dir():
            return []
        return sorted(p for p in self.spool_dir.glob("*.lp") if p.is_file())

    def _spool(self, lines: list[str]) -> None:
        data = ("\n".join(lines) + "\n").encode()
        if self.spooled_bytes() + len(data) > self.spool_max_bytes:
            log.error(
                "spool %s is full (%d bytes); dropping %d new lines", self.spool_dir, self.spool_max_bytes, len(lines)
            )
            return
        name = f"{time.time_ns():020d}-{os.getpid()}.lp"
        tmp = self.spool_dir / (name + ".tmp")
        try:
            self.spool_dir.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(data)
            tmp.rename(self.spool_dir / name)
        except OSError as exc:  # disk full or read-only: say so; polling of other devices goes on
            log.error("cannot spool %d lines to %s: %s", len(lines), self.spool_dir, exc.strerror)
            with contextlib.suppress(OSError):
                tmp.unlink()

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
                self._post(lines)
            except InfluxWriteError:
                claimed.rename(path)
                break
            claimed.unlink()
            sent += 1
        return sent

    def _reclaim_orphans(self) -> None:
        """Put back files claimed by a worker that died mid-replay (its pid no longer exists)."""
        if not self.spool_dir.is_dir():
            return
        for claimed in self.spool_dir.glob("*.claimed-*"):
            pid = claimed.suffix.rpartition("-")[2]
            if pid.isdigit() and gone(int(pid)):
                with contextlib.suppress(FileNotFoundError):
                    claimed.rename(claimed.with_suffix(".lp"))
