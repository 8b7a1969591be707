"""Where alert mail goes: the one place a mail connection is built (admin's mail server, else EMAIL_*)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.core.mail import EmailMessage, get_connection
from django.utils import timezone

from monitor.alerts.models import MailServer

log = logging.getLogger(__name__)
SMTP_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
DEADLINE_BACKEND = "monitor.alerts.smtpdeadline.DeadlineBackend"  # Django's, with one deadline per connection


class MailNotSent(Exception):
    """A mail could not be sent; the message is safe to show (no password)."""


@dataclass
class Outbox:
    """A connection to send through, the sender address, and the secrets an error must never show."""

    connection: object
    from_email: str
    description: str
    secrets: tuple[str, ...] = field(default=(), repr=False)


def outbox(deadline: float | None = None) -> Outbox:
    """The admin's mail server when it has a host; otherwise the environment (EMAIL_*, or the file backend).
    An SMTP connection is shut down at `deadline` (time.monotonic) when one is given (monitor.alerts.smtpdeadline)."""
    env_secret = (getattr(settings, "EMAIL_HOST_PASSWORD", "") or "",)
    server = MailServer.active()
    if server is None:
        backend = settings.EMAIL_BACKEND
        if backend.endswith("filebased.EmailBackend"):
            where = f"files in {settings.EMAIL_FILE_PATH} (no mail server set; readable at /alerts/mail/)"
        elif backend == SMTP_BACKEND:
            where = f"{settings.EMAIL_HOST}:{settings.EMAIL_PORT} (EMAIL_* environment settings)"
        else:
            where = f"the {backend.rsplit('.', 2)[-2]} mail backend (EMAIL_BACKEND)"
        if backend == SMTP_BACKEND:
            connection = get_connection(DEADLINE_BACKEND, timeout=settings.EMAIL_TIMEOUT, deadline=deadline)
        else:
            connection = get_connection(timeout=settings.EMAIL_TIMEOUT)
        return Outbox(connection, settings.DEFAULT_FROM_EMAIL, where, env_secret)
    connection = get_connection(
        DEADLINE_BACKEND,
        deadline=deadline,
        host=server.host,
        port=server.port,
        username=server.username or "",
        password=server.password or "",
        use_tls=server.security == MailServer.Security.STARTTLS,
        use_ssl=server.security == MailServer.Security.TLS,
        timeout=server.timeout_s,
    )
    where = f"{server.host}:{server.port} ({server.get_security_display()}; Admin → Mail server)"
    return Outbox(connection, server.from_email or settings.DEFAULT_FROM_EMAIL, where, (server.password, *env_secret))


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """An error message fit for pages and logs: no SMTP password (the environment's or the stored one)."""
    for secret in {*secrets, getattr(settings, "EMAIL_HOST_PASSWORD", "") or ""}:
        if secret:
            text = text.replace(secret, "***")
    return text[:500]


def send_test(to: str, requested_by: str = "") -> str:
    """Send a test mail to `to` exactly the way alert mails go; returns where it went or raises MailNotSent."""
    if not to:
        raise MailNotSent("your user has no email address: set one in Admin → Users first")
    box = outbox()
    body = (
        "This is a test mail from the SNMP monitor.\n\n"
        f"Sent through: {box.description}\nRequested by: {requested_by or to}\n"
        f"At: {timezone.now():%Y-%m-%d %H:%M:%S %Z}\n\nIf you read this, alert mails will reach you too.\n"
    )
    message = EmailMessage(
        "Test mail from the SNMP monitor", body, from_email=box.from_email, to=[to], connection=box.connection
    )
    try:
        message.send(fail_silently=False)
    except Exception as exc:  # refused login, TLS mismatch, connection refused, timeout: say which
        reason = redact(f"{type(exc).__name__}: {exc}", box.secrets)
        log.warning("test mail to %s not sent through %s: %s", to, box.description, reason)
        raise MailNotSent(reason) from None
    log.info("test mail sent to %s through %s", to, box.description)
    return box.description
