"""Poll many devices concurrently on one event loop: bounded concurrency, a time budget per device."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from collectors.discovery import Discovery, discover
from collectors.lineprotocol import format_samples
from collectors.poll import PollResult, poll_device
from collectors.profiles import Profile
from collectors.samples import CounterState
from collectors.snmptypes import SnmpError, SnmpTarget, SnmpTimeout

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchJob:
    """One device to poll: where, its series key, its last counters, its profile, and whether to discover first."""

    target: SnmpTarget
    key: str
    previous: CounterState | None = None
    profile: Profile | None = None
    discover: bool = False
    pinned_profile: str = ""
    interval_s: float | None = None  # its poll interval: how close two readings may be and give a rate (None: any)


@dataclass(frozen=True)
class BatchOutcome:
    """A device's poll: its result (and discovery, when one ran), or the safe error message that replaced it;
    `silent` when the agent gave no answer at all in time (the case that backs off)."""

    key: str
    result: PollResult | None
    error: str = ""
    discovery: Discovery | None = None
    profile: Profile | None = None
    finished_at: float = 0.0
    silent: bool = False


def device_budget(target: SnmpTarget) -> float:
    """The longest one poll may take: a few requests' worth of timeouts and retries, then it is abandoned."""
    return target.timeout * (target.retries + 1) * 4 + 5.0


async def poll_many(
    jobs: list[BatchJob],
    *,
    engine: str = "fast",
    concurrency: int = 256,
    tolerance: float = 1.1,
    profiles: dict[str, Profile] | None = None,
    on_outcome: Callable[[BatchOutcome], None] | None = None,
) -> list[BatchOutcome]:
    """Poll every job, at most `concurrency` at a time; a slow or silent device only costs its own budget.

    `on_outcome` sees each outcome as soon as its device is done (to write its samples without waiting for
    the slowest device of the batch). Discovery needs `profiles` (the registry to match against).
    """
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(job: BatchJob) -> BatchOutcome:
        async with gate:
            try:
                outcome = await asyncio.wait_for(_poll(job, engine, tolerance, profiles), device_budget(job.target))
            except SnmpError as exc:
                outcome = BatchOutcome(job.key, None, str(exc), silent=isinstance(exc, SnmpTimeout))
            except TimeoutError:
                outcome = BatchOutcome(job.key, None, "poll abandoned: it overran its time budget")
            except Exception as exc:  # a bug or a reply nobody foresaw: this device fails, the batch goes on
                log.exception("poll of device %s failed unexpectedly", job.key)
                outcome = BatchOutcome(
                    job.key, None, f"internal error while polling ({type(exc).__name__}); see the worker log"
                )
        if outcome.finished_at == 0.0:
            outcome = BatchOutcome(outcome.key, None, outcome.error, finished_at=time.time(), silent=outcome.silent)
        if on_outcome is not None:
            on_outcome(outcome)
        return outcome

    return list(await asyncio.gather(*(one(job) for job in jobs)))


async def _poll(job: BatchJob, engine: str, tolerance: float, profiles: dict[str, Profile] | None) -> BatchOutcome:
    found = None
    profile = job.profile
    if job.discover and profiles is not None:
        found = await discover(job.target, profiles, job.pinned_profile, engine)
        profile = profiles.get(found.profile)
    result = await poll_device(
        job.target,
        job.key,
        job.previous,
        profile=profile,
        tolerance=tolerance,
        engine=engine,
        interval_s=job.interval_s,
    )
    return BatchOutcome(job.key, result, discovery=found, profile=profile, finished_at=time.time())


def line_protocol(outcomes: list[BatchOutcome]) -> list[str]:
    """Every sample of the successful polls as line protocol, for one write."""
    return format_samples(s for outcome in outcomes if outcome.result is not None for s in outcome.result.samples)
