"""Store events: the one write path for the receivers' batches and the monitor's own events; rules are told after."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from monitor.events.kinds import KINDS
from monitor.events.models import TEXT_MAX, Event
from monitor.events.signals import events_stored

log = logging.getLogger(__name__)


def clean_text(text: str, limit: int = TEXT_MAX) -> str:
    """Device text kept as text: NUL characters (no database keeps them) removed, the length bounded."""
    text = text.replace("\x00", "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def make(device_id: int, kind: str, text: str, **fields) -> Event:
    """An unsaved event of a known kind, its severity and source defaulting to the kind's."""
    spec = KINDS[kind]
    return Event(
        device_id=device_id,
        kind=kind,
        source=fields.pop("source", spec.source),
        severity=fields.pop("severity", spec.severity),
        time=fields.pop("time", None) or timezone.now(),
        text=clean_text(text),
        name=fields.pop("name", "")[:100],
        port=fields.pop("port", "")[:255],
        **fields,
    )


def store(events: list[Event]) -> list[Event]:
    """Insert a batch in one statement and tell listeners (alert rules); a listener's failure is only logged."""
    if not events:
        return []
    saved = Event.objects.bulk_create(events, batch_size=500)
    announce = lambda: _announce(saved)  # noqa: E731 - after the commit, so rules see committed rows
    transaction.on_commit(announce)
    return saved


def _announce(saved: list[Event]) -> None:
    for receiver, response in events_stored.send_robust(Event, events=saved):
        if isinstance(response, Exception):
            log.error("events_stored receiver %s failed: %s", receiver, response, exc_info=response)


def record(device_id: int, kind: str, text: str, **fields) -> Event | None:
    """The monitor's own event (reboot, port change, alert, maintenance); never raises into its caller."""
    try:
        return store([make(device_id, kind, text, **fields)])[0]
    except Exception as exc:  # the timeline is a record of what happened: its failure must not stop the happening
        log.warning("event %s of device %s not recorded: %s", kind, device_id, exc)
        return None


def upsert(ref: str, device_id: int, kind: str, text: str, **fields) -> None:
    """An event that may change later (a maintenance window edited): one row per reference."""
    try:
        row = make(device_id, kind, text, **fields)
        updated = Event.objects.filter(ref=ref, device_id=device_id).update(
            time=row.time, text=row.text, ends_at=row.ends_at, severity=row.severity
        )
        if not updated:
            row.ref = ref[:64]
            store([row])
    except Exception as exc:
        log.warning("event %s of device %s not recorded: %s", ref, device_id, exc)
