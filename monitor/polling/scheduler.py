"""A celery beat scheduler built from the device table, re-read from the database every few seconds.

Ticks are aligned to the wall clock (a multiple of the device's interval plus a per-device phase), so a
restarted beat, or a second beat started by mistake, asks for the same ticks; the poll task claims each
(device, tick) once in Redis, so no tick is polled twice. Devices that share poller group, interval and
phase are due at the same instants: one entry sends them together, at most MONITOR_POLL_BATCH a task.
"""

from __future__ import annotations

import math
import time
import zlib
from datetime import datetime, timedelta, timezone

from celery import schedules
from celery.beat import ScheduleEntry, Scheduler
from django.conf import settings

TASK = "monitor.poll_devices"


class aligned_every(schedules.BaseSchedule):
    """Due at every phase + k*interval seconds of epoch time."""

    def __init__(self, interval: int, phase: int = 0, app=None):
        super().__init__(app=app)
        self.interval = int(interval)
        self.phase = int(phase) % self.interval

    def current_tick(self, now: float) -> int:
        return int(math.floor((now - self.phase) / self.interval) * self.interval + self.phase)

    def is_due(self, last_run_at: datetime) -> schedules.schedstate:
        now = time.time()
        tick = self.current_tick(now)
        last = last_run_at.timestamp() if last_run_at else 0.0
        next_in = tick + self.interval - now
        if last < tick:
            return schedules.schedstate(True, max(next_in, 0.01))
        return schedules.schedstate(False, max(next_in, 0.01))

    def remaining_estimate(self, last_run_at: datetime) -> timedelta:
        return timedelta(seconds=self.current_tick(time.time()) + self.interval - time.time())

    def __eq__(self, other) -> bool:
        return isinstance(other, aligned_every) and (self.interval, self.phase) == (other.interval, other.phase)

    def __reduce__(self):
        return self.__class__, (self.interval, self.phase)


SLOTS_PER_INTERVAL = 12


def device_phase(device_id: int, interval: int) -> int:
    """Spread devices over the interval, in at most 12 slots (every 5 s of a minute): not all polled in the
    same second, yet many per slot, so one task carries many devices and its cost is shared among them."""
    interval = max(interval, 1)
    slot = max(1, interval // SLOTS_PER_INTERVAL)
    return zlib.crc32(str(device_id).encode()) % interval // slot * slot


def batches(rows, size: int) -> list[tuple[str, int, int, list[int]]]:
    """(group, interval, phase, device ids) for every set of devices due together, at most `size` ids each."""
    due: dict[tuple[str, int, int], list[int]] = {}
    for device_id, interval, group in sorted(rows):
        due.setdefault((group or "", interval, device_phase(device_id, interval)), []).append(device_id)
    return [(*key, ids[i : i + size]) for key, ids in due.items() for i in range(0, len(ids), size)]


class DeviceScheduler(Scheduler):
    """Beat entries built from the Device table; picks up admin changes without a restart."""

    def __init__(self, *args, **kwargs):
        self._entries: dict[str, ScheduleEntry] = {}
        self._loaded_at = 0.0
        super().__init__(*args, **kwargs)
        self.max_interval = 1

    def setup_schedule(self) -> None:
        self._reload()

    @property
    def schedule(self) -> dict[str, ScheduleEntry]:
        if time.monotonic() - self._loaded_at >= settings.MONITOR_SCHEDULE_REFRESH_S:
            self._reload()
        return self._entries

    def _reload(self) -> None:
        from django.db import close_old_connections

        from monitor.models import Device

        close_old_connections()
        try:
            rows = list(Device.objects.filter(enabled=True).values_list("id", "poll_interval_s", "poller_group"))
        except Exception as exc:  # database briefly locked or away: keep the device entries we have
            self.logger.warning("device schedule not refreshed: %s", exc)
            self._entries = {**self._entries, **self._static_entries()}
            self._loaded_at = time.monotonic()
            return
        fresh: dict[str, ScheduleEntry] = {}
        now = datetime.now(timezone.utc)
        for group, interval, phase, device_ids in batches(rows, settings.MONITOR_POLL_BATCH):
            name = f"poll-{group or 'default'}-{interval}s-{phase}-{device_ids[0]}"
            schedule = aligned_every(interval, phase)
            entry = self._entries.get(name)
            options = {"expires": float(interval), "queue": group or self.app.conf.task_default_queue}
            if entry is None or entry.schedule != schedule or entry.options != options or entry.args != (device_ids,):
                # Treat the current tick as not yet sent: a new device is polled at once, and a restarted beat
                # sends the tick its predecessor may have missed (the task's Redis claim drops a duplicate).
                last = datetime.fromtimestamp(schedule.current_tick(time.time()) - interval, timezone.utc)
                entry = ScheduleEntry(
                    name=name,
                    task=TASK,
                    schedule=schedule,
                    args=(device_ids,),
                    options=options,
                    last_run_at=min(last, now),
                    app=self.app,
                )
            fresh[name] = entry
        self._entries = {**fresh, **self._static_entries()}
        self._loaded_at = time.monotonic()

    def _static_entries(self) -> dict[str, ScheduleEntry]:
        """The periodic tasks of CELERY_BEAT_SCHEDULE (rollups, alert mail), kept across reloads."""
        entries = {}
        for name, spec in (self.app.conf.beat_schedule or {}).items():
            entries[name] = self._entries.get(name) or ScheduleEntry(name=name, app=self.app, **spec)
        return entries

    def apply_async(self, entry, producer=None, advance=True, **kwargs):
        """Send the poll with the tick it is for, so duplicate sends can be recognised."""
        if isinstance(entry.schedule, aligned_every):
            entry.kwargs = {"tick": entry.schedule.current_tick(time.time())}
        return super().apply_async(entry, producer, advance, **kwargs)

    def sync(self) -> None:
        """Nothing to persist: ticks are derived from the clock."""
