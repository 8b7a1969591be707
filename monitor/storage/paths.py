"""Learn and keep the iSCSI path: read every array's and switch's layer 2 view, find the links, store them."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from collectors.sessions import open_session
from collectors.snmptypes import SnmpError
from collectors.topology import L2View, read_l2
from monitor.core import aio
from monitor.devices.profiles import is_array
from monitor.models import Device
from monitor.storage.models import PathLink, PathRefresh
from monitor.storage.pathfind import Link, find_paths, transit_ports
from monitor.topology import chassis, hosts, links, ports

log = logging.getLogger(__name__)
CONCURRENCY = 16


@dataclass
class RefreshSummary:
    arrays: int = 0
    switches: int = 0
    links: int = 0  # learned now
    kept: int = 0  # kept as last seen: learned from a device that did not answer this time
    hosts: int = 0  # MACs seen on switches' edge ports (monitor/topology/hosts.py)
    topology: int = 0  # links between monitored devices seen (monitor/topology/links.py)
    ports: int = 0  # ports whose admin status, duplex and VLANs were read (monitor/topology/ports.py)
    chassis: int = 0  # chassis ENTITY-MIB described (monitor/topology/chassis.py)
    problems: list[str] = field(default_factory=list)


def refresh_paths() -> RefreshSummary:
    """Read every enabled device once (arrays: ports, MACs and LLDP; the others: also forwarding tables), find the
    links from the views that answered in full and store them, where every MAC on an edge port is plugged in and the
    links between devices the map draws; a device whose view failed (a timeout, an error) is named in the problems,
    and the links learned from it before are kept as last seen, never replaced by what the others say without it."""
    devices = list(Device.objects.filter(enabled=True))
    arrays = [d for d in devices if is_array(d)]
    switches = [d for d in devices if not is_array(d)]
    summary = RefreshSummary(len(arrays), len(switches))
    if not devices:
        return summary
    views = aio.run(_read_all([(d, True) for d in arrays] + [(d, False) for d in switches]))
    for device, view in views.items():
        summary.problems += [f"{device.name}: {problem}" for problem in view.errors]
    failed = {d for d in devices if views[d].errors}
    array_views = {str(d.pk): views[d] for d in arrays if d not in failed}
    switch_views = {str(d.pk): views[d] for d in switches if d not in failed}
    silent = {str(d.pk): _known(d, views[d]) for d in switches if d in failed}
    transit = transit_ports(switch_views, silent)
    found = find_paths(array_views, switch_views, silent, transit)
    now = timezone.now()
    with transaction.atomic():
        for array in arrays:
            ours = [link for link in found if link.array == str(array.pk)]
            learned, kept = store_links(array, ours, failed, now)
            summary.links += learned
            summary.kept += len(kept)
            PathRefresh.objects.update_or_create(
                array=array,
                defaults={
                    "refreshed_at": now,
                    "switches_read": len(switch_views),
                    "problems": "\n".join(summary.problems + _kept_notes(array, kept, failed))[:5000],
                },
            )
    _record_hosts(summary, switches, views, switch_views, transit, now)
    _record_links(summary, found, switch_views, silent, {d.pk for d in devices if d not in failed}, now)
    _record_ports(summary, switches, views, now)
    _record_chassis(summary, [d for d in devices if d not in failed], views, now)
    if summary.problems:
        log.warning("paths: %d problem(s): %s", len(summary.problems), "; ".join(summary.problems)[:2000])
    counts = (summary.arrays, summary.switches, summary.links, summary.kept, summary.hosts, summary.topology)
    log.info("paths: %d arrays, %d switches, %d links learned, %d kept, %d hosts on edge ports, %d links seen", *counts)
    return summary


def _record_hosts(summary, switches: list[Device], views: dict, switch_views: dict, transit: dict, now) -> None:
    """Where every MAC is plugged in and what the ARP caches say (monitor/topology/hosts.py), after the links are
    stored: a failure here is logged and fails nothing else."""
    try:
        summary.hosts = hosts.record(switch_views, transit, now)
        hosts.record_addresses({str(d.pk): views[d] for d in switches if not views[d].arp_errors}, now)
        hosts.forget_before(now)
    except Exception as exc:
        log.warning("paths: hosts not recorded: %s", type(exc).__name__, exc_info=True)
    arp = [f"{d.name}: {problem}" for d in switches for problem in views[d].arp_errors]
    if arp:
        log.warning("paths: %d ARP cache(s) not read: %s", len(arp), "; ".join(arp)[:2000])


def _record_ports(summary, switches: list[Device], views: dict, now) -> None:
    """What each switch said of its ports (monitor/topology/ports.py): a failure here is logged and fails nothing
    else; a switch whose port tables did not answer keeps what it said before."""
    try:
        summary.ports = ports.record({str(d.pk): views[d] for d in switches if views[d].facts}, now)
    except Exception as exc:
        log.warning("paths: port states not recorded: %s", type(exc).__name__, exc_info=True)
    said = [f"{d.name}: {problem}" for d in switches for problem in views[d].facts_errors]
    if said:
        log.warning("paths: %d switch(es) did not say their ports' VLANs: %s", len(said), "; ".join(said)[:2000])


def _record_chassis(summary, devices: list[Device], views: dict, now) -> None:
    """What each answering device said of its chassis: a failure here is logged and fails nothing else."""
    try:
        summary.chassis = chassis.record({str(d.pk): views[d] for d in devices}, now)
    except Exception as exc:
        log.warning("paths: chassis not recorded: %s", type(exc).__name__, exc_info=True)


def _record_links(summary, found: list[Link], switch_views: dict, silent: dict, answered: set[int], now) -> None:
    """The links between devices the map draws (monitor/topology/links.py), from the switches' LLDP and forwarding
    tables and the arrays' paths: a failure here is logged and fails nothing else."""
    try:
        known = links.stored_ends(silent)
        lldp = links.lldp_links(switch_views, silent, known)
        switch_links = links.with_fdb(lldp, links.fdb_links(switch_views), switch_views)
        seen = links.merged(switch_links, links.path_links(found))
        summary.topology = links.store(seen, answered, now)
    except Exception as exc:
        log.warning("paths: links not recorded: %s", type(exc).__name__, exc_info=True)


def store_links(array: Device, found: list[Link], failed: set[Device], now: datetime) -> tuple[int, list[PathLink]]:
    """Replace the array's stored links with `found`, except those learned from a device in `failed`: kept as
    they were (all of them when the array itself failed), and no forwarding-table link of another switch takes
    their array port while they cannot be checked. Returns how many were learned now, and the kept links."""
    stored = list(PathLink.objects.filter(array=array).select_related("switch"))
    if array in failed:
        return 0, stored
    kept = [link for link in stored if link.switch in failed]
    held = {link.array_port for link in kept}
    fresh = [link for link in found if link.array_port not in held or "lldp" in link.via]
    keys = {(link.array, link.array_port[:255], link.switch, link.switch_port[:255]) for link in fresh}
    kept_ids = {link.pk for link in kept}
    gone = [link.pk for link in stored if link.pk not in kept_ids and _key(link) not in keys]
    PathLink.objects.filter(pk__in=gone).delete()
    PathLink.objects.bulk_create(
        [
            PathLink(
                array=array,
                array_port=link.array_port[:255],
                switch_id=int(link.switch),
                switch_port=link.switch_port[:255],
                via_fdb="fdb" in link.via,
                via_lldp="lldp" in link.via,
                mac=link.mac,
                vlan=link.vlan,
                learned_at=now,
            )
            for link in fresh
        ],
        update_conflicts=True,
        unique_fields=["array", "array_port", "switch", "switch_port"],
        update_fields=["via_fdb", "via_lldp", "mac", "vlan", "learned_at"],
    )
    return len(fresh), kept


def _key(link: PathLink) -> tuple[str, str, str, str]:
    return (str(link.array_id), link.array_port[:255], str(link.switch_id), link.switch_port[:255])


def _known(device: Device, view: L2View) -> L2View:
    """What is known of a device whose view failed: what it said before it stopped, its sysName from discovery."""
    if not view.sys_name:
        view.sys_name = device.sys_name
    return view


def _kept_notes(array: Device, kept: list[PathLink], failed: set[Device]) -> list[str]:
    """ "sw-edge did not answer: its 4 link(s) are kept as last seen at ...", per silent device."""
    by_device: dict[Device, list[PathLink]] = {}
    for link in kept:
        by_device.setdefault(array if array in failed else link.switch, []).append(link)
    return [
        f"{device.name} did not answer: its {len(links)} link(s) are kept as last seen at "
        f"{max(link.learned_at for link in links):%Y-%m-%d %H:%M %Z}"
        for device, links in by_device.items()
    ]


async def _read_all(devices: list[tuple[Device, bool]]) -> dict[Device, L2View]:
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(device: Device, array: bool) -> tuple[Device, L2View]:
        async with limit:
            try:
                session = open_session(device.snmp_target(), settings.MONITOR_SNMP_ENGINE)
                return device, await read_l2(session, fdb=not array, lldp=True, arp=not array)
            except SnmpError as exc:
                return device, L2View(errors=[str(exc)])
            except Exception as exc:  # an answer no reader expected costs this device only, never the refresh
                log.warning("paths: reading %s failed: %s", device.pk, type(exc).__name__, exc_info=True)
                return device, L2View(errors=[f"unreadable answer ({type(exc).__name__})"])

    return dict(await asyncio.gather(*(one(d, a) for d, a in devices)))
