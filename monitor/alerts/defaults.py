"""The built-in rules a user can turn on for a device from its page."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.alerts.rules import ARRAY_HEALTH, EVENT, NOT_ANSWERING
from monitor.core.levels import REPLICATION_LAG_CLEAR_S, REPLICATION_LAG_S


@dataclass(frozen=True)
class Default:
    key: str
    label: str
    metric: str
    unit: str
    fire: float
    clear: float
    direction: str = "above"
    for_polls: int = 3
    event_kind: str = ""  # an event rule's (metric EVENT): the kind and the pattern its events match
    event_pattern: str = ""


DEFAULTS: dict[str, Default] = {
    d.key: d
    for d in (
        Default("port_util", "Port utilisation above 80 % (clears at 70 %)", "port_util", "percent", 80, 70),
        Default("cpu", "CPU above 90 % (clears at 80 %)", "cpu", "absolute", 90, 80),
        Default(
            "temperature",
            "Temperature above the device's own warning threshold (clears 3 degrees below)",
            "temperature",
            "warning",
            0,
            -3,
        ),
        Default(
            "volume_latency",
            "Volume latency above 50 ms, VMware's storage latency problem threshold (clears at 40 ms)",
            "volume_latency",
            "absolute",
            50,
            40,
        ),
        Default(
            "snapshot_reserve",
            "Volume snapshot reserve used past the array's own warning level (EqualLogic: 80 % by default; clears "
            "5 points below)",
            "snapshot_reserve",
            "warning",
            0,
            -5,
        ),
        Default(
            "replication_lag",
            "Replication more than 36 hours behind: a daily mirror that missed its cycle (clears under 24 hours; "
            "lower both on the rule for hourly schedules, raise them for weekly vaults)",
            "replication_lag",
            "absolute",
            REPLICATION_LAG_S,
            REPLICATION_LAG_CLEAR_S,
            for_polls=1,
        ),
        Default("not_answering", "Device not answering for 3 polls", NOT_ANSWERING, "absolute", 0.5, 0.5),
        Default(
            "array_health",
            "An array's disk, RAID set, volume, fan, power supply or sensor not ok (failed, rebuilding, degraded or "
            "warning; clears when ok)",
            ARRAY_HEALTH,
            "absolute",
            0.5,
            0.5,
            for_polls=1,
        ),
        Default(
            "controller_failover",
            "A storage controller failed over: an EqualLogic control module changed role (a NetApp takeover is in "
            "'array part not ok'; clears after 15 quiet minutes)",
            EVENT,
            "absolute",
            0.5,
            0.5,
            for_polls=1,
            event_kind="health_changed",
            event_pattern=r"^Controller role [^:]+: ok \((primary|secondary)\) → ok \(",
        ),
    )
}


def enable(device, key: str, user) -> object:
    """Create (or re-enable) a device's built-in rule, mailing the user who turned it on."""
    from monitor.alerts.models import Rule

    spec = DEFAULTS[key]
    rule, created = Rule.objects.get_or_create(
        device=device,
        builtin=key,
        scope=Rule.Scope.DEVICE,
        defaults={
            "name": f"{device.name}: {spec.label}"[:200],
            "metric": spec.metric,
            "unit": spec.unit,
            "direction": spec.direction,
            "fire_level": spec.fire,
            "clear_level": spec.clear,
            "for_polls": spec.for_polls,
            "event_kind": spec.event_kind,
            "event_pattern": spec.event_pattern,
        },
    )
    if not created and not rule.enabled:
        rule.enabled = True
        rule.save(update_fields=["enabled"])
    rule.recipient_users.add(user)
    return rule


def leave(device, key: str, user) -> bool:
    """Take `user` off a device's built-in rule; it goes off (kept, with its history) only when that leaves it no
    recipient. Another recipient's rule is not the caller's to switch off. True when the rule went off."""
    from django.db import transaction

    from monitor.alerts.models import Rule

    with transaction.atomic():
        rule = Rule.objects.select_for_update().filter(device=device, builtin=key, scope=Rule.Scope.DEVICE).first()
        if rule is None or not rule.recipient_users.filter(pk=user.pk).exists():
            return False
        rule.recipient_users.remove(user)
        if rule.recipient_users.exists() or rule.recipient_emails.strip() or rule.channels.exists():
            return False
        return Rule.objects.filter(pk=rule.pk, enabled=True).update(enabled=False) == 1
