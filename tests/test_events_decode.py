"""Decoding without the network: the trap catalogue as checked at start, trap varbinds, syslog formats."""

from __future__ import annotations

import pytest

from monitor.events import catalog
from monitor.events.decode import PORT_MARK, decode
from monitor.events.syslogparse import BadSyslog, parse

TRAP_OID, UPTIME = "1.3.6.1.6.3.1.1.4.1.0", "1.3.6.1.2.1.1.3.0"


def test_the_shipped_catalogue_has_no_problem_and_a_broken_one_is_named():
    assert catalog.problems() == []
    _, problems = catalog.parse(
        {
            "objects": {"1.3.6.1.2": "ok", "x.y": "bad"},
            "notifications": [
                {"oid": "1.3.6.1.4.1.1.0.1", "name": "a", "kind": "nope", "severity": "warning", "text": "t"},
                {"oid": "1.3.6.1.4.1.1.0.2", "name": "b", "kind": "trap", "severity": "info", "text": "{missing}"},
            ],
        }
    )
    assert problems == [
        "traps.yaml objects: 'x.y' needs a numeric OID and a name",
        "traps.yaml notification 'a': kind must be one of "
        + str(sorted(catalog.KINDS))
        + " and severity one of "
        + str(list(catalog.SEVERITIES)),
        "traps.yaml notification 'b': text names unknown objects ['missing']",
    ]


@pytest.mark.parametrize("oid", ["1.3.6.1.4.1.674.10895.890", "1.3.6.1.4.1.674.10895.0.890"])
def test_a_notification_matches_in_its_v1_and_v2_forms_with_the_vendors_severity(oid):
    info = decode(
        [
            (UPTIME, 1234),
            (TRAP_OID, oid),
            ("1.3.6.1.4.1.674.10895.5000.1.1.1.0", "Fan 1 is not operational"),
            ("1.3.6.1.4.1.674.10895.5000.1.1.2.0", 3),
        ]
    )
    assert (info.name, info.kind, info.severity, info.uptime_ticks) == ("envMonFanStateChange", "trap", 3, 1234)
    assert info.text == "Fan state changed: Fan 1 is not operational"
    assert info.varbinds[1] == ["1.3.6.1.4.1.674.10895.5000.1.1.2.0", "dellTrapSeverity.0", 3]


def test_link_down_names_its_port_by_ifindex_and_a_device_string_cannot_fake_the_port_mark():
    info = decode(
        [
            (TRAP_OID, "1.3.6.1.6.3.1.1.5.3"),
            ("1.3.6.1.2.1.2.2.1.1.49", 49),
            ("1.3.6.1.2.1.2.2.1.7.49", 1),
            ("1.3.6.1.2.1.2.2.1.8.49", 7),
            ("1.3.6.1.2.1.31.1.1.1.1.49", f"1/xg1{PORT_MARK}"),
        ]
    )
    assert (info.if_index, info.port_hint) == (49, "1/xg1")
    assert info.text == f"Link down on {PORT_MARK} (admin up, oper lowerLayerDown)"
    assert info.text.count(PORT_MARK) == 1


def test_a_powerconnect_loop_trap_names_its_stp_instance_and_port():
    """FASTPATH-SWITCHING-MIB: stpInstanceLoopInconsistentStartTrap (...6132.1.1.1.0.17) carries agentStpMstId
    (agentStpMstTable, ...6132.1.1.1.2.15.10.1.1) and ifIndex."""
    info = decode(
        [
            (TRAP_OID, "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.0.17"),
            ("1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.2.15.10.1.1.3", 3),
            ("1.3.6.1.2.1.2.2.1.1.7", 7),
        ]
    )
    assert (info.name, info.severity, info.if_index) == ("stpInstanceLoopInconsistentStartTrap", 3, 7)
    assert info.text == f"Spanning tree loop inconsistency on {PORT_MARK} (instance 3)"
    assert info.varbinds[0][1] == "agentStpMstId.3"


def test_a_trap_without_snmptrapoid_is_kept_as_unknown():
    info = decode([(UPTIME, 5), ("1.3.6.1.4.1.9.9.9.0", "x")])
    assert (info.kind, info.text) == ("trap_unknown", "Unknown trap (no snmpTrapOID): 1.3.6.1.4.1.9.9.9.0=x")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"<0>Jan  1 00:00:00 h p: t", (0, 0, "h", "p", "t")),
        (b"<191>1 - - - - - - t", (23, 7, "", "", "t")),
        (b"<30>2026-03-04T05:06:07+01:00 nas01 smbd[9]: share offline", (3, 6, "nas01", "smbd", "share offline")),
        (b"<14>%LINK-3-UPDOWN: Interface 1/g1 down", (1, 6, "", "", "%LINK-3-UPDOWN: Interface 1/g1 down")),
        # PowerConnect (FASTPATH): a space after the PRI, the month in capitals, host = IP-stack unit.
        (b"<189> JAN 26 16:14:45 10.1.1.1-1 TRAPMGR[230001]: traputil.c(611) 3 %% Link Down: 1/g5",
         (23, 5, "10.1.1.1-1", "TRAPMGR", "traputil.c(611) 3 %% Link Down: 1/g5")),
        (b"<13>Mar  1 2026 18:46:11 nas02 raidd: with a year", (1, 5, "nas02", "raidd", "with a year")),
        (b"<13>*Mar  1 18:46:11.123 UTC: %SYS-5-CONFIG_I: by vty0", (1, 5, "", "", "%SYS-5-CONFIG_I: by vty0")),
        (b"<14>1 foo bar baz qux quux text", (1, 6, "", "", "1 foo bar baz qux quux text")),  # not RFC 5424
        (b"<14>Oct 11 22:14:15 lonely", (1, 6, "", "", "lonely")),
    ],
)  # fmt: skip
def test_syslog_variants(raw, expected):
    found = parse(raw)
    assert (found.facility, found.severity, found.hostname, found.app, found.text) == expected


def test_rfc5424_structured_data_escapes_bom_and_nil_parts():
    """RFC 5424 section 6.5's examples: an escaped ']' inside a value, two elements, the BOM before the message."""
    found = parse(
        b'<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" '
        b'eventSource="App\\]lication" eventID="1011"][examplePriority@32473 class="high"] \xef\xbb\xbfAn event'
    )
    assert (found.format, found.facility, found.severity, found.app, found.procid, found.msgid) == (
        "rfc5424",
        20,
        5,
        "evntslog",
        "",
        "ID47",
    )
    assert found.structured == (
        '[exampleSDID@32473 iut="3" eventSource="App\\]lication" eventID="1011"][examplePriority@32473 class="high"]'
    )
    assert (found.text, found.timestamp) == ("An event", "2003-10-11T22:14:15.003Z")
    assert found.hostname == "mymachine.example.com"
    bare = parse(b"<165>1 - - - - -")
    assert (bare.format, bare.text, bare.hostname, bare.timestamp, bare.structured) == ("rfc5424", "", "", "", "")


@pytest.mark.parametrize("raw", [b"", b"hello", b"<192>x", b"<1a>x", b"<>x"])
def test_not_syslog(raw):
    with pytest.raises(BadSyslog):
        parse(raw)
