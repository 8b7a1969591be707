"""The vendor a MAC address's OUI names, from Wireshark's manuf list as the `manuf` package ships it (read from the
package, never fetched): a host found by MAC says what it probably is ("VMware, Inc.", "Dell Inc.")."""

from __future__ import annotations

from functools import lru_cache

LOCAL = "locally administered (no vendor)"


@lru_cache(maxsize=1)
def _parser():
    from manuf import manuf

    return manuf.MacParser(update=False)


def vendor(mac: str) -> str:
    """The vendor's name for aa:bb:cc:dd:ee:ff; LOCAL for an address a host made up itself; "" when unknown."""
    try:
        first = int(mac[:2], 16)
    except ValueError:
        return ""
    if first & 0x02:
        return LOCAL
    try:
        return _parser().get_manuf_long(mac) or ""
    except (ValueError, OSError):  # a malformed address, or the list missing from the package
        return ""
