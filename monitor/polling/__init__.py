"""Polling: the beat scheduler, the Celery tasks, a poll run end to end, back-off, poll records, signals."""
