"""Where a channel may send: any host on the internet or the local network (the admin who sets a channel chooses
it), never a link-local or cloud metadata address, nor the monitor's own host unless ALERTS_WEBHOOK_ALLOW_LOOPBACK.
The sender checks every address a name resolves to and connects only to those; the form checks literal ones."""

from __future__ import annotations

import ipaddress

from django.conf import settings

# Cloud metadata services outside link-local space (169.254.169.254 is link-local): Alibaba's, AWS's IPv6 one.
METADATA = {ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254")}
LOCAL_NAMES = ("localhost", "localhost.", "localhost.localdomain")


def refusal(address: str, allow_loopback: bool | None = None) -> str | None:
    """Why an IP address is not a receiver this monitor may send to (the message names it), or None."""
    if allow_loopback is None:
        allow_loopback = settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone ("fe80::1%eth0") is not part of it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return _message(address, _why(ip, allow_loopback))


def _message(name: str, why: str) -> str | None:
    return f"{name} is not a receiver this monitor may send to: {why}" if why else None


def _why(ip: ipaddress.IPv4Address | ipaddress.IPv6Address, allow_loopback: bool) -> str:
    if ip in METADATA:
        return "it is a cloud metadata service's address"
    if ip.is_link_local:
        return "it is link-local, where cloud metadata services answer"
    if ip.is_unspecified:
        return "it means 'this host'; name the receiver's own address"
    if ip.is_loopback and not allow_loopback:
        return "it is this monitor's own host (loopback); the operator may allow it with ALERTS_WEBHOOK_ALLOW_LOOPBACK"
    if ip.is_multicast or (ip.is_reserved and not ip.is_loopback):
        return "it is a multicast or reserved address"
    return ""


def host_refusal(host: str) -> str | None:
    """The form's check of a URL's host: a literal address by the rules above, and the names of this host."""
    try:
        return refusal(host.strip("[]"))
    except ValueError:  # a name: the sender checks what it resolves to
        pass
    if host.lower() in LOCAL_NAMES or host.lower().endswith(".localhost"):  # RFC 6761: always this host
        return _message(host, _why(ipaddress.ip_address("127.0.0.1"), settings.ALERTS_WEBHOOK_ALLOW_LOOPBACK))
    return None
