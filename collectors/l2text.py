"""Device text as layer-2 reads keep it: a MAC address from six octets, a name as a tag can carry it."""

from __future__ import annotations

from collectors.snmptypes import SnmpValue
from collectors.tags import tag_value


def mac_text(value: SnmpValue | bytes | None) -> str:
    """aa:bb:cc:dd:ee:ff from six octets; "" for anything else (an all-zero or broadcast address included)."""
    raw = value.value if isinstance(value, SnmpValue) and value.kind == "octets" else value
    if not isinstance(raw, (bytes, bytearray)) or len(raw) != 6 or raw in (b"\0" * 6, b"\xff" * 6):
        return ""
    return ":".join(f"{b:02x}" for b in raw)


def text_of(value: SnmpValue | None) -> str:
    """Printable device text, safe as a tag; "" for anything that is not an octet string."""
    return tag_value(value.printable()) if value is not None and value.kind == "octets" else ""
