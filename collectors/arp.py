"""What a layer-3 device knows of IP addresses to MACs: its ARP and IPv6 neighbour caches (IP-MIB).

- ipNetToPhysicalTable (1.3.6.1.2.1.4.35.1: .4 PhysAddress, .6 Type), indexed by ifIndex, address type (ipv4(1),
  ipv6(2)) and the address as a length-prefixed octet string (RFC 4293);
- the older ipNetToMediaTable (1.3.6.1.2.1.4.22.1: .2 PhysAddress, .4 Type), indexed by ifIndex and an IPv4
  address, read where the newer one is empty.
Entries of type invalid(2) are left out; local(5) ones too (the device's own addresses).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from collectors.l2text import mac_text
from collectors.sessions import Session
from collectors.snmptypes import SnmpError

PHYSICAL_ADDRESS = "1.3.6.1.2.1.4.35.1.4"
PHYSICAL_TYPE = "1.3.6.1.2.1.4.35.1.6"
MEDIA_ADDRESS = "1.3.6.1.2.1.4.22.1.2"
MEDIA_TYPE = "1.3.6.1.2.1.4.22.1.4"
LEFT_OUT = {2, 5}  # invalid, local
MAX_ROWS = 50_000


@dataclass(frozen=True)
class ArpEntry:
    """An IP address and the MAC the device resolved it to."""

    ip: str
    mac: str


async def read_arp(session: Session) -> tuple[list[ArpEntry], list[str]]:
    """(the device's IP-to-MAC entries, what failed)."""
    try:
        table = await session.walk([PHYSICAL_ADDRESS, PHYSICAL_TYPE], MAX_ROWS)
        rows = [(_inet(index[1:]), value, table[PHYSICAL_TYPE].get(index)) for index, value in
                table[PHYSICAL_ADDRESS].items()]  # fmt: skip
        if not rows:
            older = await session.walk([MEDIA_ADDRESS, MEDIA_TYPE], MAX_ROWS)
            rows = [(_ipv4(index[1:]), value, older[MEDIA_TYPE].get(index)) for index, value in
                    older[MEDIA_ADDRESS].items()]  # fmt: skip
    except SnmpError as exc:
        return [], [f"ARP table: {exc}"]
    except Exception as exc:  # an answer no reader expected costs the cache only, never the layer-2 view
        return [], [f"ARP table: unreadable answer ({type(exc).__name__})"]
    found = {
        ArpEntry(ip, mac)
        for ip, value, kind in rows
        if ip and (mac := mac_text(value)) and not (kind is not None and kind.kind == "int" and kind.value in LEFT_OUT)
    }
    return sorted(found, key=lambda e: (e.ip, e.mac)), []


def _ipv4(index: tuple[int, ...]) -> str:
    return str(ipaddress.IPv4Address(bytes(index))) if len(index) == 4 and all(0 <= b <= 255 for b in index) else ""


def _inet(index: tuple[int, ...]) -> str:
    """An InetAddressType.InetAddress index (type, length, octets) as text; "" for anything else."""
    if len(index) < 2 or index[1] != len(index) - 2 or not all(0 <= b <= 255 for b in index[2:]):
        return ""
    kind, raw = index[0], bytes(index[2:])
    if kind == 1 and len(raw) == 4:
        return str(ipaddress.IPv4Address(raw))
    if kind == 2 and len(raw) == 16:
        return str(ipaddress.IPv6Address(raw))
    return ""
