"""Shared parts for the alert tests: a real SMTP server (aiosmtpd) on loopback, devices, polls, rules."""

from __future__ import annotations

import asyncio
import email
import time
from email import policy

import pytest
from aiosmtpd.controller import Controller

from monitor.alerts.models import Rule
from monitor.devstack.processes import free_port
from monitor.models import Device
from monitor.polling.run import run_poll

HIGH = 120_000_000.0  # bytes/s on a 1 Gbit/s port: 96 % (above 80 % even in a poll interval that mixes rates)
BASE = {f"1/g{i}-in": 1_250_000.0 * i for i in range(1, 9)}  # the agent's own rates (1 % for 1/g1)


class Sink:
    """aiosmtpd handler that keeps every message it accepted (optionally slow, to widen races)."""

    def __init__(self, delay: float = 0.0):
        self.delay = delay
        self.messages: list[email.message.EmailMessage] = []
        self.recipients: list[list[str]] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        self.messages.append(email.message_from_bytes(envelope.content, policy=policy.default))
        self.recipients.append(list(envelope.rcpt_tos))
        return "250 OK"


class SmtpServer:
    """A real SMTP server on a loopback port, which tests can stop and start again."""

    def __init__(self, port: int | None = None, delay: float = 0.0):
        self.port = port or free_port()
        self.sink = Sink(delay)
        self.controller: Controller | None = None

    def start(self) -> SmtpServer:
        self.controller = Controller(self.sink, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def messages(self) -> list:
        return self.sink.messages

    def env(self) -> dict[str, str]:
        """Settings for worker subprocesses sending through this server."""
        return {
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.port),
            "EMAIL_USE_TLS": "false",
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        }


def use_smtp(settings, port: int) -> None:
    """Point this process's Django mail at a loopback SMTP port (pytest-django installs locmem otherwise)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER, settings.EMAIL_TIMEOUT = "", 5


@pytest.fixture
def smtp(settings):
    server = SmtpServer().start()
    use_smtp(settings, server.port)
    yield server
    server.stop()


@pytest.fixture
def restore_rates(agent):
    """Put the session agent's port rates back after a test drove them."""
    yield agent
    for key, rate in BASE.items():
        agent.set_rate(key, rate)


def make_switch(agent, name: str = "alert-switch", **extra) -> Device:
    fields = {"host": "127.0.0.1", "port": agent.port, "community": "switch", "poll_interval_s": 2, "timeout_s": 1.0}
    return Device.objects.create(name=name, **{"retries": 1, **fields, **extra})


def util_rule(device: Device, port: str = "1/g1", **extra) -> Rule:
    fields = {
        "name": f"{port} utilisation",
        "metric": "port_util",
        "scope": Rule.Scope.SERIES,
        "device": device,
        "instance": port,
        "unit": Rule.Unit.PERCENT,
        "fire_level": 80.0,
        "clear_level": 70.0,
        "for_polls": 3,
        "recipient_emails": "ops@example.com",
    }
    fields.update(extra)
    return Rule.objects.create(**fields)


def poll(device: Device, gap: float = 1.5) -> None:
    """Wait so the poll gets a rate, then poll in-process (the same function the worker runs)."""
    time.sleep(gap)
    result = run_poll(device.pk)
    assert result.startswith("ok"), result


def prime(device: Device, rule: Rule, tries: int = 4) -> None:
    """Poll at the agent's own rates until the rule has seen a value (the first poll only stores counters)."""
    from monitor.alerts.models import AlertState

    for attempt in range(tries):
        poll(device, gap=0 if attempt == 0 else 1.5)
        if AlertState.objects.filter(rule=rule, value__isnull=False).exists():
            return
    raise AssertionError(f"rule {rule} saw no value after {tries} polls")


def subjects(server: SmtpServer) -> list[str]:
    return [str(m["Subject"]) for m in server.messages]
