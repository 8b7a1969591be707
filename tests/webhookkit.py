"""Real HTTP receivers on loopback for the channel tests: one that answers as a script says (redirects, 4xx) and
records every request of any method, and one that trickles its answer a byte at a time."""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

Answer = tuple[int, dict[str, str], bytes]


class Scripted:
    """Records every request (method, path, headers, body, arrival) and answers `answer(request)`: 200 by default."""

    def __init__(self, answer: Callable[[dict], Answer] | None = None, port: int = 0, tls: tuple | None = None):
        self.requests: list[dict] = []
        self.answer = answer or (lambda request: (200, {}, b"ok"))
        scripted = self

        class Handler(BaseHTTPRequestHandler):
            def handle_any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = {"method": self.command, "path": self.path, "headers": dict(self.headers), "body": body}
                scripted.requests.append(request | {"at": time.monotonic()})
                status, headers, payload = scripted.answer(request)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = handle_any

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        if tls is not None:  # (certificate chain file, key file): HTTPS
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Trickler:
    """Takes a request whole, then sends its first answer one byte every `interval` seconds (a status line padded
    with a long header: minutes in all); later requests are answered at once."""

    ANSWER = b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * 400 + b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"

    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.requests: list[float] = []  # arrival times (time.monotonic) of each complete request
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/slow/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                ),
                0,
            )
            while len(body) < length:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                body += chunk
            self.requests.append(time.monotonic())
            if len(self.requests) > 1:
                conn.sendall(self.ANSWER)
                return
            trickle(conn, self.ANSWER, self.interval, self.stopping)

    def close(self) -> None:
        self.stopping.set()
        self.listener.close()


def trickle(conn: socket.socket, data: bytes, interval: float, stopping: threading.Event) -> None:
    """Send `data` a byte every `interval` seconds until it is all sent, the sender closes or `stopping` is set."""
    for byte in data:
        if stopping.wait(interval):
            return
        try:
            conn.sendall(bytes([byte]))
        except OSError:
            return  # the sender gave up and closed


class ForwardProxy:
    """An HTTP proxy on loopback: CONNECT opens a tunnel, an absolute-URI request is forwarded; it records each
    request line with its Proxy-Authorization header."""

    def __init__(self):
        self.seen: list[tuple[str, str]] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                conn.close()
                return
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        first, *lines = head.decode("latin-1").split("\r\n")
        fields = dict(line.split(": ", 1) for line in lines)
        self.seen.append((first, fields.pop("Proxy-Authorization", "")))
        method, target, version = first.split(" ")
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            upstream = socket.create_connection((host.strip("[]"), int(port)))
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        else:
            parts = urlsplit(target)
            upstream = socket.create_connection((parts.hostname, parts.port or 80))
            origin = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            kept = "".join(f"{k}: {v}\r\n" for k, v in fields.items())
            upstream.sendall(f"{method} {origin} {version}\r\n{kept}\r\n".encode("latin-1"))
        if rest:
            upstream.sendall(rest)
        threading.Thread(target=_pipe, args=(upstream, conn), daemon=True).start()
        _pipe(conn, upstream)

    def close(self) -> None:
        self.listener.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    """Copy until the source ends, then end the sink's side."""
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def certificates(folder: Path, name: str) -> tuple[Path, Path, Path]:
    """A test CA and a server certificate it signed for `name` only: (CA file, certificate file, key file)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "webhook test CA")])
    ca = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    names = [x509.DNSName(name)]
    with contextlib.suppress(ValueError):  # an address: named as one
        names = [x509.IPAddress(ipaddress.ip_address(name))]
    leaf = (
        x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )  # fmt: skip
    pem = serialization.Encoding.PEM
    paths = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(leaf.public_bytes(pem))
    paths[2].write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


def race_while_claimed(
    send_one, pk: int, claimed_until, sends_seen, server
) -> tuple[dict, list[str], datetime.datetime]:
    """Send row `pk` in a first worker thread and, while it holds the claim, again and again as a second worker on the
    real claim path, until the first is done and its lease is over (or `server` saw a second send); then close it.

    `claimed_until()` reads the row's lease end, `sends_seen()` how many sends the server got. Returns the first's
    outcome (with when it ended, "at"), the second's answers and the lease's end."""
    from django.db import connection
    from django.utils import timezone

    from tests.conftest import wait_for

    first: dict = {}

    def first_worker():
        try:
            first["outcome"] = send_one(pk)
            first["at"], first["done"] = timezone.now(), time.monotonic()
        finally:
            connection.close()

    worker = threading.Thread(target=first_worker)
    worker.start()
    lease_end = wait_for(claimed_until, 10, "the first worker's claim")
    second: list[str] = []
    while not ("done" in first and timezone.now() > lease_end) and sends_seen() < 2:
        second.append(send_one(pk))
        time.sleep(0.2)
    server.close()
    worker.join(30)
    return first, second, lease_end
