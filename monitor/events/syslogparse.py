"""Syslog messages (RFC 5424 and RFC 3164, as devices really send them) to their parts; text kept as text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
PRI = re.compile(rb"^<(\d{1,3})>")
RFC5424 = re.compile(
    r"^(?P<version>[1-9]\d{0,2}) (?P<ts>\S+) (?P<host>\S+) (?P<app>\S+) (?P<procid>\S+) (?P<msgid>\S+) (?P<rest>.*)$",
    re.S,
)
RFC3164_TS = re.compile(rf"^(?P<ts>(?:{MONTHS}) [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?)(?: (?P<rest>.*))?$", re.S)
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
    rest = found.group("rest")
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
    """'Mmm dd hh:mm:ss host tag[pid]: text'; devices leave out the host, the time or both, or write ISO times."""
    timestamp, rest = "", body
    stamp = RFC3164_TS.match(body) or ISO_TS.match(body)
    if stamp is not None:
        timestamp, rest = stamp.group("ts"), stamp.group("rest") or ""
        first, _, after = rest.partition(" ")
        # A host is a word before the tag; "tag:" or "tag[pid]:" straight after the time means no host.
        hostname = "" if (TAG.match(rest) and first.endswith(":")) or first.endswith("]:") else first
        rest = after if hostname else rest
    else:
        hostname = ""
    tag = TAG.match(rest)
    app = procid = ""
    if tag is not None and (stamp is not None or tag.group("app") != rest):
        app, procid, rest = tag.group("app"), tag.group("procid") or "", tag.group("msg")
    return Syslog(facility, severity, rest.strip(), hostname, app, procid, "", timestamp, "", "rfc3164")
