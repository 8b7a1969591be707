"""Keep Interface and Graph rows in step with what polls see (ports by name, graphs from the profile's offers)."""

from __future__ import annotations

import hashlib
import logging

from django.dispatch import Signal
from django.utils import timezone

from collectors.discovery import Discovery
from collectors.interfaces import COUNTER_GROUPS, Port
from collectors.profiles import IF_COUNTER_GROUPS, Profile
from collectors.samples import Sample
from monitor.models import Device, Graph, Interface, InterfaceRename
from monitor.timeseries.templates import TEMPLATES, GraphTemplate

TRACKED = ("if_index", "alias", "speed_bps", "oper_up", "hc_counters")
DEFAULT_OFFERS = ("traffic",)  # a device without a profile still gets its traffic graphs
log = logging.getLogger(__name__)
SEEN_KEY = "monitor:inventory:{device}"
SEEN_TTL_S = 600  # at worst, a change made behind the poller's back (a port ticked in the admin) shows in 10 min
# Sent when a sync finds ports renamed, speeds or link states changed, or a device rediscovered (the events
# timeline hangs off it). Arguments: device, changes (list of {"kind", "port", "old", "new", ...}).
inventory_changed = Signal()


def signature(profile: Profile | None, ports: list[Port], samples: list[Sample]) -> str:
    """What the rows depend on: the profile, each port's tracked fields, and which series carry which fields."""
    parts = [profile.name if profile else ""]
    parts += [f"{p.name}\t{p.if_index}\t{p.alias}\t{p.speed_bps}\t{p.oper_up}\t{p.hc_counters}" for p in ports]
    shapes = set()
    for sample in samples:
        if sample.measurement == "interface":  # port rows come from `ports`; their graphs need no field list
            continue
        shapes.add(f"{sample.measurement}\t{sorted(sample.tags.items())}\t{sorted(sample.fields)}")
    parts += sorted(shapes)
    return hashlib.blake2b("\n".join(parts).encode(), digest_size=16).hexdigest()


def refresh_many(redis, polled: list[tuple[Device, Profile | None, list[Port], list[Sample]]]) -> int:
    """sync_ports and ensure_graphs for the devices whose signature changed since it was last recorded."""
    if not polled:
        return 0
    keys = [SEEN_KEY.format(device=device.pk) for device, *_ in polled]
    known = redis.mget(keys)
    changed = {}
    for key, old, (device, profile, ports, samples) in zip(keys, known, polled, strict=True):
        new = signature(profile, ports, samples)
        if old is None or old.decode() != new:
            sync_ports(device, ports)
            ensure_graphs(device, profile, samples)
            changed[key] = new
    if changed:
        pipe = redis.pipeline(transaction=False)
        for key, new in changed.items():
            pipe.set(key, new, ex=SEEN_TTL_S)
        pipe.execute()
    return len(changed)


def forget(redis, device_id: int) -> None:
    """Make the next poll compare its ports and graphs with the rows again (after an edit in the admin)."""
    redis.delete(SEEN_KEY.format(device=device_id))


def sync_ports(device: Device, ports: list[Port], graph_new: bool | None = None) -> None:
    """Create rows for new ports (pseudo-ports not graphed by default); update only fields that changed."""
    existing = {row.name: row for row in Interface.objects.filter(device=device)}
    seen = {port.name for port in ports}
    by_index = {row.if_index: row for row in existing.values() if row.name not in seen}
    new_rows, events = [], []
    for port in ports:
        row = existing.get(port.name)
        values = {field: getattr(port, field) for field in TRACKED}
        if row is None:
            graphed = (not port.pseudo) if graph_new is None else graph_new
            new_rows.append(Interface(device=device, name=port.name, graphed=graphed, **values))
            old = by_index.get(port.if_index)
            if old is not None:
                InterfaceRename.objects.create(
                    device=device, if_index=port.if_index, old_name=old.name, new_name=port.name
                )
                events.append({"kind": "renamed", "if_index": port.if_index, "old": old.name, "new": port.name})
            continue
        changed = [field for field in TRACKED if getattr(row, field) != values[field]]
        if changed:
            events += [
                {"kind": f, "port": port.name, "old": getattr(row, f), "new": values[f]}
                for f in changed
                if f in ("speed_bps", "oper_up")
            ]
            for field in changed:
                setattr(row, field, values[field])
            row.save(update_fields=[*changed, "last_seen"])
    if new_rows:
        Interface.objects.bulk_create(new_rows, ignore_conflicts=True)
    if events:
        inventory_changed.send_robust(Device, device=device, changes=events)


def ensure_graphs(device: Device, profile: Profile | None, samples: list[Sample]) -> int:
    """Create the graphs the profile offers for every series these samples carry; returns how many were new."""
    slugs = [offer.template for offer in profile.graphs] if profile else list(DEFAULT_OFFERS)
    templates = [TEMPLATES[slug] for slug in dict.fromkeys(slugs) if slug in TEMPLATES]
    graphed_ports = set(Interface.objects.filter(device=device, graphed=True).values_list("name", flat=True))
    # A port's rates only appear from its second poll: offer its graphs from the fields it will carry.
    groups = profile.interface_counters if profile else IF_COUNTER_GROUPS
    port_fields = {"in_bps", "out_bps", *(f for g in groups for f in COUNTER_GROUPS.get(g, {}))}
    wanted: dict[tuple[str, str], int] = {}
    for sample in samples:
        fields = set(sample.fields)
        if sample.measurement == "interface":
            if sample.tags.get("port") not in graphed_ports:
                continue
            fields |= port_fields
        for template in templates:
            if _draws(template, sample, fields):
                instance = sample.tags.get(template.instance_tag, "") if template.instance_tag else ""
                wanted.setdefault((template.slug, instance), len(wanted))
    have = set(Graph.objects.filter(device=device).values_list("template", "instance"))
    order = {slug: i for i, slug in enumerate(TEMPLATES)}
    new = [
        Graph(
            device=device,
            template=slug,
            instance=instance,
            title=_title(TEMPLATES[slug], instance),
            position=order[slug] * 10000 + position,
        )
        for (slug, instance), position in wanted.items()
        if (slug, instance) not in have
    ]
    Graph.objects.bulk_create(new, ignore_conflicts=True)
    return len(new)


def _draws(template: GraphTemplate, sample: Sample, fields: set[str]) -> bool:
    if sample.measurement != template.measurement:
        return False
    if any(sample.tags.get(k) != v for k, v in template.filters.items()):
        return False
    if template.instance_tag and template.instance_tag not in sample.tags:
        return False
    return any(field in fields for field in template.fields)


def _title(template: GraphTemplate, instance: str) -> str:
    short = {"traffic": "Traffic"}.get(template.slug, template.name)
    return f"{short} {instance}".strip()


def forget_on_edit(sender, instance, **kwargs) -> None:
    """post_save/post_delete receiver: an edited port or device is compared with its rows at its next poll."""
    from monitor.core import services

    device_id = instance.device_id if isinstance(instance, Interface) else instance.pk
    try:
        forget(services.redis_client(), device_id)
    except Exception as exc:  # Redis away: the key expires by itself within SEEN_TTL_S
        log.warning(
            "could not reach Redis at %s (%s) to mark device %s for an inventory check (done within %d s anyway): "
            "set REDIS_URL to the monitor's Redis",
            services.redis_address(),
            type(exc).__name__,
            device_id,
            SEEN_TTL_S,
        )


def record_discovery(device: Device, found: Discovery) -> None:
    """Store identity and profile on the device and create its port rows."""
    identity = found.identity
    before = (device.discovered_at, device.profile)
    fields = {
        "profile": found.profile,
        "profile_reason": found.matched_by[:200],
        "sys_descr": identity.sys_descr,
        "sys_object_id": identity.sys_object_id[:200],
        "sys_name": identity.sys_name,
        "rediscover": False,
        "discovered_at": timezone.now(),
    }
    Device.objects.filter(pk=device.pk).update(**fields)
    for name, value in fields.items():
        setattr(device, name, value)
    sync_ports(device, found.ports)
    if before[0] is not None:  # not its first discovery: a rediscovery (daily, after a reboot, on demand)
        change = {"kind": "rediscovered", "old": before[1], "new": found.profile}
        inventory_changed.send_robust(Device, device=device, changes=[change])
