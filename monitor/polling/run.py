"""Poll devices for a scheduled tick and record the outcomes on their rows; never raises into the run.

A batch (the devices due in the same second of the same poller group) is polled concurrently on the
process's event loop; each device keeps its own tick claim, lock, time budget and error, so one slow or
broken device costs the others nothing. Samples are written as each device finishes.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.utils import timezone

from collectors.batch import BatchJob, BatchOutcome, poll_many
from collectors.flusher import LineFlusher
from collectors.influx import WriteResult
from collectors.samples import CounterState
from monitor.core import aio, locks, services
from monitor.devices import inventory
from monitor.devices.inventory import record_discovery
from monitor.devices.profiles import registry
from monitor.models import Device
from monitor.polling import backoff, stats
from monitor.polling.records import record_failures, record_skips, record_successes
from monitor.polling.signals import PollEvent, polls_finished
from monitor.polling.written import written

log = logging.getLogger(__name__)

TICK_KEY = "monitor:tick:{device}:{tick}"
RUNNING_KEY = locks.DEVICE_RUNNING
SKIPPED_TICK = "skipped: tick already polled"
BACKING_OFF = "skipped: not answering, tried on fewer ticks until it answers"
SAID = {
    WriteResult.WRITTEN: "ok",
    WriteResult.SPOOLED: "ok: samples spooled, InfluxDB unavailable",
    WriteResult.REJECTED: "ok: samples refused by InfluxDB as invalid, kept aside",
    WriteResult.LOST: "ok: samples lost, InfluxDB unavailable and the spool full or not writable",
}


def run_poll(device_id: int, tick: int | None = None) -> str:
    """Poll one device once for `tick` (epoch seconds); returns what happened, for logs and tests."""
    return run_polls([device_id], tick)[int(device_id)]


def run_polls(device_ids: list[int], tick: int | None = None) -> dict[int, str]:
    """Poll several devices for one tick, concurrently; returns what happened to each."""
    ids = list(dict.fromkeys(int(i) for i in device_ids))
    outcomes = dict.fromkeys(ids, "skipped: device missing or disabled")
    devices = list(Device.objects.filter(pk__in=ids, enabled=True))
    if not devices:
        return outcomes
    redis = services.redis_client()
    if tick is not None:
        devices = _claim_ticks(redis, devices, tick, outcomes)
    silent = backoff.silent_polls(redis, [d.pk for d in devices])
    resting = {d.pk for d in devices if backoff.skips_tick(silent[d.pk], tick, d.poll_interval_s)}
    outcomes.update(dict.fromkeys(resting, BACKING_OFF))
    tally = stats.BatchStats()
    for device in devices:
        if device.pk in resting:
            tally.add(device.poller_group, "resting")
    devices = [d for d in devices if d.pk not in resting]
    keys = {RUNNING_KEY.format(device=d.pk): d for d in devices}
    ttl = {key: max(d.poll_interval_s, int(d.timeout_s * (d.retries + 1) * 8) + 30) for key, d in keys.items()}
    held = locks.acquire_many(redis, list(keys), ttl)
    busy = [d for key, d in keys.items() if key not in held]
    if busy:
        record_skips(busy, tick)
        outcomes.update(dict.fromkeys((d.pk for d in busy), "skipped: previous poll still running"))
        for device in busy:
            tally.add(device.poller_group, "overruns")
    try:
        mine = [d for key, d in keys.items() if key in held]
        if mine:
            outcomes.update(_poll_and_record(mine, tick, silent, tally))
    finally:
        locks.release_many(redis, sorted(held))
        tally.save(redis, services.influx_writer())
    return outcomes


def _claim_ticks(redis, devices: list[Device], tick: int, outcomes: dict[int, str]) -> list[Device]:
    """Claim (device, tick) once in Redis: a tick sent twice (two beats, a restart) is polled once."""
    pipe = redis.pipeline(transaction=False)
    for device in devices:
        pipe.set(TICK_KEY.format(device=device.pk, tick=tick), 1, nx=True, ex=device.poll_interval_s * 3)
    claimed = []
    for device, won in zip(devices, pipe.execute(), strict=True):
        if won:
            claimed.append(device)
        else:
            outcomes[device.pk] = SKIPPED_TICK
    return claimed


def needs_discovery(device: Device) -> bool:
    """Discover when never done, when asked (on demand or after a reboot), daily, or the pinned profile changed."""
    if device.rediscover or not device.profile or device.discovered_at is None:
        return True
    if device.pinned_profile and device.pinned_profile != device.profile:
        return True
    return (timezone.now() - device.discovered_at).total_seconds() > settings.MONITOR_REDISCOVER_S


def _poll_and_record(
    devices: list[Device], tick: int | None, silent: dict[int, int], tally: stats.BatchStats
) -> dict[int, str]:
    store = services.counter_store()
    profiles = registry()
    states = store.load_many([str(d.pk) for d in devices])
    jobs = [
        BatchJob(
            backoff.target(d.snmp_target(), silent[d.pk]),
            str(d.pk),
            states[str(d.pk)],
            profile=profiles.get(d.profile),
            discover=needs_discovery(d),
            pinned_profile=d.pinned_profile,
            interval_s=d.poll_interval_s,
        )
        for d in devices
    ]
    redis = services.redis_client()
    unsaved: dict[str, CounterState] = {}
    intervals = {str(d.pk): float(d.poll_interval_s) for d in devices}
    begun = float(tick) if tick is not None else time.time()  # every sample of this batch is from then or later

    def done_with(keys: list[str]) -> None:
        """Once a device's samples are written: keep its counters, then free it for its next tick at once,
        not when the batch's slowest device is done (a batch can outlast an interval; its devices must not)."""
        kept = {key: unsaved[key] for key in keys if key in unsaved}
        if kept:
            store.save_many(kept)  # a failed poll keeps its last good counters (and its closed windows)
            for key in kept:
                del unsaved[key]
        locks.release_many(redis, [RUNNING_KEY.format(device=key) for key in keys])

    flusher = LineFlusher(services.influx_writer(), settings.MONITOR_WRITE_EVERY_S, on_flushed=done_with)

    def written_as_done(outcome: BatchOutcome) -> None:
        """Queue the device's samples and the rollup windows they close (monitor/polling/written.py)."""
        done = written(outcome, states[outcome.key], tick, intervals[outcome.key], begun)
        unsaved[outcome.key] = done.state
        flusher.add(outcome.key, done.lines, done.closed)

    async def poll_all() -> list[BatchOutcome]:
        flusher.start()
        try:
            return await poll_many(
                jobs,
                engine=settings.MONITOR_SNMP_ENGINE,
                concurrency=settings.MONITOR_POLL_CONCURRENCY,
                tolerance=settings.MONITOR_LINE_RATE_TOLERANCE,
                profiles=profiles,
                on_outcome=written_as_done,
            )
        finally:
            await flusher.close()

    started = time.time()
    results = aio.run(poll_all())
    backoff.remember(redis, {int(o.key): o.silent for o in results}, silent)
    groups = {str(d.pk): d.poller_group for d in devices}
    stats.count_outcomes(tally, groups, results, flusher.written, started)
    if unsaved:  # their flush's follow-up failed (logged): keep the counters now
        store.save_many(dict(unsaved))
    by_key = {str(d.pk): d for d in devices}
    answered = [(by_key[o.key], o) for o in results if o.result is not None]
    for device, outcome in answered:
        if outcome.discovery is not None:
            record_discovery(device, outcome.discovery)
    good = [(d, o) for d, o in answered if not o.result.failure]
    inventory.refresh_many(redis, [(d, o.profile, o.result.ports, o.result.samples) for d, o in good])
    record_successes([(d, o.result, flusher.written.get(o.key, WriteResult.LOST)) for d, o in good])
    failed = [(by_key[o.key], o.error or o.result.failure) for o in results if o.result is None or o.result.failure]
    record_failures(failed)
    samples = {o.key: o.result.samples for o in results if o.result is not None}
    _announce(
        [PollEvent(d, o.result.samples, "", o.result.rebooted, frozenset(o.result.unread)) for d, o in good]
        + [PollEvent(d, samples.get(str(d.pk), []), error) for d, error in failed]
    )
    outcomes = {device.pk: f"failed: {error}" for device, error in failed}
    for device, outcome in good:
        outcomes[device.pk] = SAID[flusher.written.get(outcome.key, WriteResult.LOST)]
    return outcomes


def _announce(events: list[PollEvent]) -> None:
    """Tell listeners (alert evaluation) about the batch; a listener's failure never fails the polls."""
    for receiver, response in polls_finished.send_robust(Device, polls=events):
        if isinstance(response, Exception):
            log.error(
                "polls_finished receiver %s failed: %s",
                getattr(receiver, "__qualname__", receiver),
                response,
                exc_info=response,
            )
