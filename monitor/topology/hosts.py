"""Record where each MAC address is plugged in, from the switches' forwarding tables as the daily layer-2 read finds
them (monitor/storage/paths.py), and find a host by its MAC in any common notation (by IP address or name once the
ARP tables are read: issue 42)."""

from __future__ import annotations

import ipaddress
import re
from datetime import datetime

from django.db import transaction
from django.db.models import QuerySet

from collectors.topology import L2View
from monitor.topology.edges import edge_ports
from monitor.topology.models import Address, Sighting

HEX = re.compile(r"[0-9a-f]")


def record(switches: dict[str, L2View], transit: dict[str, set[str]], now: datetime) -> int:
    """Keep every MAC found on an edge port (switches keyed by device id): a place seen before has its last seen
    moved on (and its VLAN, where it changed); a new one is a new row. Returns how many places were seen."""
    places = [(mac, int(switch), port, vlan) for mac, found in edge_ports(switches, transit).items()
              for switch, port, vlan in found]  # fmt: skip
    with transaction.atomic():
        known = {
            (row.mac, row.switch_id, row.port): row
            for row in Sighting.objects.select_for_update().filter(switch_id__in=[int(s) for s in switches])
        }
        new, seen = [], {}
        for mac, switch, port, vlan in places:
            row = known.get((mac, switch, port))
            if row is None:
                new.append(Sighting(mac=mac, switch_id=switch, port=port, vlan=vlan, first_seen=now, last_seen=now))
            elif row.pk not in seen:
                row.last_seen, row.vlan = now, vlan if vlan is not None else row.vlan
                seen[row.pk] = row
        Sighting.objects.bulk_create(new, ignore_conflicts=True, batch_size=500)
        Sighting.objects.bulk_update(list(seen.values()), ["last_seen", "vlan"], batch_size=500)
    return len(places)


def record_addresses(routers: dict[str, L2View], now: datetime) -> int:
    """Keep every IP-to-MAC entry of the devices' ARP caches (keyed by device id), as `record` keeps places."""
    entries = [(entry.ip, entry.mac, int(router)) for router, view in routers.items() for entry in view.arp]
    with transaction.atomic():
        known = {
            (row.ip, row.mac, row.router_id): row
            for row in Address.objects.select_for_update().filter(router_id__in=[int(r) for r in routers])
        }
        new, seen = [], {}
        for ip, mac, router in entries:
            row = known.get((ip, mac, router))
            if row is None:
                new.append(Address(ip=ip, mac=mac, router_id=router, first_seen=now, last_seen=now))
            elif row.pk not in seen:
                row.last_seen = now
                seen[row.pk] = row
        Address.objects.bulk_create(new, ignore_conflicts=True, batch_size=500)
        Address.objects.bulk_update(list(seen.values()), ["last_seen"], batch_size=500)
    return len(entries)


def mac_of(text: str) -> str | None:
    """aa:bb:cc:dd:ee:ff from any common notation (aa-bb-.., aabb.ccdd.eeff, AABBCCDDEEFF); None if not a MAC."""
    digits = "".join(HEX.findall(text.lower()))
    if len(digits) != 12 or re.sub(r"[0-9a-f:.\-\s]", "", text.lower()):
        return None
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))


def search(query: str, switches: QuerySet) -> tuple[str | None, QuerySet]:
    """(the MAC searched for, its sightings on the `switches` a reader may see, the newest first). An IP address is
    the MAC the devices' ARP caches last resolved it to (of those devices the reader may see). (None, no rows) when
    the query is neither, or the IP address is in no cache."""
    rows = Sighting.objects.filter(switch__in=switches).select_related("switch")
    mac = mac_of(query.strip()) or mac_at(query.strip(), switches)
    if mac is None:
        return None, rows.none()
    return mac, rows.filter(mac=mac).order_by("-last_seen", "switch__name", "port")


def is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def mac_at(text: str, routers: QuerySet) -> str | None:
    """The MAC an IP address (v4 or v6, any spelling) was last resolved to by the `routers`; None if none did."""
    try:
        ip = str(ipaddress.ip_address(text))
    except ValueError:
        return None
    found = Address.objects.filter(ip=ip, router__in=routers).order_by("-last_seen").values_list("mac", flat=True)
    return found.first()


def on_port(switch_id: int, port: str, limit: int = 50) -> list[Sighting]:
    """What was seen plugged into one switch port, the newest first."""
    return list(Sighting.objects.filter(switch_id=switch_id, port=port).order_by("-last_seen", "mac")[:limit])
