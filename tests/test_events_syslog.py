"""The syslog receiver with real senders on loopback: util-linux's logger (UDP and TCP) and plain sockets."""

from __future__ import annotations

import socket
import subprocess

import pytest

from monitor.events.models import Event
from monitor.events.syslogd import SyslogReceiver
from monitor.models import Device, Interface
from tests import eventkit as kit

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def array(stack_env):
    return Device.objects.create(name="eql-array", host="127.0.0.1", community="eql")


@pytest.fixture
def syslogd(array):
    receiver = SyslogReceiver("127.0.0.1", 0, name="syslog@test").start()
    yield receiver
    receiver.stop()


def logger(port: int, *args: str) -> None:
    """util-linux's logger, sending to a loopback port (fails the test if it is missing or refuses)."""
    result = subprocess.run(["logger", "-n", "127.0.0.1", "-P", str(port), *args], capture_output=True, timeout=20)
    assert result.returncode == 0, result.stderr


def tcp_send(port: int, payload: bytes, source: str = "127.0.0.1") -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0)) as sock:
        sock.sendall(payload)


def test_udp_and_tcp_in_both_formats_from_logger_and_sockets(array, syslogd):
    port = syslogd.port
    logger(port, "-d", "--rfc3164", "-p", "local0.warning", "-t", "iscsid", "connection to 10.0.0.5 lost")
    logger(port, "-T", "--octet-count", "--rfc5424", "-p", "daemon.err", "-t", "raidd", "--msgid", "R17",
           "RAID <degraded> on member 2")  # fmt: skip
    kit.send_udp(port, b"<190>Oct  1 12:00:01 eql-array TRAPMGR[123]: Link Down: 1/g5")
    kit.send_udp(port, b"<189> JAN 26 16:14:45 10.1.1.1-1 TRAPMGR[230001]: traputil.c(611) 3 %% Link Up: 1/g5")
    tcp_send(port, b'<13>1 2026-01-02T03:04:05Z eql-array app 42 - [x@1 a="b"] first line\n<14>second line\n')
    events = kit.events_of(array, 6, source="syslog")
    by_text = {e.text: e for e in events}
    first = by_text["iscsid: connection to 10.0.0.5 lost"]
    assert (first.severity, first.facility, first.name, first.kind) == (4, 16, "iscsid", "syslog")
    assert first.detail["format"] == "rfc3164" and first.detail["from"] == "127.0.0.1"
    raid = by_text["raidd: RAID <degraded> on member 2"]
    assert (raid.severity, raid.facility, raid.detail["msgid"], raid.detail["format"]) == (3, 3, "R17", "rfc5424")
    link = by_text["TRAPMGR: Link Down: 1/g5"]
    assert (link.severity, link.facility, link.detail["hostname"], link.detail["procid"]) == (6, 23, "eql-array", "123")
    pc = by_text["TRAPMGR: traputil.c(611) 3 %% Link Up: 1/g5"]  # PowerConnect's own format
    assert (pc.severity, pc.facility, pc.detail["hostname"], pc.detail["timestamp"]) == (5, 23, "10.1.1.1-1",
                                                                                       "JAN 26 16:14:45")  # fmt: skip
    framed = by_text["app: first line"]
    assert framed.detail["structured"] == '[x@1 a="b"]' and framed.detail["timestamp"] == "2026-01-02T03:04:05Z"
    assert by_text["second line"].severity == 6


def test_devices_sharing_an_address_are_told_apart_by_hostname(array, syslogd):
    switch = Device.objects.create(name="pc6248", host="127.0.0.1", community="pc", sys_name="pc6248-demo")
    syslogd.refresh()
    kit.send_udp(syslogd.port, b"<12>Oct  1 12:00:01 pc6248-demo.example.org app: for the switch")
    kit.send_udp(syslogd.port, b"<12>Oct  1 12:00:01 eql-array app: for the array")
    kit.send_udp(syslogd.port, b"<12>Oct  1 12:00:01 stranger app: for nobody")
    assert [e.text for e in kit.events_of(switch, 1, source="syslog")] == ["app: for the switch"]
    assert [e.text for e in kit.events_of(array, 1, source="syslog")] == ["app: for the array"]
    assert kit.counted(syslogd, "ambiguous_source") == 1


def test_bad_input_counted_never_raised(array, syslogd):
    port = syslogd.port
    kit.send_udp(port, b"no priority at all")
    kit.send_udp(port, b"<999>out of range")
    kit.send_udp(port, b"<14>" + b"x" * 9000)  # over EVENTS_MAX_MESSAGE_BYTES
    kit.send_udp(port, b"<14>from a stranger", source="127.0.0.8")
    tcp_send(port, b"20000 " + b"y" * 20000 + b"<14>after the oversized frame\n")
    tcp_send(port, b"<14>" + b"z" * 70000 + b"\n<14>after the long line\n")
    tcp_send(port, b"<14>text with \x00 a NUL and \xff\xfe bad UTF-8\n")
    tcp_send(port, b"1" * 70000)  # digits and never the space of an octet count: framing lost, connection closed
    tcp_send(port, b"<14>from a stranger over TCP\n", source="127.0.0.8")  # refused at connect
    assert kit.counted(syslogd, "malformed", 3) == 3
    assert kit.counted(syslogd, "oversized", 3) == 3
    assert kit.counted(syslogd, "unknown_source", 2) == 2
    texts = {e.text for e in kit.events_of(array, 3, source="syslog")}
    assert texts == {"after the oversized frame", "after the long line", "text with  a NUL and \ufffd\ufffd bad UTF-8"}
    assert Event.objects.filter(source="syslog").count() == 3


def test_the_demo_switch_speaks_to_the_demo_receivers_and_only_it_gets_the_events(stack_env):
    """make demo's sender (snmptrap and a PowerConnect-format line): matched to the switch, not to the array that
    shares 127.0.0.1, by the trap's community and the line's host."""
    from monitor.devstack import eventsender, fleet
    from monitor.events.traps import TrapReceiver

    sims = fleet.demo_fleet()
    switch, array = (Device.objects.create(name=s.sys_name, host="127.0.0.1", community=s.community) for s in sims)
    Interface.objects.create(device=switch, name="1/g5", if_index=5)
    traps = TrapReceiver("127.0.0.1", 0, name="trap@demo").start()
    syslog = SyslogReceiver("127.0.0.1", 0, name="syslog@demo").start()
    try:
        assert eventsender.trap(traps.port, sims[0].community, 5, down=True) is True
        eventsender.syslog(syslog.port, sims[0].sys_name, 4, "TRAPMGR", "Link Down: 1/g5")
        events = kit.events_of(switch, 2, source__in=["trap", "syslog"])
    finally:
        traps.stop()
        syslog.stop()
    assert sorted((e.kind, e.port, e.text) for e in events) == [
        ("link_down", "1/g5", "Link down on 1/g5 (admin up, oper down)"),
        ("syslog", "1/g5", "TRAPMGR: demo.c(1) 1 %% Link Down: 1/g5"),  # the line names the port: its graphs
    ]
    assert not Event.objects.filter(device=array, source__in=["trap", "syslog"]).exists()


def test_a_long_line_is_stored_cut_and_says_so(array, syslogd):
    """Text past 2,000 characters and a field past 500 are cut before the queue; the row and the counts say so."""
    kit.send_udp(syslogd.port, b"<14>Oct  1 12:00:01 " + b"h" * 600 + b" app: " + b"w" * 5000)
    (event,) = kit.events_of(array, 1, source="syslog")
    assert len(event.text) == 2000 and event.text.endswith("…") and event.text.startswith("app: www")
    assert event.detail["truncated"] == {"hostname": 600, "text": 5005}
    assert len(event.detail["hostname"]) == 500
    assert kit.counted(syslogd, "truncated") == 1


def test_a_line_naming_ports_belongs_to_them_and_a_number_is_no_port(stack_env):
    """A syslog line is tagged with the device's port it names as a word (a line naming several lists them all); a
    port named only by digits, a name inside a longer word, or a name with spaces is never taken from the text."""
    from monitor.events.syslogd import SyslogReceiver

    switch = Device.objects.create(name="ports", host="127.0.0.1", community="p", sys_name="ports-sw")
    for index, name in enumerate(("1/g1", "1/g10", "Gi1/0/2", "7", "Unit: 1 Port: 3"), start=1):
        Interface.objects.create(device=switch, name=name, if_index=index)
    lines = {
        "one": b"<12>Oct  1 12:00:01 ports-sw link: Interface 1/g10, changed state to down",
        "case": b"<12>Oct  1 12:00:02 ports-sw link: gi1/0/2: err-disabled.",
        "two": b"<12>Oct  1 12:00:03 ports-sw lacp: 1/g1 and 1/g10 left port-channel 7",
        "none": b"<12>Oct  1 12:00:04 ports-sw app: vlan 7 on 1/g100 and x1/g1 and Unit: 1 Port: 3",
    }
    syslog = SyslogReceiver("127.0.0.1", 0, name="syslog@ports").start()
    try:
        for line in lines.values():
            kit.send_udp(syslog.port, line)
        events = kit.events_of(switch, 4, source="syslog")
    finally:
        syslog.stop()
    found = {e.text.split(": ", 1)[1][:12]: (e.port, e.detail.get("ports")) for e in events}
    assert found == {
        "Interface 1/": ("1/g10", None),
        "gi1/0/2: err": ("Gi1/0/2", None),
        "1/g1 and 1/g": ("1/g1", ["1/g1", "1/g10"]),
        "vlan 7 on 1/": ("", None),
    }
