"""Unused ports: the ports of the devices a reader may see that are down now and have been for at least N days, by
what the polls saw (the newest `port_down` event of the port, else since the monitor first saw it down)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max, QuerySet

from monitor.events.models import Event
from monitor.models import Device, Interface

DAYS = (30, 90, 180)


@dataclass(frozen=True)
class Unused:
    """A port down since `since` (`known`: a poll saw it go down; else down since the monitor first saw it)."""

    device: Device
    port: Interface
    since: datetime
    known: bool

    def days(self, now: datetime) -> int:
        return int((now - self.since).total_seconds() // 86400)


def unused(devices: QuerySet, days: int, now: datetime) -> list[Unused]:
    """The ports down for at least `days` days, the longest first, then by device and port name."""
    down = list(Interface.objects.filter(device__in=devices, oper_up=False).select_related("device"))
    went = (
        Event.objects.filter(device__in=devices, kind="port_down").values("device_id", "port").annotate(at=Max("time"))
    )
    last_down = {(row["device_id"], row["port"]): row["at"] for row in went}
    found = []
    for port in down:
        at = last_down.get((port.device_id, port.name))
        since = at or port.first_seen
        if (now - since).total_seconds() >= days * 86400:
            found.append(Unused(port.device, port, since, at is not None))
    return sorted(found, key=lambda u: (u.since, u.device.name.casefold(), u.port.if_index))
