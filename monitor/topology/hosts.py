"""Record where each MAC address is plugged in, from the switches' forwarding tables as the daily layer-2 read finds
them (monitor/storage/paths.py), and what IP addresses the devices' ARP caches resolve to which MAC; find a host by
its MAC in any common notation, or by an IP address (or a host name's, monitor/topology/names.py) through those
caches."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet

from collectors.topology import L2View
from monitor.topology import names
from monitor.topology.edges import edge_ports
from monitor.topology.models import Address, Sighting

HEX = re.compile(r"[0-9a-f]")
CHUNK = 1000  # rows written per statement (and transaction)
MAX_PLACES = 100  # places answered for one query


def record(switches: dict[str, L2View], transit: dict[str, set[str]], now: datetime) -> int:
    """Keep every MAC found on an edge port (switches keyed by device id): a place seen before has its last seen
    (and VLAN) moved on, a new one is a new row; written in chunks, each its own transaction, so no other writer
    waits on the whole fleet. Returns how many places were seen."""
    places = {
        (mac, int(switch), port): _vlan(vlan)
        for mac, found in edge_ports(switches, transit).items()
        for switch, port, vlan in found
    }
    rows = [
        Sighting(mac=mac, switch_id=switch, port=port, vlan=vlan, first_seen=now, last_seen=now)
        for (mac, switch, port), vlan in places.items()
    ]
    for start in range(0, len(rows), CHUNK):
        Sighting.objects.bulk_create(
            rows[start : start + CHUNK],
            update_conflicts=True,
            unique_fields=["mac", "switch", "port"],
            update_fields=["last_seen", "vlan"],
        )
    return len(rows)


def record_addresses(routers: dict[str, L2View], now: datetime) -> int:
    """Keep every IP-to-MAC entry of the devices' ARP caches (keyed by device id), as `record` keeps places."""
    entries = {(entry.ip, entry.mac, int(router)) for router, view in routers.items() for entry in view.arp}
    rows = [Address(ip=ip, mac=mac, router_id=router, first_seen=now, last_seen=now) for ip, mac, router in entries]
    for start in range(0, len(rows), CHUNK):
        Address.objects.bulk_create(
            rows[start : start + CHUNK],
            update_conflicts=True,
            unique_fields=["ip", "mac", "router"],
            update_fields=["last_seen"],
        )
    return len(rows)


def forget_before(now: datetime) -> None:
    """Drop what was last seen longer ago than settings.MONITOR_HOSTS_KEEP_DAYS (randomised and DHCP MACs would
    otherwise pile up for ever)."""
    before = now - timedelta(days=settings.MONITOR_HOSTS_KEEP_DAYS)
    Sighting.objects.filter(last_seen__lt=before).delete()
    Address.objects.filter(last_seen__lt=before).delete()


def _vlan(vlan: int | None) -> int | None:
    """A VLAN id (1-4094) as the forwarding table gave it; anything else (a Q-BRIDGE FDB id of a device that does
    not number them by VLAN, a hostile value) is none."""
    return vlan if isinstance(vlan, int) and 1 <= vlan <= 4094 else None


def mac_of(text: str) -> str | None:
    """aa:bb:cc:dd:ee:ff from any common notation (aa-bb-.., aabb.ccdd.eeff, AABBCCDDEEFF); None if not a MAC."""
    digits = "".join(HEX.findall(text.lower()))
    if len(digits) != 12 or re.sub(r"[0-9a-f:.\-\s]", "", text.lower()):
        return None
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))


@dataclass
class Found:
    """What a host search found: the MAC followed (None: none), the IP addresses looked up (the query's own, or those
    its name resolved to) and the MAC's places, the newest first."""

    mac: str | None
    places: QuerySet
    addresses: list[str] = field(default_factory=list)


def search(query: str, switches: QuerySet, resolve: bool = True) -> Found:
    """Where a host was seen on the `switches` a reader may see. A MAC is itself; an IP address is the MAC the
    devices' ARP caches last resolved it to (of those devices the reader may see); a host name (when `resolve`) is
    the MAC of the first of its addresses a cache holds. No MAC and no places when none is."""
    rows = Sighting.objects.filter(switch__in=switches).select_related("switch")
    text = query.strip()
    mac = mac_of(text)
    ips = [] if mac else [text] if is_ip(text) else names.addresses(text) if resolve else []
    for ip in ips:
        mac = mac or mac_at(ip, switches)
    if mac is None:
        return Found(None, rows.none(), ips)
    return Found(mac, rows.filter(mac=mac).order_by("-last_seen", "switch__name", "port")[:MAX_PLACES], ips)


def is_ip(text: str) -> bool:
    """An IPv4 or IPv6 address without a zone (`fe80::1%eth0` is refused: no cache is keyed by it)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return "%" not in text


def mac_at(text: str, routers: QuerySet) -> str | None:
    """The MAC an IP address (v4 or v6, any spelling) was last resolved to by the `routers`; None if none did."""
    if not is_ip(text):
        return None
    ip = str(ipaddress.ip_address(text))
    found = Address.objects.filter(ip=ip, router__in=routers).order_by("-last_seen", "mac")
    return found.values_list("mac", flat=True).first()  # several devices may differ: the newest, then the lowest


def on_port(switch_id: int, port: str, limit: int = 50) -> list[Sighting]:
    """What was seen plugged into one switch port, the newest first."""
    return list(Sighting.objects.filter(switch_id=switch_id, port=port).order_by("-last_seen", "mac")[:limit])
