"""A device's secrets belong to where and how they were entered: a change of host, port, SNMP version, v3 user or
v3 protocols needs them typed again, so a stored community or key is never sent somewhere its owner did not send
it. And what SNMP can carry: secrets of printable ASCII (engines encode anything else differently, or crash) and
sizes the protocol allows."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from monitor.models import Device

SECRET_FIELDS = ("community", "v3_auth_key", "v3_priv_key")
LABELS = {"community": "community", "v3_auth_key": "auth key", "v3_priv_key": "privacy key"}
MAX_SECRET = 255  # characters of a community or key
MAX_V3_USER = 32  # bytes of an SNMPv3 user name (RFC 3414 usmUserName: SnmpAdminString (SIZE(1..32)))

# What the stored secrets were entered for: changing one forgets them (the v3 ones count for v3 devices).
BOUND_TO = {"host": "host", "port": "port", "snmp_version": "SNMP version"}
BOUND_TO_V3 = {"v3_user": "SNMPv3 user", "v3_auth_protocol": "auth protocol", "v3_priv_protocol": "privacy protocol"}


def moved(device: Device, data: dict) -> list[str]:
    """What of the stored device the cleaned `data` changes among what its secrets are bound to (labels, in order)."""
    bound = dict(BOUND_TO)
    if device.snmp_version == data.get("snmp_version") == Device.Version.V3:
        bound |= BOUND_TO_V3
    return [label for name, label in bound.items() if name in data and data[name] != getattr(device, name)]


def used(data: dict) -> list[str]:
    """The secrets the settings in `data` send to the device: the community (v1, v2c) or the security level's keys."""
    version = data.get("snmp_version")
    if version in (Device.Version.V1, Device.Version.V2C):
        return ["community"]
    if version != Device.Version.V3:
        return []
    level = data.get("v3_security_level")
    if level == Device.SecurityLevel.AUTH:
        return ["v3_auth_key"]
    return ["v3_auth_key", "v3_priv_key"] if level == Device.SecurityLevel.AUTH_PRIV else []


def retype_message(name: str, changes: list[str]) -> str:
    """Why a stored secret must be typed again, naming what changed."""
    what = changes[0] if len(changes) == 1 else f"{', '.join(changes[:-1])} and {changes[-1]}"
    return (
        f"Type it again: the {what} changed, and the stored {LABELS[name]} is only ever sent to the device "
        "it was entered for (nothing was sent or saved)."
    )


def printable_ascii(value: str) -> None:
    """Refuse a secret SNMP engines would encode differently (pysnmp Latin-1, the fast engine UTF-8) or not at all."""
    if any(not " " <= ch <= "~" for ch in value):
        raise ValidationError(
            "Use printable ASCII only (letters, digits, punctuation, spaces): agents and SNMP libraries "
            "disagree on other characters.",
            code="not_ascii",
        )


def short_v3_user(value: str) -> None:
    """RFC 3414 limits a user name to 32 bytes; pysnmp fails on a longer one instead of refusing it."""
    if len(value.encode()) > MAX_V3_USER:
        raise ValidationError(f"An SNMPv3 user name has at most {MAX_V3_USER} bytes.", code="max_length")
