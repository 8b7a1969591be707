"""Identify a device and choose its profile: sysObjectID prefix, then sysDescr, then a vendor MIB object."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from collectors.interfaces import Port, read_ports
from collectors.metrics import read_metrics
from collectors.profiles import Profile
from collectors.samples import CounterState
from collectors.sessions import Session, open_session
from collectors.snmptypes import SnmpError, SnmpTarget

SYS_DESCR = "1.3.6.1.2.1.1.1.0"
SYS_OBJECT_ID = "1.3.6.1.2.1.1.2.0"
SYS_UPTIME = "1.3.6.1.2.1.1.3.0"
SYS_NAME = "1.3.6.1.2.1.1.5.0"
FALLBACK = "generic"
MAX_DESCR = 1024


@dataclass
class Identity:
    """What the device says about itself (strings cleaned and capped)."""

    sys_descr: str = ""
    sys_object_id: str = ""
    sys_name: str = ""
    uptime_s: float | None = None


@dataclass
class Discovery:
    """The outcome of a discovery: identity, the profile and how it was chosen, and the ports found."""

    identity: Identity
    profile: str
    matched_by: str
    ports: list[Port] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    inventory: dict[str, list[str]] = field(default_factory=dict)  # sensors, volumes, disks... by measurement


async def identify(session: Session) -> Identity:
    """GET the system group; an agent that answers none of it is not useful to monitor."""
    values = await session.get([SYS_DESCR, SYS_OBJECT_ID, SYS_UPTIME, SYS_NAME])
    uptime = values[SYS_UPTIME]
    identity = Identity(
        sys_descr=values[SYS_DESCR].printable(MAX_DESCR),
        sys_object_id=str(values[SYS_OBJECT_ID].value) if values[SYS_OBJECT_ID].kind == "oid" else "",
        sys_name=values[SYS_NAME].printable(),
        uptime_s=uptime.value / 100.0 if uptime.kind == "timeticks" else None,
    )
    if identity.uptime_s is None and not identity.sys_descr and not identity.sys_object_id:
        raise SnmpError("the agent answered but serves none of the system group (sysDescr, sysObjectID, sysUpTime)")
    return identity


async def match_profile(
    session: Session, profiles: dict[str, Profile], identity: Identity, pinned: str = ""
) -> tuple[str, str]:
    """The profile name and how it was chosen."""
    if pinned:
        if pinned not in profiles:
            raise SnmpError(f"the pinned profile {pinned!r} does not exist")
        return pinned, "pinned by the user"
    candidates = [p for p in profiles.values() if not p.abstract]
    best: tuple[int, int, str] | None = None
    for profile in candidates:
        for prefix in profile.match.sys_object_id:
            oid = identity.sys_object_id
            if oid == prefix or oid.startswith(prefix + "."):
                key = (len(prefix), profile.priority, profile.name)
                best = max(best or key, key)
    if best:
        return best[2], f"sysObjectID {identity.sys_object_id} starts with a profile prefix"
    by_descr = [p for p in candidates if any(rx.search(identity.sys_descr) for rx in p.match.sys_descr)]
    if by_descr:
        # Several matching patterns (a Storage Center's FreeBSD sysDescr fits two MIB generations): the profiles
        # whose vendor objects the agent serves come first, then the priority.
        probes = sorted({oid for p in by_descr for oid in p.match.oid_present}) if len(by_descr) > 1 else []
        present = await _present(session, probes)
        chosen = max(
            by_descr,
            key=lambda p: (bool(p.match.oid_present) and set(p.match.oid_present) <= present, p.priority, p.name),
        )
        return chosen.name, "sysDescr matches a profile pattern"
    probes = sorted({oid for p in candidates for oid in p.match.oid_present})
    if probes:
        present = await _present(session, probes)
        by_object = [p for p in candidates if p.match.oid_present and set(p.match.oid_present) <= present]
        if by_object:
            chosen = max(by_object, key=lambda p: (p.priority, p.name))
            return chosen.name, f"the agent serves {', '.join(chosen.match.oid_present)}"
    return FALLBACK, "nothing more specific matched"


async def _present(session: Session, oids: list[str]) -> set[str]:
    """Which of these objects the agent serves (none asked, none served)."""
    if not oids:
        return set()
    return {oid for oid, value in (await session.get(oids)).items() if not value.missing}


async def discover(
    target: SnmpTarget, profiles: dict[str, Profile], pinned: str = "", engine: str = "pysnmp"
) -> Discovery:
    """Identify, match and list ports. Raises SnmpError when the device cannot be reached or is useless."""
    session = open_session(target, engine)
    identity = await identify(session)
    name, how = await match_profile(session, profiles, identity, pinned)
    result = Discovery(identity, name, how)
    profile = profiles.get(name)
    if profile is None or profile.interfaces:
        try:
            result.ports, _ = await read_ports(session)
        except SnmpError as exc:
            result.errors.append(f"interfaces: {exc}")
    if profile is not None and profile.tables:
        report = await read_metrics(session, profile, "discovery", None, CounterState(), time.time(), False)
        result.errors += report.errors
        attributes: dict[str, set[str]] = {}  # per measurement, tags looked up from a column: a volume's pool...
        for table in profile.tables:
            names = {tag.name for tag in table.tags if tag.attribute}
            attributes.setdefault(table.measurement, set()).update(names)
        for sample in report.samples:
            if sample.measurement != profile.scalar_measurement:
                left_out = attributes.get(sample.measurement, set())
                label = ", ".join(v for k, v in sample.tags.items() if k != "device" and k not in left_out)
                result.inventory.setdefault(sample.measurement, []).append(label)
    return result
