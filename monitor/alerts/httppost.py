"""One POST to a channel's receiver under ONE deadline (name lookup, connect, TLS, request, the answer's status line
and headers), only to addresses webhookaddress allows, never following a redirect (the caller judges a 3xx). A
socket timeout bounds each read, not the whole answer: a receiver sending a byte every few seconds would outlive the
delivery's lease, so a watchdog shuts the socket down when the time is up."""

from __future__ import annotations

import http.client
import re
import socket
import ssl
import string
import threading
import time
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from monitor.alerts.httpproxy import proxy_for, tunnel
from monitor.alerts.watchdog import Watchdog, overrun
from monitor.alerts.webhookaddress import host_refusal, refusal

DEFAULT_PORTS = {"http": 80, "https": 443}
CONTROL_OR_SPACE = re.compile(r"[\x00-\x20\x7f]")


class PostFailed(Exception):
    """Nothing was taken by the receiver; permanent when sending again cannot help (a malformed or refused URL)."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


@dataclass(frozen=True)
class Answer:
    """What the receiver said: its status, reason phrase and Location header (both as sent: untrusted)."""

    status: int
    reason: str
    location: str


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str

    @property
    def authority(self) -> str:
        """host:port, an IPv6 address in brackets (what a CONNECT names)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    @property
    def host_header(self) -> str:
        """The Host header: the port only when it is not the scheme's own."""
        return self.authority.rsplit(":", 1)[0] if self.port == DEFAULT_PORTS[self.scheme] else self.authority


def parse(url: str) -> Target:
    """The URL's parts, or PostFailed(permanent): no retry repairs a malformed URL."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower(), 0)
        host = (parts.hostname or "").encode("idna").decode("ascii")
    except (ValueError, UnicodeError) as exc:
        raise PostFailed(f"the channel's URL is malformed: {exc}", permanent=True) from None
    if parts.scheme.lower() not in DEFAULT_PORTS:
        raise PostFailed("the channel's URL is not http:// or https://", permanent=True)
    if not host or parts.username is not None or CONTROL_OR_SPACE.search(url.strip()):
        raise PostFailed("the channel's URL is malformed: no host, a user name, or white space", permanent=True)
    path = quote((parts.path or "/") + (f"?{parts.query}" if parts.query else ""), safe=string.punctuation)
    return Target(parts.scheme.lower(), host, port, path)


def post(url: str, body: bytes, headers: dict[str, str], seconds: float) -> Answer:
    """POST `body`; the receiver's answer once its head is in, or PostFailed (an overrun of `seconds` is one)."""
    target = parse(url)
    deadline = time.monotonic() + seconds
    proxy = proxy_for(target.scheme, target.host)
    if proxy is None:
        sock = _connect(_addresses(target.host, target.port, deadline, seconds), deadline, seconds)
    else:  # the proxy resolves the name: only what the URL writes can be checked here
        why = host_refusal(target.host)
        if why:
            raise PostFailed(why, permanent=True)
        sock = _connect(_addresses(proxy.host, proxy.port, deadline, seconds, checked=False), deadline, seconds)
    watchdog = Watchdog(sock, deadline)
    conn = None
    try:
        sock.settimeout(max(deadline - time.monotonic(), 0.01))  # each operation too, should the watchdog be late
        path, extra = target.path, {}
        if proxy is not None and target.scheme == "https":
            tunnel(sock, target.authority, proxy)
        elif proxy is not None:
            path, extra = f"http://{target.host_header}{target.path}", proxy.headers
        if target.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=target.host)
        conn = http.client.HTTPConnection(target.host, target.port)
        conn.sock = sock  # the checked, connected socket: http.client does no lookup or connect of its own
        conn.request("POST", path, body=body, headers={**headers, **extra, "Host": target.host_header})
        response = conn.getresponse()
        return Answer(response.status, response.reason or "", response.getheader("Location") or "")
    except (OSError, ValueError, http.client.HTTPException) as exc:
        if watchdog.fired or isinstance(exc, TimeoutError):
            raise PostFailed(overrun(seconds, "receiver")) from None
        raise PostFailed(f"{type(exc).__name__}: {exc}") from None
    finally:
        watchdog.cancel()
        if conn is not None:
            conn.close()  # the response too
        sock.close()


def _addresses(host: str, port: int, deadline: float, seconds: float, checked: bool = True) -> list[tuple]:
    """Every address the host resolves to, looked up within the deadline; one the policy refuses refuses all."""
    found: list = []
    done = threading.Event()

    def lookup() -> None:
        try:
            found.extend(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except OSError as exc:
            found.append(exc)
        done.set()

    threading.Thread(target=lookup, name="webhook-lookup", daemon=True).start()  # getaddrinfo has no timeout
    if not done.wait(max(deadline - time.monotonic(), 0)):
        raise PostFailed(overrun(seconds, "receiver"))
    if found and isinstance(found[0], OSError):
        raise PostFailed(f"{type(found[0]).__name__}: {found[0]}")
    for *_, address in found:
        why = refusal(address[0]) if checked else None
        if why:
            raise PostFailed(why, permanent=True)
    return [(family, kind, proto, address) for family, kind, proto, _, address in found]


def _connect(addresses: list[tuple], deadline: float, seconds: float) -> socket.socket:
    """A connection to the first of the checked addresses that answers, within the deadline."""
    error: OSError | None = None
    for family, kind, proto, address in addresses:
        left = deadline - time.monotonic()
        if left <= 0:
            raise PostFailed(overrun(seconds, "receiver"))
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(left)
            sock.connect(address)
            return sock
        except TimeoutError:
            sock.close()
            raise PostFailed(overrun(seconds, "receiver")) from None
        except OSError as exc:
            sock.close()
            error = exc
    raise PostFailed(f"{type(error).__name__}: {error}" if error else "no address to connect to")
