"""A host name typed into the host search, resolved to its addresses by the machine's own resolver (/etc/hosts, then
DNS, with its search domains), so a host is found by the name its admins call it; bounded in time, and off with
MONITOR_HOSTS_DNS=0 (a name then is searched for nowhere)."""

from __future__ import annotations

import ipaddress
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late

from django.conf import settings

LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)\Z")
MAX_ADDRESSES = 16
_resolver = ThreadPoolExecutor(max_workers=4, thread_name_prefix="host-names")


def is_name(text: str) -> bool:
    """A host name as RFC 1123 writes one: dot-separated labels of letters, digits and inner hyphens, at most 253
    characters, not all digits (that would be an address)."""
    name = text.lower().removesuffix(".")
    if not name or len(name) > 253 or re.fullmatch(r"[0-9.]+", name):
        return False
    return all(LABEL.match(label) for label in name.split("."))


def addresses(name: str) -> list[str]:
    """The IPv4 and IPv6 addresses `name` resolves to (each once, in the resolver's order); [] when it resolves to
    none, when the resolver fails or is slower than MONITOR_HOSTS_DNS_TIMEOUT_S, or when lookups are off."""
    if not settings.MONITOR_HOSTS_DNS or not is_name(name):
        return []
    lookup = _resolver.submit(socket.getaddrinfo, name, None, 0, socket.SOCK_STREAM)
    try:
        found = lookup.result(timeout=settings.MONITOR_HOSTS_DNS_TIMEOUT_S)
    except (Late, OSError, UnicodeError):
        return []
    ips = [str(ipaddress.ip_address(info[4][0].split("%")[0])) for info in found]
    return list(dict.fromkeys(ips))[:MAX_ADDRESSES]
