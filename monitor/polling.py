"""Poll one device for a scheduled tick and record the outcome on its row; never raises into the run."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from collectors.discovery import Discovery, discover
from collectors.poll import PollResult, poll_device
from collectors.samples import Sample
from collectors.snmptypes import SnmpError
from monitor import aio, locks, services
from monitor.inventory import ensure_graphs, sync_ports
from monitor.models import Device
from monitor.profiles import registry
from monitor.signals import poll_finished

log = logging.getLogger(__name__)

TICK_KEY = "monitor:tick:{device}:{tick}"
RUNNING_KEY = "monitor:running:{device}"


def run_poll(device_id: int, tick: int | None = None) -> str:
    """Poll a device once for `tick` (epoch seconds); returns what happened, for logs and tests."""
    device = Device.objects.filter(pk=device_id, enabled=True).first()
    if device is None:
        return "skipped: device missing or disabled"
    redis = services.redis_client()
    interval = device.poll_interval_s
    if tick is not None and not redis.set(TICK_KEY.format(device=device_id, tick=tick), 1, nx=True, ex=interval * 3):
        return "skipped: tick already polled"
    budget = int(device.timeout_s * (device.retries + 1) * 8) + 30
    lock = RUNNING_KEY.format(device=device_id)
    if not locks.acquire(redis, lock, max(interval, budget)):
        _record_failure(device, "poll skipped: the previous poll is still running", skipped=True, tick=tick)
        return "skipped: previous poll still running"
    try:
        return _poll_and_record(device, tick)
    finally:
        locks.release(redis, lock)


def _poll_and_record(device: Device, tick: int | None = None) -> str:
    key = str(device.pk)
    store = services.counter_store()
    try:
        if needs_discovery(device):
            record_discovery(
                device,
                aio.run(
                    discover(device.snmp_target(), registry(), device.pinned_profile, settings.MONITOR_SNMP_ENGINE)
                ),
            )
        profile = registry().get(device.profile)
        result = aio.run(
            poll_device(
                device.snmp_target(),
                key,
                store.load(key),
                profile=profile,
                tolerance=settings.MONITOR_LINE_RATE_TOLERANCE,
                engine=settings.MONITOR_SNMP_ENGINE,
            )
        )
    except SnmpError as exc:
        _record_failure(device, str(exc))
        _notify(device, [], str(exc))
        return f"failed: {exc}"
    except Exception as exc:  # a bug or a device reply we did not foresee: record it, keep the run going
        log.exception("poll of device %s failed unexpectedly", device.pk)
        message = f"internal error while polling ({type(exc).__name__}); see the worker log"
        _record_failure(device, message)
        _notify(device, [], message)
        return f"failed: {type(exc).__name__}"
    store.save(key, result.state)
    written = services.influx_writer().write([*result.samples, _poller_sample(key, result, tick)])
    sync_ports(device, result.ports)
    ensure_graphs(device, profile, result.samples)
    _record_success(device, result, written)
    _notify(device, result.samples, "")
    return "ok" if written else "ok: samples spooled, InfluxDB unavailable"


def _notify(device: Device, samples: list[Sample], error: str) -> None:
    """Tell listeners (alert evaluation) about the poll; a listener's failure never fails the poll."""
    device.refresh_from_db()
    for receiver, response in poll_finished.send_robust(Device, device=device, samples=samples, error=error):
        if isinstance(response, Exception):
            log.error(
                "poll_finished receiver %s failed: %s",
                getattr(receiver, "__qualname__", receiver),
                response,
                exc_info=response,
            )


def needs_discovery(device: Device) -> bool:
    """Discover when never done, when asked (on demand or after a reboot), daily, or the pinned profile changed."""
    if device.rediscover or not device.profile or device.discovered_at is None:
        return True
    if device.pinned_profile and device.pinned_profile != device.profile:
        return True
    return (timezone.now() - device.discovered_at).total_seconds() > settings.MONITOR_REDISCOVER_S


def record_discovery(device: Device, found: Discovery) -> None:
    """Store identity and profile on the device and create its port rows."""
    identity = found.identity
    fields = {
        "profile": found.profile,
        "profile_reason": found.matched_by[:200],
        "sys_descr": identity.sys_descr,
        "sys_object_id": identity.sys_object_id[:200],
        "sys_name": identity.sys_name,
        "rediscover": False,
        "discovered_at": timezone.now(),
    }
    Device.objects.filter(pk=device.pk).update(**fields)
    for name, value in fields.items():
        setattr(device, name, value)
    sync_ports(device, found.ports)


def _poller_sample(key: str, result: PollResult, tick: int | None) -> Sample:
    """How the poll went: duration, requests, and for scheduled polls the tick and how late it started."""
    now = time.time()
    fields: dict[str, float | int] = {"duration_s": float(result.duration_s), "requests": result.requests, "ok": 1}
    if tick is not None:
        fields["tick"] = int(tick)
        fields["lateness_s"] = float(max(0.0, now - result.duration_s - tick))
    return Sample("poller", {"device": key}, fields, now)


def _record_success(device: Device, result: PollResult, written: bool) -> None:
    now = timezone.now()
    error = "" if written else "InfluxDB unavailable: samples are buffered on disk and will be written later"
    Device.objects.filter(pk=device.pk).update(
        last_poll_at=now,
        last_success_at=now,
        last_error=error,
        last_error_at=now if error else None,
        consecutive_failures=0,
        last_poll_duration_s=result.duration_s,
        uptime_s=result.uptime_s,
        poll_warnings="\n".join(result.errors)[:4000],
        rediscover=result.rebooted,
    )


def _record_failure(device: Device, message: str, skipped: bool = False, tick: int | None = None) -> None:
    """Store the failure on the device row, and a poller sample (with the skipped tick, for overruns)."""
    now = timezone.now()
    with transaction.atomic():
        Device.objects.filter(pk=device.pk).update(
            last_poll_at=now,
            last_error=message[:2000],
            last_error_at=now,
            consecutive_failures=F("consecutive_failures") + (0 if skipped else 1),
        )
    fields: dict[str, float | int] = {"ok": 0, "skipped": int(skipped)}
    if skipped and tick is not None:
        fields["skipped_tick"] = int(tick)
    try:
        services.influx_writer().write([Sample("poller", {"device": str(device.pk)}, fields, time.time())])
    except Exception:  # recording the failure must not fail the run
        log.warning("could not write poller failure sample for device %s", device.pk)
