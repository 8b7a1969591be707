"""The operator's outbound proxy for a channel's POST, from the environment as urllib reads it (HTTPS_PROXY,
HTTP_PROXY, NO_PROXY): https goes through a CONNECT tunnel (TLS still ends at the receiver), http as an absolute URI.
The proxy is the operator's choice: its address is not checked; the receiver's host is, as far as it is written."""

from __future__ import annotations

import base64
import http.client
import socket
import urllib.request
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit


class ProxyRefused(OSError):
    """The proxy did not open the tunnel; the text is its status line (no credential)."""


@dataclass(frozen=True)
class Proxy:
    host: str
    port: int
    headers: dict[str, str]  # Proxy-Authorization when the proxy URL holds a user name


def proxy_for(scheme: str, host: str) -> Proxy | None:
    """The proxy the environment names for this scheme, unless NO_PROXY exempts the host."""
    found = urllib.request.getproxies().get(scheme)
    if not found or urllib.request.proxy_bypass(host):
        return None
    parts = urlsplit(found if "://" in found else f"http://{found}")
    headers = {}
    if parts.username is not None:
        pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()
        headers["Proxy-Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
    return Proxy(parts.hostname or "", parts.port or 80, headers)


def tunnel(sock: socket.socket, authority: str, proxy: Proxy) -> None:
    """Ask the proxy for a tunnel to host:port on a connected socket; ProxyRefused unless it answers 2xx."""
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}", *(f"{k}: {v}" for k, v in proxy.headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
    answer = http.client.HTTPResponse(sock, method="CONNECT")
    try:
        answer.begin()  # the status line and headers; the proxy sends nothing more before the client speaks
    finally:
        answer.close()  # its reader only: the socket stays open for the tunnel
    if not 200 <= answer.status < 300:
        raise ProxyRefused(f"the proxy {proxy.host}:{proxy.port} answered {answer.status} {answer.reason[:100]}")
