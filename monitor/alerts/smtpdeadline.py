"""Django's SMTP backend under ONE deadline per connection (greeting, STARTTLS or TLS, login, every message): a
socket timeout bounds each read, not a whole answer, so a server trickling a byte every few seconds would outlive
the delivery's lease and another worker would send the mail again. A watchdog shuts the socket down in time."""

from __future__ import annotations

import smtplib
import time

from django.core.mail.backends.smtp import EmailBackend

from monitor.alerts.watchdog import Watchdog


class DeadlineBackend(EmailBackend):
    """The SMTP backend whose connection is shut down at `deadline` (time.monotonic), if one is given."""

    def __init__(self, *args, deadline: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.watchdog: Watchdog | None = None

    @property
    def connection_class(self) -> type:
        backend = self

        class Watched(smtplib.SMTP):
            def _get_socket(self, host, port, timeout):  # the plain socket: SMTP_SSL wraps it after this
                sock = super()._get_socket(host, port, timeout)
                backend.watch(sock)
                return sock

        return type("WatchedSSL", (smtplib.SMTP_SSL, Watched), {}) if self.use_ssl else Watched

    def watch(self, sock) -> None:
        """Start the watchdog on a new connection's socket (only one connection is watched at a time)."""
        if self.deadline is not None:
            self.cancel_watchdog()
            self.watchdog = Watchdog(sock, self.deadline)

    def open(self) -> bool | None:
        """As Django's, with no read waiting past the deadline either (nor for nothing once it has passed)."""
        if self.deadline is not None and not self.connection:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise smtplib.SMTPServerDisconnected("the deadline passed before connecting")
            self.timeout = min(self.timeout or left, left)
        return super().open()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self.cancel_watchdog()

    def cancel_watchdog(self) -> None:
        if self.watchdog is not None:
            self.watchdog.cancel()

    @property
    def overran(self) -> bool:
        """True when the deadline shut the connection down."""
        return self.watchdog is not None and self.watchdog.fired
