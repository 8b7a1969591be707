"""Which device sent a message: source addresses (device hosts resolved), credentials and names, as a snapshot.

The receivers read a Directory in their event loop and swap in a fresh one every EVENTS_REFRESH_S seconds (the
writer thread builds it from the database, resolving DNS names there, never on the loop)."""

from __future__ import annotations

import ipaddress
import logging
import socket
from dataclasses import dataclass, field

from monitor.models import Device

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class V3User:
    user: str
    auth_protocol: str  # "" for noAuthNoPriv
    auth_key: str
    priv_protocol: str  # "" for no privacy
    priv_key: str
    engine_id: str = ""  # hex; "" = only informs (the receiver's own engine is authoritative)

    @property
    def level(self) -> int:
        """The security level configured (1 noAuthNoPriv, 2 authNoPriv, 3 authPriv): a message needs at least it."""
        return 3 if self.auth_protocol and self.priv_protocol else 2 if self.auth_protocol else 1


@dataclass(frozen=True)
class Entry:
    """One device as the receivers match it (secrets only in memory, never logged)."""

    id: int
    name: str
    sys_name: str
    community: str
    v3: V3User | None = None


@dataclass
class Directory:
    """Devices by source address, and the relays whose v1 traps speak for their agent address."""

    by_address: dict[str, tuple[Entry, ...]] = field(default_factory=dict)
    relays: frozenset[str] = frozenset()

    def candidates(self, address: str) -> tuple[Entry, ...]:
        return self.by_address.get(normal_address(address), ())

    @property
    def entries(self) -> list[Entry]:
        return list({e.id: e for found in self.by_address.values() for e in found}.values())


def named(found: tuple[Entry, ...] | list[Entry], most: int = 5) -> str:
    """The devices an ambiguous source could be, for the receivers' panel: "devices sw-a, sw-b"."""
    names = sorted(e.name[:60] for e in found)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return f"devices {', '.join(names[:most])}{more}"


def normal_address(address: str) -> str:
    """One spelling per address: IPv4-mapped IPv6 (::ffff:10.0.0.1) is the IPv4 address, zones dropped."""
    try:
        ip = ipaddress.ip_address(str(address).split("%", 1)[0])
    except ValueError:
        return str(address)
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return str(ip)


def resolve(host: str) -> set[str]:
    """The addresses of a host (a device's, a relay's): itself when it is an address, else what DNS says (empty if
    nothing), each spelled as normal_address spells it."""
    try:
        return {normal_address(str(ipaddress.ip_address(host.strip().split("%", 1)[0])))}
    except ValueError:
        pass
    try:
        return {normal_address(info[4][0]) for info in socket.getaddrinfo(host, None, proto=socket.IPPROTO_UDP)}
    except (OSError, UnicodeError) as exc:
        log.warning("host %r does not resolve (%s): its traps and syslog cannot be matched", host, exc)
        return set()


def relay_addresses(relays: list[str], resolver=resolve) -> frozenset[str]:
    """EVENTS_TRAP_RELAYS as addresses: each entry an address in any spelling, or a name resolved like a device's."""
    return frozenset(address for relay in relays for address in resolver(relay))


def _v3(device: Device, cred) -> V3User | None:
    if cred is not None and cred.v3_user:
        return V3User(
            cred.v3_user,
            cred.v3_auth_protocol if cred.v3_auth_key else "",
            cred.v3_auth_key,
            cred.v3_priv_protocol if cred.v3_priv_key else "",
            cred.v3_priv_key,
            cred.v3_engine_id.lower().removeprefix("0x"),
        )
    if device.snmp_version == Device.Version.V3 and device.v3_user:  # informs with the polling user
        target = device.snmp_target()
        return V3User(
            device.v3_user, target.v3_auth_protocol, target.v3_auth_key, target.v3_priv_protocol, target.v3_priv_key
        )
    return None


def load(relays: list[str] | None = None, resolver=resolve) -> Directory:
    """Every enabled device by its addresses, with the credentials its traps may carry."""
    from monitor.events.models import TrapCredential

    creds = {c.device_id: c for c in TrapCredential.objects.all()}
    by_address: dict[str, list[Entry]] = {}
    for device in Device.objects.filter(enabled=True).order_by("pk"):
        cred = creds.get(device.pk)
        community = (cred.community if cred is not None else "") or device.community
        entry = Entry(device.pk, device.name, device.sys_name, community, _v3(device, cred))
        for address in resolver(device.host):
            by_address.setdefault(address, []).append(entry)
    return Directory({a: tuple(found) for a, found in by_address.items()}, relay_addresses(relays or [], resolver))


def by_hostname(found: tuple[Entry, ...], hostname: str) -> tuple[Entry, ...]:
    """Among devices sharing an address, those a syslog HOSTNAME names (by sysName or name, any case)."""
    wanted = hostname.strip().lower()
    if not wanted:
        return ()
    short = wanted.split(".", 1)[0]
    return tuple(
        e for e in found if wanted in (e.sys_name.lower(), e.name.lower()) or short == e.sys_name.lower().split(".")[0]
    )
