"""Write finished polls' lines (raw samples and closed rollup windows) every fraction of a second from a thread,
while slower devices are still polled."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from collectors.influx import InfluxWriter, WriteResult

log = logging.getLogger(__name__)


class LineFlusher:
    """Collects line protocol per device key; flushes it every `every_s` seconds and once more at close.

    `on_flushed(keys)` runs after each write, in the writer's thread, with the keys whose lines it carried
    (written, spooled or lost alike): what must follow a device's samples, such as saving its counters and
    freeing it for its next poll, happens there instead of after the batch's slowest device.
    """

    def __init__(
        self, writer: InfluxWriter, every_s: float = 0.2, on_flushed: Callable[[list[str]], None] | None = None
    ):
        self.writer = writer
        self.every_s = every_s
        self.on_flushed = on_flushed
        # device key -> what became of its lines: WRITTEN, SPOOLED or LOST (truthy only when WRITTEN)
        self.written: dict[str, WriteResult] = {}
        self._lines: dict[str, list[str]] = {}  # tier -> lines
        self._keys: list[str] = []
        self._task: asyncio.Task | None = None
        self._closing: asyncio.Event | None = None

    def add(self, key: str, lines: list[str], rollups: dict[str, list[str]] | None = None) -> None:
        """A device's raw lines, and the lines of the rollup windows its poll closed ({tier: lines})."""
        self._lines.setdefault("raw", []).extend(lines)
        for tier, more in (rollups or {}).items():
            if more:
                self._lines.setdefault(tier, []).extend(more)
        self._keys.append(key)

    def start(self) -> None:
        self._closing = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(self._closing))

    async def close(self) -> None:
        """Stop the periodic flush (never in the middle of a write) and write what is left."""
        if self._task is not None and self._closing is not None:
            self._closing.set()
            await self._task
        await self._flush()

    async def _run(self, closing: asyncio.Event) -> None:
        while not closing.is_set():
            try:
                await asyncio.wait_for(closing.wait(), self.every_s)
            except TimeoutError:
                await self._flush()

    async def _flush(self) -> None:
        lines, keys = self._lines, self._keys
        if not keys:
            return
        self._lines, self._keys = {}, []
        loop = asyncio.get_running_loop()
        result = WriteResult.WRITTEN
        for tier, batch in lines.items():
            try:
                done = await loop.run_in_executor(None, self.writer.write_lines, batch, tier)
            except Exception as exc:  # the writer spools on outages; anything else must not stop the polls
                log.error("writing %d %s lines failed, they are lost: %s", len(batch), tier, type(exc).__name__)
                done = WriteResult.LOST
            result = result.worse(done)
        for key in keys:
            self.written[key] = result.worse(self.written.get(key, WriteResult.WRITTEN))
        if self.on_flushed is not None:
            try:
                await loop.run_in_executor(None, self.on_flushed, keys)
            except Exception as exc:  # e.g. Redis away: logged; the batch's own end still frees its devices
                log.error("after writing the lines of %d devices: %s: %s", len(keys), type(exc).__name__, exc)
