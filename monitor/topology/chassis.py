"""Keep the chassis each device described at the daily layer-2 read (collectors/chassis.py), and find a device by a
chassis serial number."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from monitor.topology.models import ChassisRecord

MAX_FOUND = 50


def record(views: dict, now: datetime) -> int:
    """Replace each device's chassis with what its view (device pk -> collectors.topology.L2View) said; a view whose
    entity table did not answer keeps what was read before. Returns how many chassis were stored."""
    stored = 0
    for pk, view in views.items():
        if view.chassis_errors:
            continue
        with transaction.atomic():
            ChassisRecord.objects.filter(device_id=int(pk)).exclude(index__in=[c.index for c in view.chassis]).delete()
            for found in view.chassis:
                fields = {k: getattr(found, k)[:255] for k in ("description", "name", "model", "serial", "maker")}
                fields |= {k: getattr(found, k)[:255] for k in ("hardware", "firmware", "software")}
                ChassisRecord.objects.update_or_create(
                    device_id=int(pk), index=found.index, defaults=fields | {"read_at": now}
                )
                stored += 1
    return stored


def with_serial(text: str, devices: QuerySet) -> list[ChassisRecord]:
    """The chassis of `devices` whose serial number is `text` (any case), or starts with it (six characters or more:
    a label's first digits)."""
    text = text.strip()
    if len(text) < 6 or " " in text:
        return []
    rows = ChassisRecord.objects.filter(device__in=devices, serial__istartswith=text).select_related("device")
    return list(rows.order_by("device__name", "index")[:MAX_FOUND])
