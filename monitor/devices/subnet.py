"""Find SNMP agents in an address range and add them: every address asked at once (its system group, within the
timeout), then each one that answered is added the admin form's way (tested, discovered, placed in a tree)."""

from __future__ import annotations

import asyncio
import ipaddress
from dataclasses import dataclass, field

from django.conf import settings

from collectors.discovery import discover
from collectors.snmptypes import SnmpError, SnmpTarget
from monitor.devices.importing import place
from monitor.devices.profiles import registry
from monitor.devices.saving import save_device
from monitor.models import Device

MAX_ADDRESSES = 4096
CONCURRENCY = 64


@dataclass
class Found:
    host: str
    name: str = ""
    device: Device | None = None
    skipped: str = ""  # why an answering address was not added
    errors: list[str] = field(default_factory=list)


def addresses(network: str) -> list[str]:
    """The usable addresses of a CIDR range (a single address too); ValueError with the reason otherwise."""
    try:
        net = ipaddress.ip_network(network.strip(), strict=False)
    except ValueError:
        raise ValueError(f"{network[:60]!r} is not a CIDR range such as 10.0.0.0/24") from None
    if net.num_addresses > MAX_ADDRESSES:
        raise ValueError(f"{network} holds {net.num_addresses} addresses; at most {MAX_ADDRESSES} at a time")
    hosts = list(net.hosts()) if net.num_addresses > 2 else list(net)
    return [str(address) for address in hosts]


async def _ask_all(targets: list[SnmpTarget]) -> list[object]:
    profiles, engine = registry(), settings.MONITOR_SNMP_ENGINE
    gate = asyncio.Semaphore(CONCURRENCY)

    async def ask(target: SnmpTarget):
        async with gate:
            try:
                return await discover(target, profiles, "", engine)
            except SnmpError as exc:
                return exc

    return await asyncio.gather(*(ask(target) for target in targets))


def _free_name(wanted: str, host: str) -> str:
    name = (wanted or host).strip()[:90] or host
    return name if not Device.objects.filter(name=name).exists() else f"{name}-{host}"[:100]


def discover_subnet(network: str, values: dict, tree: list[str] | None = None) -> list[Found]:
    """Ask every address of `network` with the device settings in `values` (community, port, timeout...); add
    what answers and is worth monitoring; return one row per answering address (silent ones are not listed)."""
    hosts = addresses(network)
    port = int(values.get("port") or 161)
    known = set(Device.objects.filter(port=port, host__in=hosts).values_list("host", flat=True))
    base = Device(**{k: v for k, v in values.items() if k in {f.name for f in Device._meta.concrete_fields}})
    targets = []
    for host in hosts:
        base.host = host
        targets.append(base.snmp_target())
    answers = asyncio.run(_ask_all(targets))
    found = []
    for host, answer in zip(hosts, answers, strict=True):
        if isinstance(answer, SnmpError):
            continue  # silent (or refusing these credentials): not an agent for this run
        row = Found(host, answer.identity.sys_name or host)
        found.append(row)
        if host in known:
            row.skipped = "already monitored"
            continue
        row.name = _free_name(answer.identity.sys_name, host)
        device, errors = save_device({**values, "host": host, "name": row.name})
        row.device = device
        row.errors = [f"{'' if f == '__all__' else f + ': '}{m}" for f, ms in errors.items() for m in ms]
        if device is not None and tree:
            place(device, tree)
    return found
