"""Poll many devices concurrently on one event loop: bounded concurrency, a time budget per device."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from collectors.lineprotocol import format_samples
from collectors.poll import PollResult, poll_device
from collectors.samples import CounterState
from collectors.snmptypes import SnmpError, SnmpTarget


@dataclass(frozen=True)
class BatchJob:
    """One device to poll: where, its series key, and its last counters."""

    target: SnmpTarget
    key: str
    previous: CounterState | None = None


@dataclass(frozen=True)
class BatchOutcome:
    """A device's poll: its result, or the safe error message that replaced it."""

    key: str
    result: PollResult | None
    error: str = ""


def device_budget(target: SnmpTarget) -> float:
    """The longest one poll may take: a few requests' worth of timeouts and retries, then it is abandoned."""
    return target.timeout * (target.retries + 1) * 4 + 5.0


async def poll_many(
    jobs: list[BatchJob], *, engine: str = "fast", concurrency: int = 256, tolerance: float = 1.1
) -> list[BatchOutcome]:
    """Poll every job, at most `concurrency` at a time; a slow or silent device only costs its own budget."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(job: BatchJob) -> BatchOutcome:
        async with gate:
            try:
                result = await asyncio.wait_for(
                    poll_device(job.target, job.key, job.previous, engine=engine, tolerance=tolerance),
                    device_budget(job.target),
                )
            except SnmpError as exc:
                return BatchOutcome(job.key, None, str(exc))
            except TimeoutError:
                return BatchOutcome(job.key, None, "poll abandoned: it overran its time budget")
            return BatchOutcome(job.key, result)

    return list(await asyncio.gather(*(one(job) for job in jobs)))


def line_protocol(outcomes: list[BatchOutcome]) -> list[str]:
    """Every sample of the successful polls as line protocol, for one write."""
    return format_samples(s for outcome in outcomes if outcome.result is not None for s in outcome.result.samples)
