"""Alert rules on events: a stored event that a rule matches is a breach of its target (device + port), a clearing
event (linkUp after linkDown, on the same port) or quiet time ends it; the same state machine as thresholds, so
hold (N events within a window), flapping, repeats, maintenance and mail are the same."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from monitor.alerts import patterns, scopes
from monitor.alerts.evaluator import _advance, _kick_sender
from monitor.alerts.models import AlertState, Rule
from monitor.alerts.rules import EVENT
from monitor.events.kinds import CLEARED_BY, KINDS
from monitor.models import Device

MATCHED, QUIET = 1.0, 0.0
LEVEL = 0.5  # a match (1) is above it, a clear (0) at or below: engine.Condition(above, fire=0.5, clear=0.5)


def matches(rule: Rule, event) -> bool:
    if rule.event_kind and rule.event_kind != event.kind:
        return False
    if rule.event_severity is not None and event.severity > rule.event_severity:
        return False
    if rule.scope == Rule.Scope.SERIES and event.port != rule.instance:
        return False
    return not rule.event_pattern or patterns.matches(rule.event_pattern, event.text)


def clears(rule: Rule, event) -> bool:
    """A clearing event: the kind that ends the rule's kind (linkUp for linkDown), for its target."""
    return bool(rule.event_kind) and CLEARED_BY.get(rule.event_kind) == event.kind


def target(event) -> str:
    """A port's events are the port's target; the others the device's."""
    return event.port if event.port and KINDS.get(event.kind) and KINDS[event.kind].port else ""


def on_events_stored(sender, events: list, **kwargs) -> None:
    if evaluate_events(events):
        _kick_sender()


def evaluate_events(events: list, now=None) -> int:
    """Step every event rule that covers each event's device; returns how many mails (and deliveries) queued."""
    found = scopes.Scopes(now or timezone.now(), sorted({e.device_id for e in events}))
    rules = [r for r in found.rules if r.metric == EVENT]
    if not rules:
        return 0
    devices = Device.objects.in_bulk({e.device_id for e in events})
    steps = []
    for event in sorted(events, key=lambda e: (e.time, e.pk or 0)):
        device = devices.get(event.device_id)
        if device is None:
            continue
        for rule in (r for r in found.rules_for(device) if r.metric == EVENT):
            if matches(rule, event):
                steps.append((rule, device, target(event), MATCHED, event))
            elif clears(rule, event) and (rule.scope != Rule.Scope.SERIES or event.port == rule.instance):
                steps.append((rule, device, target(event), QUIET, event))
    queued = 0
    for rule, device, instance, value, event in coalesce(steps):
        if value == QUIET and not _open(rule, device, instance):
            continue
        muted = found.in_maintenance(device)
        queued += _advance(rule, device, instance, value, LEVEL, LEVEL, event.time, muted, event.text)
    return queued


def coalesce(steps: list[tuple]) -> list[tuple]:
    """A batch's steps with long runs shortened: in a run of one value for one target, only the first events_needed
    steps (the hold) and the last (its time drives repeats and flap windows) can change the state machine's
    outcome (a batch spans seconds, far less than a hold's window), so a flood that matches a rule costs each
    target at most events_needed + 1 transactions per batch."""
    runs: dict[tuple, list[int]] = {}  # target -> positions of its current run
    keep: set[int] = set()
    last_value: dict[tuple, float] = {}
    for position, (rule, device, instance, value, _) in enumerate(steps):
        key = (rule.pk, device.pk, instance)
        if last_value.get(key) != value:
            runs[key] = []
            last_value[key] = value
        run = runs[key]
        run.append(position)
        if len(run) > max(rule.hold(), 1) + 1:
            keep.discard(run[-2])  # no longer the run's last
        keep.add(position)
    return [step for position, step in enumerate(steps) if position in keep]


def _open(rule: Rule, device, instance: str) -> bool:
    return (
        AlertState.objects.filter(rule=rule, device=device, instance=instance)
        .exclude(state=AlertState.State.OK, flapping=False)
        .exists()
    )


def quiet(now=None) -> int:
    """Event rules without a clearing event clear after quiet_minutes without a match (beat, every minute); the
    mails queued are sent now."""
    now = now or timezone.now()
    queued = 0
    open_states = (
        AlertState.objects.filter(rule__metric=EVENT, rule__enabled=True)
        .exclude(state=AlertState.State.OK, flapping=False)
        .select_related("rule", "device")
    )
    found = scopes.Scopes(now)
    for row in open_states:
        rule = row.rule
        if CLEARED_BY.get(rule.event_kind):  # a link stays down until it comes up: never cleared by silence
            continue
        if row.updated_at > now - timedelta(minutes=rule.quiet_minutes):
            continue
        queued += _advance(rule, row.device, row.instance, QUIET, LEVEL, LEVEL, now, found.in_maintenance(row.device))
    if queued:
        _kick_sender()
    return queued
