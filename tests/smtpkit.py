"""Real SMTP servers on loopback for the mail secret tests: one that offers AUTH without TLS and records every
password it is given (the attacker's server), and one that trickles its greeting a byte at a time."""

from __future__ import annotations

import socket
import threading
import time

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

from monitor.devstack.processes import free_port
from tests.test_alert_kit import Sink
from tests.webhookkit import trickle


class RecordingSmtp:
    """aiosmtpd on `host` that takes any login over plain text and keeps the passwords it saw."""

    def __init__(self, host: str = "127.0.0.1"):
        self.host, self.port = host, free_port()
        self.sink = Sink()
        self.passwords: list[str] = []
        self.controller = Controller(
            self.sink, hostname=host, port=self.port, authenticator=self._login, auth_require_tls=False
        )

    def _login(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        self.passwords.append(auth_data.password.decode())
        return AuthResult(success=True)

    def __enter__(self) -> RecordingSmtp:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()


class TricklingSmtp:
    """Answers its first connection with a greeting of many "220-" lines, one byte every `interval` seconds (minutes
    in all): every read gets a byte long before a socket timeout, so only a deadline ends the wait."""

    GREETING = b"".join(b"220-slow.example says hello, line %d\r\n" % n for n in range(200)) + b"220 ready\r\n"

    def __init__(self, interval: float = 0.5):
        self.interval = interval
        self.connections: list[float] = []  # arrival times (time.monotonic)
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections.append(time.monotonic())
            if len(self.connections) > 1:  # a later sender is told at once (and fails): only the first trickles
                with conn:
                    conn.sendall(b"554 no service for a second sender\r\n")
                continue
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            trickle(conn, self.GREETING, self.interval, self.stopping)

    def close(self) -> None:
        self.stopping.set()
        self.listener.close()
