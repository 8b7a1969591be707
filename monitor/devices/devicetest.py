"""Test a device before it is saved: discovery with errors mapped to the form field they concern."""

from __future__ import annotations

import asyncio

from django.conf import settings

from collectors.discovery import Discovery, discover
from collectors.snmptypes import SnmpError, SnmpTarget, SnmpTimeout
from monitor.devices.profiles import registry


def run_discovery(target: SnmpTarget, pinned: str = "") -> Discovery:
    """Discover on a fresh event loop (web requests may run in threads); raises SnmpError."""
    return asyncio.run(discover(target, registry(), pinned, settings.MONITOR_SNMP_ENGINE))


def field_for_error(target: SnmpTarget, error: SnmpError) -> str | None:
    """Which form field an SNMP failure points at (None: the whole form)."""
    text = str(error)
    if isinstance(error, SnmpTimeout):
        return "community" if target.version in ("1", "2c") else "v3_auth_key"
    if "user unknown" in text:
        return "v3_user"
    if "authentication failed" in text:
        return "v3_auth_key"
    if "decryption failed" in text:
        return "v3_priv_key"
    if "security level" in text:
        return "v3_security_level"
    if "resolve host" in text:
        return "host"
    if "pinned profile" in text:
        return "pinned_profile"
    return None


def useful(found: Discovery) -> bool:
    """An agent is worth monitoring when it has ports or a profile beyond the generic fallback."""
    return bool(found.ports) or found.profile != "generic"
