"""Celery tasks: thin wrappers over plain functions that tests call directly."""

from __future__ import annotations

from celery import shared_task

from monitor.devices.importrun import run_job


@shared_task(name="devices.import_csv", ignore_result=True)
def import_csv_task(job_id: int, sealed: str) -> None:
    """The admin's CSV import (monitor.devices.importrun): `sealed` is the upload encrypted with the secrets key."""
    run_job(job_id, sealed)
