"""Alerts on the events timeline: a fire, recovery, flapping notice or acknowledgement, and maintenance windows,
become events of their device (drawn as markers on its graphs)."""

from __future__ import annotations

from monitor.alerts.rules import EVENT, METRICS, closed_as_gone, format_value
from monitor.events import record

KINDS = {"fire": "alert_fire", "clear": "alert_clear", "flapping": "alert_flapping"}
WORDS = {"fire": "fired", "clear": "recovered", "flapping": "is flapping"}


def _port(rule, instance: str) -> str:
    metric = METRICS.get(rule.metric)
    return instance if instance and (rule.metric == EVENT or (metric and metric.instance_tag == "port")) else ""


def on_alert_event(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """post_save of an alert Event row: its fire, clear and flapping changes go on the timeline."""
    if not created or raw or instance.kind not in KINDS:
        return
    rule = instance.rule
    metric = METRICS.get(rule.metric)
    unit = rule.unit if rule.unit != "warning" else "absolute"
    value = instance.detail or (format_value(metric, unit, instance.value) if metric else "")
    where = f" on {instance.instance}" if instance.instance else ""
    word = WORDS[instance.kind]
    if closed_as_gone(instance):
        word = "closed"  # no longer reported, not recovered
    text = f"Alert {rule.name!r}{where} {word}" + (f": {value}" if value else "")
    record.record(
        instance.device_id,
        KINDS[instance.kind],
        text,
        port=_port(rule, instance.instance),
    )


def acknowledged(state, user_name: str) -> None:
    where = f" on {state.instance}" if state.instance else ""
    record.record(
        state.device_id,
        "alert_ack",
        f"Alert {state.rule.name!r}{where} acknowledged by {user_name}",
        port=_port(state.rule, state.instance),
    )


def on_maintenance(sender, instance, raw: bool = False, **kwargs) -> None:
    """A maintenance window (one device, or every device under a branch) as a window on the timeline."""
    if raw:
        return
    from monitor.alerts.scopes import devices_under_branch

    devices = [instance.device_id] if instance.device_id else sorted(devices_under_branch(instance.branch))
    text = "Maintenance" + (f": {instance.reason}" if instance.reason else "")
    for device_id in devices:
        record.upsert(
            f"maintenance:{instance.pk}",
            device_id,
            "maintenance",
            text,
            time=instance.starts_at,
            ends_at=instance.ends_at,
        )
