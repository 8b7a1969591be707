"""The admin's CSV import in the background: the upload is checked in the request, sealed (encrypted with the
secrets key: its communities and v3 keys travel through the broker unreadable) and handed to a worker, which
imports it line by line and writes its progress and per-line report to the job row as it goes."""

from __future__ import annotations

import logging
import time

from django.db import transaction
from django.utils import timezone

from monitor.core.secrets import UndecryptableSecret, decrypt_strict, encrypt
from monitor.devices.csvfile import BadFile, read_csv
from monitor.devices.importing import RowOutcome, import_rows
from monitor.models import ImportJob

log = logging.getLogger(__name__)
FLUSH_S = 1.0  # the report is written about once a second (and after the first and the last line), and at most
FLUSH_LINES_PER_S = 1000  # once every (its lines / 1000) seconds: a report of 10,000 lines is rewritten every 10 s
REASON_CHARS = 500


def start_job(job: ImportJob, data: bytes) -> None:
    """Queue the checked upload for a worker once the job row is committed; a broker that cannot take it stops
    the job with the reason (the page says so, nothing was imported)."""
    sealed = encrypt(data.decode("utf-8-sig"))

    def send() -> None:
        from monitor.devices.tasks import import_csv_task

        try:
            import_csv_task.apply_async((job.pk, sealed), argsrepr=f"({job.pk}, '<sealed upload>')")
        except Exception as exc:  # the broker is down or refuses the message
            log.error("import %s: the task could not be queued: %s", job.pk, type(exc).__name__)
            _stop(job.pk, f"the task queue did not take the import ({type(exc).__name__}): nothing was imported")

    transaction.on_commit(send)


def run_job(job_id: int, sealed: str) -> None:
    """Import the sealed upload for job `job_id` once (a task delivered twice finds it started and does nothing)."""
    now = timezone.now()
    if not ImportJob.objects.filter(pk=job_id, state=ImportJob.State.QUEUED).update(
        state=ImportJob.State.RUNNING, started_at=now, updated_at=now
    ):
        log.warning("import %s: not waiting to run (gone, or started already): skipped", job_id)
        return
    job = ImportJob.objects.get(pk=job_id)
    try:
        csv_file = read_csv(decrypt_strict(sealed).encode())
    except (UndecryptableSecret, BadFile) as exc:
        reason = "no configured secrets key decrypts the upload" if isinstance(exc, UndecryptableSecret) else exc
        _stop(job_id, f"{reason}; nothing was imported")
        return
    progress = Progress(job)
    try:
        import_rows(csv_file, job.skip_test, progress.add)
    except Exception as exc:  # the database went away: keep what is known, say where it stopped
        log.error("import %s: stopped after %d line(s): %s", job_id, len(job.report), type(exc).__name__)
        progress.flush()
        _stop(job_id, f"stopped after {len(job.report)} line(s) ({type(exc).__name__}); the lines listed were handled")
        return
    progress.flush(state=ImportJob.State.DONE)


class Progress:
    """Appends each line's outcome to the job's report and writes it (and the counts) to its row now and then."""

    def __init__(self, job: ImportJob):
        self.job = job
        self.written = 0.0

    def add(self, outcome: RowOutcome) -> None:
        device = outcome.device
        self.job.report.append(
            {
                "line": outcome.line,
                "name": outcome.name,
                "device": device.pk if device is not None else None,
                "profile": device.profile if device is not None else "",
                "errors": [reason[:REASON_CHARS] for reason in outcome.errors],
            }
        )
        self.job.rows_done += 1
        self.job.imported += device is not None
        if time.monotonic() - self.written >= max(FLUSH_S, self.job.rows_done / FLUSH_LINES_PER_S):
            self.flush()

    def flush(self, state: str | None = None) -> None:
        job = self.job
        job.updated_at = timezone.now()
        fields = ["report", "rows_done", "imported", "updated_at"]
        if state is not None:
            job.state, job.finished_at = state, job.updated_at
            fields += ["state", "finished_at"]
        job.save(update_fields=fields)
        self.written = time.monotonic()


def _stop(job_id: int, reason: str) -> None:
    now = timezone.now()
    ImportJob.objects.filter(pk=job_id).update(
        state=ImportJob.State.FAILED, error=reason[:2000], finished_at=now, updated_at=now
    )
