"""After each batch of polls: record the latency unit each array's gauges decided and the state of each part its
profile watches (a change is an event), and learn the iSCSI path of devices that were just discovered (arrays or
switches), so a new device shows its path without waiting a day."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

from django.utils import timezone

from monitor.storage import partstates
from monitor.storage.models import LatencyUnit, PathRefresh

log = logging.getLogger(__name__)
CHECKED_EVERY = timedelta(minutes=10)  # the evidence of an unchanged decision is written at most this often
REFRESH_LOCK = "monitor:storage:path-refresh-queued"


def on_polls_finished(sender, polls, **kwargs) -> None:
    """polls_finished receiver (monitor/polling/signals.py)."""
    for event in polls:
        checks = [s for s in event.samples if s.measurement == "latency_check"]
        if checks:
            record_units(event.device, checks)
        if event.samples and not event.error:  # a failed poll's partial samples say nothing of the parts missing
            record_part_states(event.device, event.samples)
    discovered = [e.device for e in polls if not e.error and _just_discovered(e.device)]
    if discovered:
        queue_refresh()


def record_part_states(device, samples) -> None:
    """The states of the parts the device's profile watches (monitor/storage/partstates.py); a failure is logged,
    never the poll's."""
    from monitor.devices.profiles import registry

    try:
        profile = registry().get(getattr(device, "profile", ""))
        if profile is not None:
            polled_at = datetime.fromtimestamp(min(sample.time for sample in samples), dt_timezone.utc)
            partstates.record(device, profile, samples, polled_at)
    except Exception as exc:
        log.warning("part states of device %s not recorded: %s", device.pk, type(exc).__name__)


def unit_name(device, table: str, metric: str, scale: float) -> str:
    """The name of the unit a scale stands for, from the device's profile (e.g. 0.001 -> microseconds)."""
    from monitor.devices.profiles import registry

    profile = registry().get(getattr(device, "profile", ""))
    metrics = ()
    if profile is not None:
        metrics = (
            profile.scalars if table == "scalars" else next((t.metrics for t in profile.tables if t.name == table), ())
        )
    for found in metrics:
        if found.name == metric:
            for name, candidate in found.unit_scales:
                if abs(candidate - scale) <= 1e-12 * max(1.0, abs(scale)):
                    return name
    return f"x{scale:g}"


def record_units(device, samples) -> None:
    """One row per (table, metric): the unit, and the last evidence (written when it changes, or every 10 min)."""
    now = timezone.now()
    existing = {(u.table, u.metric): u for u in LatencyUnit.objects.filter(device=device)}
    for sample in samples:
        table, metric = sample.tags.get("table", ""), sample.tags.get("metric", "")
        fields = sample.fields
        unit = unit_name(device, table, metric, float(fields["scale"]))
        values = {
            "unit": unit,
            "scale": float(fields["scale"]),
            "decided": bool(fields.get("decided")),
            "rows_checked": int(fields.get("rows_checked", 0)),
            "rows_agreeing": int(fields.get("rows_agreeing", 0)),
            "sum_per_op": fields.get("sum_per_op"),
            "gauge_ms": fields.get("gauge_ms"),
        }
        row = existing.get((table, metric))
        if row is None:
            LatencyUnit.objects.create(
                device=device,
                table=table,
                metric=metric,
                checked_at=now,
                decided_at=now if values["decided"] else None,
                **values,
            )
            continue
        changed = row.unit != unit or (values["decided"] and not row.decided)
        if not changed and now - row.checked_at < CHECKED_EVERY:
            continue
        if values["decided"] or row.unit != unit:
            row.decided_at = now if values["decided"] else row.decided_at
        elif row.decided:  # the unit stands from an earlier decision; this poll's rows had no evidence
            values |= {"decided": True, "rows_checked": row.rows_checked, "rows_agreeing": row.rows_agreeing}
            values |= {"sum_per_op": row.sum_per_op, "gauge_ms": row.gauge_ms}
        for name, value in values.items():
            setattr(row, name, value)
        row.checked_at = now
        row.save()


def _just_discovered(device) -> bool:
    at = getattr(device, "discovered_at", None)
    if at is None or timezone.now() - at > timedelta(minutes=2):
        return False
    last = PathRefresh.objects.order_by("-refreshed_at").values_list("refreshed_at", flat=True).first()
    return last is None or last < at


def queue_refresh() -> None:
    """Ask a worker to learn the paths again, once a minute at most however many devices were discovered."""
    from monitor.core import services
    from monitor.storage.tasks import refresh_paths_task

    try:
        if services.redis_client().set(REFRESH_LOCK, 1, nx=True, ex=60):
            refresh_paths_task.delay()
    except Exception as exc:  # Redis or the broker away: the daily refresh will do it
        log.warning("could not queue a path refresh: %s", type(exc).__name__)
