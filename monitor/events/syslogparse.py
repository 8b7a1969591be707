"""Syslog messages (RFC 5424 and RFC 3164, as devices really send them) to their parts; text kept as text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
PRI = re.compile(rb"^<(\d{1,3})>")
# RFC 5424: VERSION SP TIMESTAMP (NILVALUE or a full date and time) SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP ...
RFC5424 = re.compile(
    r"^(?P<version>[1-9]\d{0,2}) (?P<ts>-|\d{4}-\d\d-\d\dT\S+) (?P<host>\S+) (?P<app>\S+) (?P<procid>\S+) "
    r"(?P<msgid>\S+)(?: (?P<rest>.*))?$",
    re.S,
)
# BSD timestamps as devices write them: "Oct  1 12:00:01", "JAN 01 00:00:06" (PowerConnect), a year
# ("Mar  1 2026 18:46:11"), fractions, a zone ("UTC", "CEST"), a leading "*" or "." and a trailing ":" (Cisco).
RFC3164_TS = re.compile(
    rf"^[*.]?(?P<ts>(?i:{MONTHS}) +\d{{1,2}}(?: \d{{4}})? \d\d:\d\d:\d\d(?:\.\d+)?(?: (?:UTC|GMT|[A-Z]{{1,3}}[SD]?T))?)"
    r":?(?: +(?P<rest>.*))?$",
    re.S,
)
ISO_TS = re.compile(r"^(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?) (?P<rest>.*)$", re.S)
TAG = re.compile(r"^(?P<app>[\w./-]{1,48})(?:\[(?P<procid>[^\]]{1,32})\])?: ?(?P<msg>.*)$", re.S)
SD_ELEMENT = re.compile(r'\[(?:[^\]"\\]|"(?:[^"\\]|\\.)*")*\]')


class BadSyslog(ValueError):
    """Not a syslog message (no <PRI>, or a PRI out of range)."""


@dataclass
class Syslog:
    facility: int
    severity: int
    text: str
    hostname: str = ""
    app: str = ""
    procid: str = ""
    msgid: str = ""
    timestamp: str = ""  # as the device wrote it (its clock), kept in the detail
    structured: str = ""
    format: str = "rfc3164"
    detail: dict = field(default_factory=dict)


def _nil(value: str) -> str:
    return "" if value == "-" else value


def _text(raw: bytes) -> str:
    text = raw.decode("utf-8", errors="replace").removeprefix("\ufeff")  # RFC 5424's BOM before UTF-8 text
    return text.replace("\x00", "").rstrip("\r\n")


def parse(raw: bytes) -> Syslog:
    """One message (no framing): RFC 5424 when a version follows the PRI, else the BSD format and its variants."""
    match = PRI.match(raw)
    if match is None or int(match.group(1)) > 191:
        raise BadSyslog("no <PRI> (0-191) at the start")
    pri = int(match.group(1))
    facility, severity = divmod(pri, 8)
    body = _text(raw[match.end() :])
    modern = RFC5424.match(body)
    if modern is not None:
        return _rfc5424(facility, severity, modern)
    return _rfc3164(facility, severity, body)


def _rfc5424(facility: int, severity: int, found: re.Match) -> Syslog:
    rest = found.group("rest") or ""
    structured = ""
    if rest.startswith("-"):
        rest = rest[1:]
    else:
        while (element := SD_ELEMENT.match(rest)) is not None:
            structured += element.group(0)
            rest = rest[element.end() :]
    return Syslog(
        facility,
        severity,
        rest.lstrip(" ").removeprefix("\ufeff"),
        _nil(found.group("host")),
        _nil(found.group("app")),
        _nil(found.group("procid")),
        _nil(found.group("msgid")),
        _nil(found.group("ts")),
        structured,
        "rfc5424",
    )


def _rfc3164(facility: int, severity: int, body: str) -> Syslog:
    """'Mmm dd hh:mm:ss host tag[pid]: text'; devices leave out the host, the time or both, write ISO times, a year,
    capitals or a space after the PRI (PowerConnect: '<189> JAN 26 16:14:45 10.1.1.1-1 TRAPMGR[1]: ...')."""
    body = body.lstrip(" ")
    timestamp, hostname, rest = "", "", body
    stamp = RFC3164_TS.match(body) or ISO_TS.match(body)
    if stamp is not None:
        timestamp, rest = stamp.group("ts"), stamp.group("rest") or ""
        first, _, after = rest.partition(" ")
        # A host is a word before the tag; a word ending in ':' straight after the time is the tag (no host).
        if first and not first.endswith(":") and after:
            hostname, rest = first, after
    tag = TAG.match(rest)
    app = procid = ""
    if tag is not None:
        app, procid, rest = tag.group("app"), tag.group("procid") or "", tag.group("msg")
    return Syslog(facility, severity, rest.strip(), hostname, app, procid, "", timestamp, "", "rfc3164")
