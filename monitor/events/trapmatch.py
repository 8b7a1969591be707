"""Which device a trap speaks for, and whether its credential may: the source address (or, from a listed relay,
the v1 agent address), then the community or SNMPv3 user and engine ID it was signed with, then the user's level.

pysnmp only checks that a credential is one it knows. For a v3 trap the sender's engine is authoritative, so pysnmp
takes a noAuthNoPriv message naming a configured user and engine ID: the level configured for the user is checked
here. A global community (EVENTS_TRAP_COMMUNITIES) names no device of its own: from an address several devices share
it is ambiguous."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.events import sources
from monitor.events.credentials import ANY_DEVICE, credential_key
from monitor.events.notify import Notification

LEVELS = {1: "noAuthNoPriv", 2: "authNoPriv", 3: "authPriv"}


@dataclass(frozen=True)
class Verdict:
    """The device a trap is from, or why there is none (a counted reason and its note)."""

    entry: sources.Entry | None
    reason: str = ""
    note: str = ""


def match(
    directory: sources.Directory, valid: dict[tuple[str, ...], set[int]], message: Notification, agent: str
) -> Verdict:
    """The one device this message may be from; `valid` maps credential keys to device ids (credentials.sync)."""
    address = sources.normal_address(message.address)
    found: tuple[sources.Entry, ...] = ()
    if agent and address in directory.relays:
        found = directory.candidates(agent)
    found = found or directory.candidates(address)
    if not found:
        return Verdict(None, "unknown_source", f"last from {address} (agent {agent[:60] or '-'})")
    ids = valid.get(credential_key(message.model, message.security_name, message.engine_id), set())
    mine = [e for e in found if e.id in ids]
    if not mine and ANY_DEVICE in ids:
        mine = list(found)  # a global community: whichever device is at the address, if only one is
    if not mine:
        return Verdict(None, "credential_mismatch", f"last from {address}")
    if message.model == 3:
        strong = [e for e in mine if e.v3 is not None and message.level >= e.v3.level]
        if not strong:
            wanted = LEVELS[max((e.v3.level for e in mine if e.v3 is not None), default=3)]
            return Verdict(
                None, "v3_level_too_low", f"last from {address}: {LEVELS.get(message.level)}, {wanted} wanted"
            )
        mine = strong
    if len(mine) > 1:
        return Verdict(None, "ambiguous_source", f"last from {address}: {sources.named(mine)}")
    return Verdict(mine[0])
