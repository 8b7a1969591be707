"""pysnmp's community and USM user tables of the trap receiver, kept in line with the devices' credentials."""

from __future__ import annotations

import contextlib
import logging

from django.conf import settings
from pysnmp.entity import config
from pysnmp.proto import rfc1902

from collectors.snmp import AUTH_PROTOCOLS, PRIV_PROTOCOLS
from monitor.events import sources

log = logging.getLogger(__name__)
ANY_DEVICE = 0  # the device id that stands for "every device" (EVENTS_TRAP_COMMUNITIES)


def credential_key(model: int, security_name: str, engine_id: str = "") -> tuple[str, ...]:
    """What a message was signed with: a community (by its index in pysnmp's table) for v1/v2c, a USM user and the
    engine ID it signed as (hex, "" for the receiver's own) for v3. Kinds never collide: a user called "c0" is not
    the first community."""
    return ("usm", security_name, engine_id) if model == 3 else ("community", security_name)


class EngineCredentials:
    """What the engine accepts: a community index per community, a USM user per (user, engine ID)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._communities: dict[str, str] = {}  # community -> its index in pysnmp's table
        self.communities: frozenset[bytes] = frozenset()  # as they arrive on the wire, for the check before pysnmp
        self._users: dict[tuple[str, str], sources.V3User] = {}

    def sync(self, directory: sources.Directory) -> dict[tuple[str, ...], set[int]]:
        """Add, replace and remove entries; returns each credential's key (credential_key) -> the device ids it is
        valid for. A v3 user is valid with the engine ID its device has, and with the receiver's own (informs)."""
        wanted: dict[str, set[int]] = {}
        for community in settings.EVENTS_TRAP_COMMUNITIES:
            wanted.setdefault(community, set()).add(ANY_DEVICE)
        users: dict[tuple[str, str], sources.V3User] = {}
        valid: dict[tuple[str, ...], set[int]] = {}
        for entry in directory.entries:
            if entry.community:
                wanted.setdefault(entry.community, set()).add(entry.id)
            if entry.v3 is not None:
                for engine_id in dict.fromkeys(("", entry.v3.engine_id)):
                    key = (entry.v3.user, engine_id)
                    if key in users and users[key] != entry.v3:
                        log.warning("SNMPv3 user %r has other keys on another device: one of them wins", key[0])
                    users[key] = entry.v3
                    valid.setdefault(credential_key(3, entry.v3.user, engine_id), set()).add(entry.id)
        self._sync_communities(wanted)
        self._sync_users(users)
        accepted = {c: ids for c, ids in wanted.items() if c in self._communities}
        return {credential_key(1, self._communities[c]): ids for c, ids in accepted.items()} | valid

    def _sync_communities(self, wanted: dict[str, set[int]]) -> None:
        for community in set(self._communities) - set(wanted):
            config.delete_v1_system(self.engine, self._communities.pop(community))
        taken = set(self._communities.values())
        for community in wanted:
            if community not in self._communities:
                index = next(f"c{n}" for n in range(len(taken) + 1) if f"c{n}" not in taken)
                try:
                    config.add_v1_system(self.engine, index, community)
                except Exception as exc:  # pysnmp takes Latin-1 only: that community is refused, the others stand
                    with contextlib.suppress(Exception):
                        config.delete_v1_system(self.engine, index)  # the half-made row
                    log.error("a trap community of devices %s is not accepted: %s", sorted(wanted[community]),
                              type(exc).__name__)  # fmt: skip
                    continue
                taken.add(index)
                self._communities[community] = index
        self.communities = frozenset(bytes(rfc1902.OctetString(c)) for c in self._communities)

    def _sync_users(self, wanted: dict[tuple[str, str], sources.V3User]) -> None:
        for key in [k for k in self._users if wanted.get(k) != self._users[k]]:
            user, engine_id = key
            config.delete_v3_user(self.engine, user, rfc1902.OctetString(hexValue=engine_id) if engine_id else None)
            del self._users[key]
        for key, v3 in wanted.items():
            if key in self._users:
                continue
            try:
                config.add_v3_user(
                    self.engine,
                    v3.user,
                    AUTH_PROTOCOLS.get(v3.auth_protocol, config.USM_AUTH_NONE),
                    v3.auth_key or None,
                    PRIV_PROTOCOLS.get(v3.priv_protocol, config.USM_PRIV_NONE),
                    v3.priv_key or None,
                    securityEngineId=rfc1902.OctetString(hexValue=key[1]) if key[1] else None,
                )
                self._users[key] = v3
            except Exception as exc:  # a bad engine id or key length: that user is not accepted, the rest are
                log.error("SNMPv3 user %r not accepted for traps: %s", v3.user, type(exc).__name__)
