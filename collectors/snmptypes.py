"""The SNMP session interface's types, free of any SNMP library: targets, values, errors, OIDs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

Oid = tuple[int, ...]


class SnmpError(Exception):
    """The agent could not be read; the message is safe to show (no secrets)."""


class SnmpTimeout(SnmpError):
    """The agent did not answer in time."""


@dataclass(frozen=True)
class SnmpValue:
    """A decoded SNMP value: kind is int, counter32, counter64, gauge, timeticks, octets, oid, ip or missing."""

    kind: str
    value: Any = None

    @property
    def missing(self) -> bool:
        return self.kind == "missing"

    def printable(self, limit: int = 255) -> str:
        """Device text made safe to keep: octets decoded leniently, control characters dropped, capped."""
        if self.kind != "octets":
            return ""
        text = self.as_text()
        if not text.isprintable():
            text = "".join(ch for ch in text if ch.isprintable())
        return text.strip()[:limit]

    def as_text(self) -> str:
        """Return the value as printable text (octets decoded leniently, never raising)."""
        if isinstance(self.value, bytes):
            return self.value.decode("utf-8", errors="replace")
        return "" if self.value is None else str(self.value)


MISSING = SnmpValue("missing")


@dataclass(frozen=True)
class SnmpTarget:
    """Where and how to reach an agent. Secrets are kept out of repr()."""

    host: str
    port: int = 161
    version: str = "2c"
    community: str = field(default="public", repr=False)
    v3_user: str = ""
    v3_auth_protocol: str = ""
    v3_auth_key: str = field(default="", repr=False)
    v3_priv_protocol: str = ""
    v3_priv_key: str = field(default="", repr=False)
    timeout: float = 2.0
    retries: int = 1
    max_repetitions: int = 25


def parse_oid(text: str) -> Oid:
    """Turn '1.3.6.1...' (leading dot allowed) into a tuple of ints."""
    return tuple(int(part) for part in text.strip().lstrip(".").split("."))


def format_oid(oid: Iterable[int]) -> str:
    return ".".join(str(part) for part in oid)
