"""What kinds of events there are, their default severity, and the syslog severity scale every event uses."""

from __future__ import annotations

from dataclasses import dataclass

# RFC 5424 severities: every event has one, so markers, filters and rules compare one scale.
SEVERITIES = ("emergency", "alert", "critical", "error", "warning", "notice", "info", "debug")
SEVERITY_CHOICES = [(number, name) for number, name in enumerate(SEVERITIES)]
# Marker colours by severity (the events page and markers.js use the same).
COLOURS = ("#8e1b10", "#a61e22", "#c0392b", "#e0661b", "#d68910", "#1f5fbf", "#5d6d7e", "#95a5a6")
FACILITIES = (
    "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron", "authpriv", "ftp",
    "ntp", "audit", "alert", "clock", "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
)  # fmt: skip

TRAP, SYSLOG, MONITOR = "trap", "syslog", "monitor"
SOURCE_CHOICES = [(TRAP, "SNMP trap"), (SYSLOG, "syslog"), (MONITOR, "the monitor")]


@dataclass(frozen=True)
class Kind:
    slug: str
    label: str
    source: str
    severity: int  # default; a trap's catalogue entry or a syslog message says its own
    port: bool = False  # concerns one port (drawn on that port's graphs)


KINDS: dict[str, Kind] = {
    k.slug: k
    for k in (
        Kind("link_down", "linkDown trap", TRAP, 4, port=True),
        Kind("link_up", "linkUp trap", TRAP, 5, port=True),
        Kind("cold_start", "coldStart trap", TRAP, 4),
        Kind("warm_start", "warmStart trap", TRAP, 5),
        Kind("auth_failure", "authenticationFailure trap", TRAP, 4),
        Kind("trap", "vendor trap", TRAP, 5),
        Kind("trap_unknown", "unknown trap", TRAP, 6),
        Kind("syslog", "syslog message", SYSLOG, 6),
        Kind("reboot", "reboot (sysUpTime went back)", MONITOR, 4),
        Kind("port_down", "port went down (seen by a poll)", MONITOR, 4, port=True),
        Kind("port_up", "port came up (seen by a poll)", MONITOR, 5, port=True),
        Kind("port_renamed", "port renamed", MONITOR, 5, port=True),
        Kind("speed_changed", "port speed changed", MONITOR, 5, port=True),
        Kind("device_added", "device added", MONITOR, 6),
        Kind("rediscovered", "device rediscovered", MONITOR, 6),
        Kind("health_changed", "a part's health changed (seen by a poll)", MONITOR, 4),
        Kind("alert_fire", "alert fired", MONITOR, 3),
        Kind("alert_clear", "alert recovered", MONITOR, 5),
        Kind("alert_ack", "alert acknowledged", MONITOR, 6),
        Kind("alert_flapping", "alert flapping", MONITOR, 4),
        Kind("maintenance", "maintenance window", MONITOR, 6),
    )
}
KIND_CHOICES = [(k.slug, k.label) for k in KINDS.values()]
# What alert rules may watch: never the alert events themselves (a rule firing on its own fire would loop).
RULE_KINDS = [(slug, label) for slug, label in KIND_CHOICES if not slug.startswith("alert_") and slug != "maintenance"]
# A rule on the first kind clears on the second one for the same port (or device); others clear when quiet.
CLEARED_BY = {"link_down": "link_up", "port_down": "port_up", "cold_start": "", "auth_failure": ""}


def severity_name(number: int | None) -> str:
    """RFC 5424's name of a severity number ("unknown" outside 0-7)."""
    return SEVERITIES[number] if number is not None and 0 <= number < len(SEVERITIES) else "unknown"


def facility_name(number: int | None) -> str:
    """RFC 5424's name of a facility number ("" outside 0-23)."""
    return FACILITIES[number] if number is not None and 0 <= number < len(FACILITIES) else ""
