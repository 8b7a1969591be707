"""Learn and keep the iSCSI path: read every array's and switch's layer 2 view, find the links, store them."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from collectors.sessions import open_session
from collectors.snmptypes import SnmpError
from collectors.topology import L2View, read_l2
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.models import Device
from monitor.storage.models import PathLink, PathRefresh
from monitor.storage.pathfind import find_paths

log = logging.getLogger(__name__)
CONCURRENCY = 16


@dataclass
class RefreshSummary:
    arrays: int = 0
    switches: int = 0
    links: int = 0
    problems: list[str] = field(default_factory=list)


def is_array(device: Device) -> bool:
    """An array is a device whose profile reads volumes."""
    profile = registry().get(device.profile)
    return profile is not None and any(t.measurement == "volume" for t in profile.tables)


def refresh_paths() -> RefreshSummary:
    """Read every enabled device once (arrays: ports, MACs and LLDP; the others: also forwarding tables), find the
    links and replace the stored ones; a device that does not answer is named in the problems and skipped."""
    devices = list(Device.objects.filter(enabled=True))
    arrays = [d for d in devices if is_array(d)]
    switches = [d for d in devices if not is_array(d)]
    summary = RefreshSummary(len(arrays), len(switches))
    if not arrays:
        return summary
    views = aio.run(_read_all([(d, True) for d in arrays] + [(d, False) for d in switches]))
    for device, view in views.items():
        summary.problems += [f"{device.name}: {problem}" for problem in view.errors]
    array_views = {str(d.pk): views[d] for d in arrays if d in views}
    switch_views = {str(d.pk): views[d] for d in switches if d in views}
    links = find_paths(array_views, switch_views)
    summary.links = len(links)
    now = timezone.now()
    with transaction.atomic():
        PathLink.objects.filter(array__in=arrays).delete()
        PathLink.objects.bulk_create(
            PathLink(
                array_id=int(link.array),
                array_port=link.array_port[:255],
                switch_id=int(link.switch),
                switch_port=link.switch_port[:255],
                via_fdb="fdb" in link.via,
                via_lldp="lldp" in link.via,
                mac=link.mac,
                vlan=link.vlan,
                learned_at=now,
            )
            for link in links
        )
        for array in arrays:
            PathRefresh.objects.update_or_create(
                array=array,
                defaults={
                    "refreshed_at": now,
                    "switches_read": len(switch_views),
                    "problems": "\n".join(summary.problems)[:5000],
                },
            )
    log.info("paths: %d arrays, %d switches, %d links", summary.arrays, summary.switches, summary.links)
    return summary


async def _read_all(devices: list[tuple[Device, bool]]) -> dict[Device, L2View]:
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(device: Device, array: bool) -> tuple[Device, L2View]:
        async with limit:
            try:
                session = open_session(device.snmp_target(), settings.MONITOR_SNMP_ENGINE)
                return device, await read_l2(session, fdb=not array, lldp=True)
            except SnmpError as exc:
                return device, L2View(errors=[str(exc)])
            except Exception as exc:  # an answer no reader expected costs this device only, never the refresh
                log.warning("paths: reading %s failed: %s", device.pk, type(exc).__name__, exc_info=True)
                return device, L2View(errors=[f"unreadable answer ({type(exc).__name__})"])

    return dict(await asyncio.gather(*(one(d, a) for d, a in devices)))
