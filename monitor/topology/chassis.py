"""Keep the chassis each device described at the daily layer-2 read (collectors/chassis.py), and find a device by a
chassis serial number."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import DatabaseError, transaction
from django.db.models import QuerySet

from monitor.topology.models import ChassisRecord

MAX_FOUND = 50
MAX_INDEX = 2_147_483_647
TEXTS = ("description", "name", "model", "serial", "maker", "hardware", "firmware", "software")
log = logging.getLogger(__name__)


def record(views: dict, now: datetime) -> int:
    """Replace each device's chassis with what its view (device pk -> collectors.topology.L2View) said; a view whose
    entity table did not answer keeps what was read before. Returns how many chassis were stored."""
    stored = 0
    for pk, view in views.items():
        if view.chassis_errors:
            continue
        chassis = [c for c in view.chassis if 0 < c.index <= MAX_INDEX]  # entPhysicalIndex: 1..2147483647
        try:
            with transaction.atomic():
                ChassisRecord.objects.filter(device_id=int(pk)).exclude(index__in=[c.index for c in chassis]).delete()
                for found in chassis:
                    fields = {k: getattr(found, k)[:255] for k in TEXTS}
                    ChassisRecord.objects.update_or_create(
                        device_id=int(pk), index=found.index, defaults=fields | {"read_at": now}
                    )
        except DatabaseError as exc:  # one device's odd answer costs its own chassis, not the others'
            log.warning("chassis of device %s not recorded: %s", pk, type(exc).__name__)
            continue
        stored += len(chassis)
    return stored


def with_serial(text: str, devices: QuerySet) -> list[ChassisRecord]:
    """The chassis of `devices` whose serial number is `text` (any case), or starts with it (six characters or more:
    a label's first digits)."""
    text = text.strip()
    if len(text) < 6 or " " in text:
        return []
    rows = ChassisRecord.objects.filter(device__in=devices, serial__istartswith=text).select_related("device")
    return list(rows.order_by("device__name", "index")[:MAX_FOUND])
