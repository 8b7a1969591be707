"""The syslog receiver's TCP door played as an attacker: one address holding every connection slot."""

from __future__ import annotations

import socket

import pytest

from monitor.events.syslogd import SyslogReceiver
from monitor.models import Device
from tests import eventkit as kit
from tests.conftest import wait_for
from tests.test_events_syslog import tcp_send

pytestmark = pytest.mark.django_db(transaction=True)


def test_one_address_cannot_take_every_tcp_connection_slot(stack_env, settings):
    """With EVENTS_SYSLOG_MAX_CONNECTIONS_PER_SOURCE at 3, a fourth connection from one device's address is closed at
    once and counted; another device still connects, and the held connections still deliver."""
    settings.EVENTS_SYSLOG_MAX_CONNECTIONS_PER_SOURCE = 3
    array = Device.objects.create(name="eql-array", host="127.0.0.1", community="eql")
    other = Device.objects.create(name="other", host="127.0.0.2", community="other")
    receiver = SyslogReceiver("127.0.0.1", 0, name="syslog@doors").start()
    held = []
    try:
        held = [socket.create_connection(("127.0.0.1", receiver.port), timeout=5) for _ in range(3)]
        wait_for(lambda: receiver.connections == 3, 10, "3 connections held")
        with socket.create_connection(("127.0.0.1", receiver.port), timeout=5) as extra:
            assert kit.counted(receiver, "too_many_connections") == 1
            assert extra.recv(1) == b""  # closed by the receiver
        tcp_send(receiver.port, b"<14>from the other device\n", source="127.0.0.2")
        assert [e.text for e in kit.events_of(other, 1, source="syslog")] == ["from the other device"]
        held[0].sendall(b"<14>still delivered\n")
        assert [e.text for e in kit.events_of(array, 1, source="syslog")] == ["still delivered"]
    finally:
        for sock in held:
            sock.close()
        receiver.stop()
