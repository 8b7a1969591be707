"""Celery tasks: thin wrappers over plain functions that tests call directly."""

from __future__ import annotations

from celery import shared_task

from monitor.storage.paths import refresh_paths


@shared_task(name="storage.refresh_paths", ignore_result=True)
def refresh_paths_task() -> dict:
    """Learn which switch ports carry each array's traffic (daily from beat, and after a discovery)."""
    summary = refresh_paths()
    return {
        "arrays": summary.arrays,
        "switches": summary.switches,
        "links": summary.links,
        "kept": summary.kept,
        "hosts": summary.hosts,
        "topology": summary.topology,
    }
