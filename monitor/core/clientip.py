"""The client's address for login lock-outs (django-axes' AXES_CLIENT_IP_CALLABLE), right behind a TLS proxy.

Only a request that arrives from a trusted proxy (MONITOR_TRUSTED_PROXIES) has its X-Forwarded-For read, from the
right: each trusted proxy appended the address it received from, so the right-most address that is not a trusted
proxy is the client; whatever a client wrote into the header itself lies further left and is never read. A
request from anywhere else is its REMOTE_ADDR. django-ipware counts proxies in the header but does not check
that the request came from one, which lets a client that reaches gunicorn directly choose its own address.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(items: Iterable[str], name: str = "MONITOR_TRUSTED_PROXIES") -> list[Network]:
    """Addresses or CIDR prefixes; a ValueError naming the setting and the item for anything else."""
    networks = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{name}: {item.strip()[:60]!r} is not an IP address or CIDR prefix") from None
    return networks


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return address.ipv4_mapped or address if isinstance(address, ipaddress.IPv6Address) else address


def _trusted(address, networks: list[Network]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_ip(request) -> str | None:
    """The address lock-outs count against (see the module's docstring)."""
    remote = request.META.get("REMOTE_ADDR", "") or None
    networks = settings.MONITOR_TRUSTED_PROXIES
    if not networks or not _trusted(_address(remote or ""), networks):
        return remote
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "")[:2000].split(",")
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return remote  # a hop our proxies did not write: count against the proxy rather than guess
        if not _trusted(address, networks):
            return str(address)
    return remote
