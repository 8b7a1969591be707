"""The receivers fuzzed over real sockets: Hypothesis-built traps (v1, v2c and v3 from their grammar, and mutations
of datagrams real senders wrote) and syslog messages (RFC 3164, RFC 5424, PowerConnect's, garbage, invalid UTF-8,
huge, odd PRIs; over UDP and TCP in both framings). Each message ends stored or counted under exactly one reason,
and the receiver stores a good message after. Derandomized: CI runs the same examples every time."""

from __future__ import annotations

import json
import socket
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.events.counting import REASONS
from monitor.events.models import TEXT_MAX, Event, TrapCredential
from monitor.events.syslogd import SyslogReceiver
from monitor.events.traps import TrapReceiver
from monitor.models import Device
from tests import berfuzz
from tests import eventkit as kit
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
ENGINE_ID = "8000000001020304"
OUTCOMES = [reason for reason in REASONS if reason != "truncated"]  # truncated ones are stored too
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def outcomes(receiver) -> int:
    return sum(receiver.counts.totals[reason] for reason in OUTCOMES)


def settle(receiver, expected: int) -> None:
    """Wait until the receiver has an outcome for every message sent (stored, or counted under a reason)."""
    wait_for(lambda: outcomes(receiver) >= expected, 15, f"{expected} outcomes", interval=0.002)


def alive_and_bounded(receiver, device, sent: int, base: int) -> None:
    """Exactly one outcome a message, the receiver's thread alive, and every row within the bounds."""
    assert outcomes(receiver) == base + sent, dict(receiver.counts.totals)
    assert receiver._thread.is_alive() and receiver.error is None
    for event in Event.objects.filter(device=device, source__in=["trap", "syslog"]):
        assert len(event.text) <= TEXT_MAX and len(json.dumps(event.detail)) <= 6000, event.pk


@pytest.fixture
def switch(stack_env):
    device = Device.objects.create(name="fuzz-switch", host="127.0.0.1", community="traps", snmp_version="2c")
    TrapCredential.objects.create(
        device=device, v3_user="trapper", v3_engine_id=ENGINE_ID, v3_auth_protocol="SHA",
        v3_auth_key="auth-key-123", v3_priv_protocol="AES128", v3_priv_key="priv-key-123",
    )  # fmt: skip
    return device


def captured(tool: str, *args: str) -> bytes:
    """The first datagram Net-SNMP's tool sends (to a socket of ours that never answers)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        target = f"127.0.0.1:{sock.getsockname()[1]}"
        subprocess.run([tool, "-t", "1", "-r", "0", *[target if a == "TARGET" else a for a in args]],
                       capture_output=True, timeout=20, check=False)  # fmt: skip
        return sock.recvfrom(65535)[0]


@pytest.fixture(scope="module")
def seeds() -> list[bytes]:
    v3 = ["-v", "3", "-u", "trapper", "-l", "authPriv", "-a", "SHA", "-A", "auth-key-123", "-x", "AES", "-X",
          "priv-key-123"]  # fmt: skip
    fan = ["1.3.6.1.4.1.674.10895", "127.0.0.1", "6", "890", "", "1.3.6.1.4.1.674.10895.5000.1.1.1.0", "s", "Fan 2"]
    link = kit.link_trap_args(0, 5)
    return [
        captured("snmptrap", "-v", "1", "-c", "traps", "TARGET", *fan),
        captured("snmptrap", *link[:4], "TARGET", *link[5:]),
        captured("snmpinform", "-v", "2c", "-c", "traps", "TARGET", "", "1.3.6.1.6.3.1.1.5.1"),
        captured("snmptrap", *v3, "-e", f"0x{ENGINE_ID}", "TARGET", "", kit.LINK_UP, f"{kit.IF_INDEX}.5", "i", "5"),
        captured("snmpinform", *v3, "TARGET", "", "1.3.6.1.6.3.1.1.5.2"),  # its engine ID discovery
    ]


def test_traps_fuzzed_over_udp_are_stored_or_counted_and_the_receiver_goes_on(switch, seeds):
    receiver = TrapReceiver("127.0.0.1", 0, name="trap@fuzz").start()
    base, sent = outcomes(receiver), [0]
    messages = st.one_of(
        berfuzz.valid_traps(),
        berfuzz.community_messages(),
        berfuzz.mutations(seeds),
        berfuzz.usm_messages(b"trapper", bytes.fromhex(ENGINE_ID)),
        st.binary(min_size=8193, max_size=8400),  # past EVENTS_MAX_MESSAGE_BYTES
    )

    @settings(FUZZ, max_examples=300)
    @given(message=messages)
    def one(message: bytes) -> None:
        kit.send_udp(receiver.port, message)
        sent[0] += 1
        settle(receiver, base + sent[0])

    try:
        one()
        alive_and_bounded(receiver, switch, sent[0], base)
        assert all(model._cache.is_empty() for model in receiver.engine.security_models.values())
        kit.snmptrap("-v", "2c", "-c", "traps", f"127.0.0.1:{receiver.port}", "", "1.3.6.1.4.1.99999.0.42",
                     "1.3.6.1.4.1.99999.1", "s", "alive after the fuzz")  # fmt: skip
        assert kit.events_of(switch, 1, text__contains="alive after the fuzz")
    finally:
        receiver.stop()
    reasons = {reason for reason in OUTCOMES if receiver.counts.totals[reason]}
    assert {"stored", "malformed", "bad_community", "v3_level_too_low", "oversized"} <= reasons, reasons


@pytest.fixture
def array(stack_env):
    return Device.objects.create(name="fuzz-array", host="127.0.0.1", community="eql")


@pytest.fixture
def syslogd(array):
    receiver = SyslogReceiver("127.0.0.1", 0, name="syslog@fuzz").start()
    yield receiver
    receiver.stop()


def test_syslog_fuzzed_over_udp_is_stored_or_counted(array, syslogd):
    base, sent = outcomes(syslogd), [0]

    @settings(FUZZ, max_examples=400)
    @given(line=berfuzz.syslog_lines())
    def one(line: bytes) -> None:
        kit.send_udp(syslogd.port, line)
        sent[0] += 1
        settle(syslogd, base + sent[0])

    one()
    alive_and_bounded(syslogd, array, sent[0], base)
    kit.send_udp(syslogd.port, b"<14>alive after the fuzz")
    assert kit.events_of(array, 1, text="alive after the fuzz")
    assert {"stored", "malformed", "oversized", "truncated"} <= {r for r, n in syslogd.counts.totals.items() if n}


def framed(lines: list[bytes], octets: bool) -> tuple[bytes, int]:
    """The TCP stream of these messages (RFC 6587 octet counting, or one a line) and how many messages it holds."""
    if octets:
        return b"".join(b"%d %s" % (len(line), line) for line in lines), len(lines)
    return b"".join(line + b"\n" for line in lines), len(lines)


def one_line(line: bytes) -> bool:
    """A message that stays one message in newline framing (no newline, not empty once cut, not an octet count)."""
    cut = line.lstrip(b"\x00").rstrip(b"\r\n")
    return b"\n" not in line and bool(cut) and not line[:1].isdigit()


def test_syslog_fuzzed_over_tcp_in_both_framings_is_stored_or_counted(array, syslogd):
    base, sent = outcomes(syslogd), [0]

    @settings(FUZZ, max_examples=150)
    @given(lines=st.lists(berfuzz.syslog_lines().filter(lambda line: line != b""), min_size=1, max_size=4),
           octets=st.booleans())  # fmt: skip
    def one(lines: list[bytes], octets: bool) -> None:
        if not octets:
            lines = [line for line in lines if one_line(line)] or [b"<14>a plain line"]
        stream, count = framed(lines, octets)
        with socket.create_connection(("127.0.0.1", syslogd.port), timeout=10) as sock:
            sock.sendall(stream)
            sock.shutdown(socket.SHUT_WR)
            sent[0] += count
            settle(syslogd, base + sent[0])
        wait_for(lambda: syslogd.connections == 0, 10, "the connection closed", interval=0.002)

    one()
    alive_and_bounded(syslogd, array, sent[0], base)


def test_garbage_streams_over_tcp_leave_the_receiver_working(array, syslogd):
    """Arbitrary bytes on a connection (lost framing, digits, huge counts): the connection ends, nothing is raised,
    and the next connection's message is stored."""

    @settings(FUZZ, max_examples=100)
    @given(stream=st.one_of(st.binary(max_size=3000), st.binary(max_size=30).map(lambda b: b * 500),
                            st.integers(0, 10**12).map(lambda n: b"%d " % n + b"x" * 100)))  # fmt: skip
    def one(stream: bytes) -> None:
        with socket.create_connection(("127.0.0.1", syslogd.port), timeout=10) as sock:
            try:
                sock.sendall(stream)
                sock.shutdown(socket.SHUT_WR)
            except OSError:  # the receiver closed it first (framing lost)
                pass
        wait_for(lambda: syslogd.connections == 0, 10, "the connection closed", interval=0.002)

    one()
    assert syslogd._thread.is_alive() and syslogd.error is None
    with socket.create_connection(("127.0.0.1", syslogd.port), timeout=10) as sock:
        sock.sendall(b"<14>alive after the garbage\n")
    assert kit.events_of(array, 1, text="alive after the garbage")
