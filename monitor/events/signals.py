"""Sent after events are stored (by a receiver's batch or by the monitor itself): alert rules hang off it."""

from django.dispatch import Signal

# Argument: events (list[monitor.events.models.Event], saved, with their device ids).
events_stored = Signal()
