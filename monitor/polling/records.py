"""Record how polls went on the device rows, a batch at a time, and as `poller` samples in InfluxDB."""

from __future__ import annotations

import logging
import time

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from collectors.influx import WriteResult
from collectors.poll import PollResult
from collectors.samples import Sample
from monitor.core import services
from monitor.models import POLL_STATUS_FIELDS, Device
from monitor.timeseries import intervals

log = logging.getLogger(__name__)
SPOOLED = "InfluxDB unavailable: samples are buffered on disk and will be written later"
LOST = "InfluxDB unavailable and the spool is full or not writable: samples of this poll are lost"
REJECTED = "InfluxDB refused this poll's samples as invalid: they are kept in spool/rejected (see the log)"


def poller_sample(
    key: str, result: PollResult | None, tick: int | None, finished_at: float, interval_s: float
) -> Sample:
    """How the poll went: ok, duration, requests, and for scheduled polls the tick and how late it started; and the
    interval it was polled at, which totals of its samples go by (monitor/timeseries/intervals.py)."""
    every = {intervals.FIELD: int(interval_s)}  # an integer: a state, not rolled up (collectors/rollup.py)
    if result is None:
        return Sample(intervals.MEASUREMENT, {"device": key}, {"ok": 0, "skipped": 0} | every, finished_at)
    fields: dict[str, float | int] = {"duration_s": float(result.duration_s), "requests": result.requests, "ok": 1}
    fields |= every
    if tick is not None:
        fields["tick"] = int(tick)
        fields["lateness_s"] = float(max(0.0, finished_at - result.duration_s - tick))
    return Sample(intervals.MEASUREMENT, {"device": key}, fields, finished_at)


def write_error(written: WriteResult | bool) -> str:
    """What the device row says about its samples: nothing when written, else buffered or lost."""
    if written is WriteResult.LOST:
        return LOST
    if written is WriteResult.REJECTED:
        return REJECTED
    return "" if written else SPOOLED


def record_successes(polled: list[tuple[Device, PollResult, WriteResult | bool]]) -> None:
    """One bulk update for the batch's good polls; the in-memory rows get the same values (alerts read them)."""
    now = timezone.now()
    for device, result, written in polled:
        error = write_error(written)
        device.last_poll_at = device.last_success_at = now
        device.last_error, device.last_error_at = error, (now if error else None)
        device.consecutive_failures = 0
        device.last_poll_duration_s, device.uptime_s = result.duration_s, result.uptime_s
        device.poll_warnings = "\n".join(result.errors)[:4000]
    table, quote = Device._meta.db_table, connection.ops.quote_name
    columns = ", ".join(f"{quote(Device._meta.get_field(name).column)} = %s" for name in POLL_STATUS_FIELDS)
    fields = [Device._meta.get_field(name) for name in POLL_STATUS_FIELDS]
    rows = [[*(f.get_db_prep_save(getattr(d, f.attname), connection) for f in fields), d.pk] for d, _, _ in polled]
    with transaction.atomic(), connection.cursor() as cursor:
        # One prepared statement for the batch: bulk_update's CASE WHEN costs more CPU than the polls it records.
        cursor.executemany(f"UPDATE {quote(table)} SET {columns} WHERE {quote('id')} = %s", rows)  # noqa: S608
        rebooted = [device.pk for device, result, _ in polled if result.rebooted]
        if rebooted:  # rediscover at the next poll: the ports may have been renumbered
            Device.objects.filter(pk__in=rebooted).update(rediscover=True)


def record_failures(failed: list[tuple[Device, str]], skipped: bool = False) -> None:
    """Store each failure on its row (counting consecutive failures unless the poll was only skipped)."""
    if not failed:
        return
    now = timezone.now()
    with transaction.atomic():
        for device, message in failed:
            Device.objects.filter(pk=device.pk).update(
                last_poll_at=now,
                last_error=message[:2000],
                last_error_at=now,
                consecutive_failures=F("consecutive_failures") + (0 if skipped else 1),
            )
    counts = dict(Device.objects.filter(pk__in=[d.pk for d, _ in failed]).values_list("pk", "consecutive_failures"))
    for device, message in failed:
        device.last_poll_at, device.last_error, device.last_error_at = now, message[:2000], now
        device.consecutive_failures = counts.get(device.pk, device.consecutive_failures)


def record_skips(skipped: list[Device], tick: int | None) -> None:
    """An overrun: the previous poll still runs, so this tick is skipped, on the row and as a poller sample."""
    record_failures([(device, "poll skipped: the previous poll is still running") for device in skipped], skipped=True)
    fields: dict[str, float | int] = {"ok": 0, "skipped": 1}
    if tick is not None:
        fields["skipped_tick"] = int(tick)
    now = time.time()
    try:
        services.influx_writer().write([Sample("poller", {"device": str(d.pk)}, fields, now) for d in skipped])
    except Exception:  # recording the skip must not fail the run
        log.warning("could not write poller samples for %d skipped devices", len(skipped))
