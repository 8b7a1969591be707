"""A host name typed into the host search, resolved to its addresses by the machine's own resolver (/etc/hosts, then
DNS, with its search domains), so a host is found by the name its admins call it. Bounded: at most MAX_AT_ONCE
lookups run or wait at once (a busy resolver answers "not now" at once, it never queues a page behind others), each
waits at most MONITOR_HOSTS_DNS_TIMEOUT_S, and an answer (a failure too) is kept a minute per name; off with
MONITOR_HOSTS_DNS=0 (a name then is searched for nowhere)."""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as Late

from django.conf import settings

LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)\Z")
MAX_ADDRESSES = 16
MAX_AT_ONCE = 4  # lookups running or waiting; one more is refused at once, not queued
KEEP_S = 60.0  # how long an answer (an empty one too) is kept for a name
MAX_KEPT = 1000
_resolver = ThreadPoolExecutor(max_workers=MAX_AT_ONCE, thread_name_prefix="host-names")
_slots = threading.BoundedSemaphore(MAX_AT_ONCE)
_kept: dict[str, tuple[float, list[str]]] = {}
_kept_lock = threading.Lock()


def is_name(text: str) -> bool:
    """A host name as RFC 1123 writes one: dot-separated labels of letters, digits and inner hyphens, at most 253
    characters, not all digits (that would be an address)."""
    name = text.lower().removesuffix(".")
    if not name or len(name) > 253 or re.fullmatch(r"[0-9.]+", name):
        return False
    return all(LABEL.match(label) for label in name.split("."))


def addresses(name: str) -> list[str]:
    """The IPv4 and IPv6 addresses `name` resolves to (each once, in the resolver's order); [] when it resolves to
    none, when the resolver fails, is slower than MONITOR_HOSTS_DNS_TIMEOUT_S or is busy with MAX_AT_ONCE lookups
    already, or when lookups are off."""
    if not settings.MONITOR_HOSTS_DNS or not is_name(name):
        return []
    name = name.lower().removesuffix(".")
    with _kept_lock:
        kept = _kept.get(name)
    if kept is not None and time.monotonic() - kept[0] < KEEP_S:
        return list(kept[1])
    if not _slots.acquire(blocking=False):
        return []  # the resolver is busy: answer now, without it
    lookup = _resolver.submit(_resolve, name)  # the slot is given back when the lookup ends, however late
    try:
        return list(lookup.result(timeout=settings.MONITOR_HOSTS_DNS_TIMEOUT_S))
    except Late:
        return []  # kept when it ends, for the next search


def _resolve(name: str) -> list[str]:
    """The name's addresses, kept for KEEP_S (a failure as none); its slot given back."""
    try:
        found = socket.getaddrinfo(name, None, 0, socket.SOCK_STREAM)
        ips = [str(ipaddress.ip_address(info[4][0].split("%")[0])) for info in found]
    except (OSError, UnicodeError, ValueError):
        ips = []
    finally:
        _slots.release()
    ips = list(dict.fromkeys(ips))[:MAX_ADDRESSES]
    with _kept_lock:
        if len(_kept) >= MAX_KEPT:
            _kept.clear()
        _kept[name] = (time.monotonic(), ips)
    return ips
