"""The trap receiver's door played as an attacker: relays written as names."""

from __future__ import annotations

import pytest
from django.core import checks
from pysnmp.hlapi.v3arch import asyncio as hlapi

from monitor.events.models import TrapCredential
from monitor.events.traps import TrapReceiver
from monitor.models import Device, Interface
from tests import eventkit as kit

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE_ID = "8000000001020304"
OTHER_ENGINE_ID = "8000000001090909"
SHA, AES = hlapi.usmHMACSHAAuthProtocol, hlapi.usmAesCfb128Protocol


@pytest.fixture
def switch(stack_env):
    device = Device.objects.create(name="trap-switch", host="127.0.0.1", community="traps", snmp_version="2c")
    Interface.objects.create(device=device, name="1/g5", if_index=5)
    TrapCredential.objects.create(
        device=device, v3_user="trapper", v3_engine_id=ENGINE_ID, v3_auth_protocol="SHA",
        v3_auth_key="auth-key-123", v3_priv_protocol="AES128", v3_priv_key="priv-key-123",
    )  # fmt: skip
    return device


@pytest.fixture
def trapd(switch):
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@doors").start()
    yield receiver
    receiver.stop()


@pytest.mark.parametrize("relay", ["localhost", "::FFFF:127.0.0.1", "0:0:0:0:0:FFFF:7F00:1"])
def test_relays_are_matched_however_they_are_written(switch, trapd, settings, relay):
    """EVENTS_TRAP_RELAYS as a DNS name or another spelling of the address: normalised like device hosts."""
    far = Device.objects.create(name="far-switch", host="127.0.0.5", community="relayed")
    settings.EVENTS_TRAP_RELAYS = [relay]
    trapd.refresh()
    kit.snmptrap("-v", "1", "-c", "relayed", f"127.0.0.1:{trapd.port}", "1.3.6.1.4.1.674.10895", "127.0.0.5", "3",
                 "0", "")  # fmt: skip
    (event,) = kit.events_of(far, 1, source="trap")
    assert (event.kind, event.detail["agent_address"]) == ("link_up", "127.0.0.5")


def test_a_relay_that_is_neither_an_address_nor_a_name_is_a_check_error(settings):
    settings.EVENTS_TRAP_RELAYS = ["127.0.0.1", "10.0.0.300", "no such host.invalid"]
    errors = [e for e in checks.run_checks() if e.id == "events.E002"]
    assert sorted(e.msg for e in errors) == [
        "EVENTS_TRAP_RELAYS entry '10.0.0.300' is neither an IP address nor a name that resolves",
        "EVENTS_TRAP_RELAYS entry 'no such host.invalid' is neither an IP address nor a name that resolves",
    ]
