"""Feed each poll's values through the rules' state machines and store every change as an Event row."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from monitor.alerts import engine, scopes
from monitor.alerts.channels import queue as queue_deliveries
from monitor.alerts.models import AlertState, Event, Rule
from monitor.alerts.rules import ARRAY_HEALTH, EVENT, GONE, METRICS, NOT_ANSWERING, comparable, observe, present
from monitor.devices.profiles import registry
from monitor.polling.signals import PollEvent
from monitor.topology import dependencies

log = logging.getLogger(__name__)
GONE_POLLS = 3  # polls in a row that answered without a target before it may be closed as gone


def on_polls_finished(sender, polls: list[PollEvent], **kwargs) -> None:
    """polls_finished receiver: evaluate, then ask a worker to send what was queued."""
    # Retries and a lost kick are made up by beat's alerts-send-pending (every ALERTS_SEND_INTERVAL_S).
    if evaluate_many(polls):
        transaction.on_commit(_kick_sender)


def evaluate(device, samples: list, error: str, now: datetime | None = None) -> int:
    """Run every applicable rule on one poll; returns how many mails were queued."""
    return evaluate_many([PollEvent(device, samples, error)], now)


def evaluate_many(polls: list[PollEvent], now: datetime | None = None) -> int:
    """Run every applicable rule on a batch of polls (rules, windows and states read once); mails queued."""
    now = now or timezone.now()
    found = scopes.Scopes(now, [poll.device.pk for poll in polls])
    if not found.rules:
        return 0
    states: dict[tuple[int, int], dict[str, AlertState]] = {}
    rows = AlertState.objects.filter(rule__in=found.rules, device__in=[poll.device.pk for poll in polls])
    for row in rows:
        states.setdefault((row.rule_id, row.device_id), {})[row.instance] = row
    held = _held(polls, found.rules)
    queued = 0
    for poll in polls:
        muted = found.in_maintenance(poll.device)
        for rule in found.rules_for(poll.device):
            if rule.metric == NOT_ANSWERING and poll.device.pk in held:
                continue  # unreachable, its upstream device down: that one alerts; this one waits (docs/topology.md)
            known = states.get((rule.pk, poll.device.pk), {})
            queued += _evaluate_rule(rule, poll, known, now, muted)
    return queued


def _held(polls: list[PollEvent], rules: list[Rule]) -> dict[int, int]:
    """The failing devices of the batch behind a device that does not answer either (this batch's outcomes
    counted): device id -> that device's id. Their "not answering" rules wait until it answers again."""
    failing = [poll.device.pk for poll in polls if poll.error]
    if not failing or not any(rule.metric == NOT_ANSWERING for rule in rules):
        return {}
    down = dependencies.down_ids(set(failing), {poll.device.pk for poll in polls if not poll.error})
    return dependencies.unreachable(failing, down, dependencies.parents())


def _evaluate_rule(rule: Rule, poll: PollEvent, known: dict[str, AlertState], now: datetime, muted: bool) -> int:
    metric = METRICS.get(rule.metric)
    if metric is None:
        return 0
    device, queued = poll.device, 0
    profile = registry().get(device.profile) if metric.key == ARRAY_HEALTH else None
    observed: set[str] = set()
    for obs in observe(metric, poll.samples, poll.error, profile):
        if rule.scope == Rule.Scope.SERIES and obs.instance != rule.instance:
            continue
        observed.add(obs.instance)
        levels = comparable(rule.unit, obs, rule.fire_level, rule.clear_level)
        if levels is None or _unchanged(known.get(obs.instance), rule, *levels, now=now, muted=muted):
            continue
        queued += _advance(rule, device, obs.instance, *levels, now=now, muted=muted)
    if not poll.error and rule.metric not in (NOT_ANSWERING, EVENT) and not _partly_unread(metric, poll):
        unread = [row for row in known.values() if row.state != AlertState.State.OK and row.instance not in observed]
        if unread:
            queued += _close_gone(rule, metric, poll, profile, unread, now)
    return queued


def _partly_unread(metric, poll: PollEvent) -> bool:
    """Whether the poll could not read whole what the metric is read from (a table walk that failed or stopped at
    its row limit, the optics): what it lacks is not gone."""
    return bool(poll.unread) and (metric.key == ARRAY_HEALTH or metric.measurement in poll.unread)


def gone_after(device) -> timedelta:
    """How long a pending or firing target may go unread by a device that answers before it is closed as no longer
    reported (with GONE_POLLS polls in a row that answered without it): ALERTS_GONE_AFTER_S, or GONE_POLLS of the
    device's polls if that is longer."""
    return timedelta(seconds=max(settings.ALERTS_GONE_AFTER_S, GONE_POLLS * (device.poll_interval_s or 0)))


def _close_gone(rule: Rule, metric, poll: PollEvent, profile, unread: list[AlertState], now: datetime) -> int:
    """Count a miss for each pending or firing target absent from this poll, and close those absent from
    GONE_POLLS polls in a row that no poll has read for gone_after: the disk pulled, the alert the array deleted, the
    port removed would otherwise stay firing for good. A target the poll holds without a value (an idle volume's
    latency percentile) is still there: it is seen, not missed."""
    held = present(metric, poll.samples, profile)
    here = [row.pk for row in unread if row.instance in held]
    if here:
        AlertState.objects.filter(pk__in=here).update(seen_at=now, missed=0)
    absent = [row for row in unread if row.instance not in held]
    if not absent:
        return 0
    AlertState.objects.filter(pk__in=[row.pk for row in absent]).update(missed=F("missed") + 1)
    since, queued = now - gone_after(poll.device), 0
    for row in absent:
        if _long_gone(row, row.missed + 1, since):  # this poll's miss counted
            queued += _advance(rule, poll.device, row.instance, 0.0, 0.0, 0.0, now=now, muted=False, gone_since=since)
    return queued


def _long_gone(row: AlertState, missed: int, since: datetime) -> bool:
    """A pending or firing target missed by GONE_POLLS polls in a row that no poll has read since `since`."""
    return row.state != AlertState.State.OK and missed >= GONE_POLLS and (row.seen_at or row.updated_at) < since


def _unchanged(row, rule: Rule, value: float, fire: float, clear: float, now, muted: bool) -> bool:
    """An OK target that stays OK needs no write (most ports, most polls): one read instead of a lock."""
    if row is None or row.state != AlertState.State.OK or row.flapping:
        return False
    before = _snapshot(row)
    result = engine.step(before, _condition(rule, fire, clear), value, now.timestamp(), muted)
    return not result.changes and result.snapshot == before


def _condition(rule: Rule, fire: float, clear: float) -> engine.Condition:
    return engine.Condition(
        above=rule.direction == Rule.Direction.ABOVE,
        fire=fire,
        clear=clear,
        for_polls=rule.hold(),
        window_s=rule.within_minutes * 60.0 if rule.metric == EVENT else 0.0,
        repeat_s=rule.repeat_minutes * 60.0,
        flap_changes=settings.ALERTS_FLAP_CHANGES,
        flap_window_s=float(settings.ALERTS_FLAP_WINDOW_S),
    )


def _ts(value: datetime | None) -> float | None:
    return value.timestamp() if value else None


def _dt(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value is not None else None


def _snapshot(row: AlertState) -> engine.Snapshot:
    return engine.Snapshot(
        state=row.state,
        count=row.count,
        since=_ts(row.since),
        alerted=row.alerted,
        flapping=row.flapping,
        changes=tuple(float(t) for t in row.changes or ()),
        last_notified=_ts(row.last_notified_at),
        acknowledged=row.acknowledged_at is not None,
    )


def _advance(
    rule,
    device,
    instance: str,
    value: float,
    fire: float,
    clear: float,
    now,
    muted: bool,
    detail: str = "",
    gone_since: datetime | None = None,
) -> int:
    """One target, one value: lock its state row, step the machine, store the changes atomically. With
    `gone_since`, the target is closed as no longer reported if no poll read it since then (engine.gone)."""
    with transaction.atomic():
        row, _ = AlertState.objects.get_or_create(rule=rule, device=device, instance=instance)
        row = AlertState.objects.select_for_update().get(pk=row.pk)
        before = _snapshot(row)
        if gone_since is None:
            result = engine.step(before, _condition(rule, fire, clear), value, now.timestamp(), muted)
            row.seen_at, row.missed = now, 0
        elif _long_gone(row, row.missed, gone_since):
            result = engine.gone(before)
            value, fire, clear = row.value, row.fire_level, None
            detail = GONE + (f" since {row.seen_at:%Y-%m-%d %H:%M %Z}" if row.seen_at else "")
        else:
            return 0  # read by a poll meanwhile
        snap = result.snapshot
        row.state, row.count, row.since = snap.state, snap.count, _dt(snap.since)
        row.alerted, row.flapping, row.changes = snap.alerted, snap.flapping, list(snap.changes)
        row.last_notified_at, row.value, row.fire_level = _dt(snap.last_notified), value, fire
        if not snap.acknowledged:
            row.acknowledged_at, row.acknowledged_by = None, ""
        row.save()
        recipients = bool(rule.recipients()) if result.changes else True
        channels = list(rule.channels.all()) if result.changes else []
        queued = 0
        for change in result.changes:
            mail = change.mail
            if mail == engine.QUEUED and not recipients:
                mail = Event.Mail.NO_RECIPIENT
            event = Event.objects.create(
                state=row,
                rule=rule,
                device=device,
                instance=instance,
                kind=change.kind,
                to_state=change.to_state,
                value=value,
                fire_level=fire,
                clear_level=clear,
                since=row.since or (_dt(before.since) if change.kind == "clear" else None),
                mail=mail,
                next_attempt_at=now if mail == engine.QUEUED else None,
                detail=detail,
            )
            queued += mail == engine.QUEUED
            if change.mail == engine.QUEUED and channels:  # the channels get what a mail would have said
                queued += queue_deliveries(event, channels)
        return queued


def _kick_sender() -> None:
    """Ask a worker to send now; beat (or the next poll) sends anyway if the broker is away."""
    try:  # by the task's name: the tasks module imports the evaluator's users, never the other way round
        current_app.send_task("alerts.send_pending", retry=False, ignore_result=True)
    except Exception as exc:
        log.warning("could not queue the alert sender (will retry from beat): %s", exc)
