"""An array part's state changes as the polls read them: each part's state is a row (PartState), and each change of it
an event on the device's timeline, so a disk that failed last Tuesday is a marker on every graph of the array (its
volume graphs too) and a line on its events page, with when it came back."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from monitor.events.models import Event
from monitor.events.record import make, store
from monitor.storage import health
from monitor.storage.models import PartState

log = logging.getLogger(__name__)
# Severity of the event by the state entered (RFC 5424: 3 error, 4 warning, 5 notice)
SEVERITY = {"failed": 3, "degraded": 4, "rebuilding": 4, "warning": 4, "ok": 5}
# What the device page counts: parts read by a poll this recently (health.LOOK_BACK, as the array page)
CURRENT = health.LOOK_BACK
# How often an unchanged part's `seen_at` is written: an array polled each minute writes nothing most polls
SEEN_EVERY = timedelta(minutes=10)


def record(device, profile, samples: list, polled_at: datetime | None = None) -> list[Event]:
    """Keep the states one poll of `device` read (its samples, polled at `polled_at`) and store an event for each
    part whose state changed, or that is first seen not ok; returns the events stored. A part the poll did not read
    keeps its row; a poll older than what a row last saw (a batch that finished late) changes nothing. Nothing is
    written while nothing changed, but `seen_at` once every SEEN_EVERY."""
    latest = {part: (state, word[:100]) for part, state, word in health.readings(profile, samples)}
    if not latest:
        return []
    now = polled_at or timezone.now()
    if not _news(latest, {row.part: row for row in PartState.objects.filter(device=device)}, now):
        return []
    worded = health.word_event_parts(profile, samples)
    with transaction.atomic():  # the new states and their events together, or neither
        known = {row.part: row for row in PartState.objects.select_for_update().filter(device=device)}
        new, changed, events = [], [], []
        for part, (state, word) in latest.items():
            row = known.get(part)
            if row is None:
                new.append(PartState(device=device, part=part, state=state, word=word, since=now, seen_at=now))
                if state != "ok":
                    events.append(_event(device, part, None, state, word, now))
            elif row.seen_at <= now and (row.state != state or row.word != word):
                if row.state != state:
                    events.append(_event(device, part, row.state, state, word, now))
                    row.since = now
                elif part in worded:  # the same state in another word that is news (a failover)
                    events.append(_event(device, part, row.state, state, word, now, was_word=row.word))
                row.state, row.word = state, word
                changed.append(row)
        PartState.objects.bulk_create(new, ignore_conflicts=True)  # a row another worker made meanwhile stands
        PartState.objects.bulk_update(changed, ["state", "word", "since"])
        PartState.objects.filter(device=device, part__in=list(latest), seen_at__lt=now).update(seen_at=now)
        return store(events)


def _news(latest: dict[str, tuple[str, str]], known: dict[str, PartState], now: datetime) -> bool:
    """Whether a poll at `now` has something to write: a part new or in another state or word, or one whose
    `seen_at` is SEEN_EVERY old."""
    for part, (state, word) in latest.items():
        row = known.get(part)
        if row is None or (row.seen_at <= now and (row.state, row.word) != (state, word)):
            return True
        if now - row.seen_at >= SEEN_EVERY:
            return True
    return False


def _event(device, part: str, was: str | None, state: str, word: str, now: datetime, was_word: str = "") -> Event:
    said = f" ({word})" if word and word != state else ""
    before = f"{was} ({was_word})" if was_word else was
    text = f"{part}: {before} → {state}{said}" if was else f"{part}: {state}{said} at its first poll"
    detail = {"part": part, "state": state, "was": was, "word": word} | ({"was_word": was_word} if was_word else {})
    return make(device.pk, "health_changed", text, severity=SEVERITY[state], time=now, detail=detail)


def current(device, now: datetime | None = None) -> list[PartState]:
    """The device's parts read by a recent poll, what is not ok first (the worst first), then by name."""
    since = (now or timezone.now()) - CURRENT
    rows = list(PartState.objects.filter(device=device, seen_at__gte=since))
    return sorted(rows, key=lambda r: (-health.STATES.index(r.state), r.part))
