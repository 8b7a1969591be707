"""The admin's CSV import pages: the upload (checked whole in the request, within its size before a byte of it is
read), then the job's page, which follows the worker to the per-line report, and that report as CSV. A job is
seen by its uploader and superusers only; anyone else gets a 404, as for a job that does not exist."""

from __future__ import annotations

import csv
import io

from django.core.files.uploadedfile import InMemoryUploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_protect

from monitor.core.csvcells import neutral_cell
from monitor.devices.csvfile import MAX_BYTES, BadFile, read_csv
from monitor.devices.forms import ImportForm
from monitor.devices.importrun import start_job
from monitor.models import ImportJob

SLACK = 64 * 1024  # the form's other fields and the multipart framing around the file
RUNNING_LINES = 50  # while a job runs its page lists its latest lines; the whole report once it is done
TOO_LARGE = f"the file is larger than {MAX_BYTES // 1024 // 1024} MB; nothing imported"


class CappedUpload(FileUploadHandler):
    """Holds uploaded files in memory up to `limit` bytes in all and stops reading past it: a larger file is
    refused whole and never reaches memory or the disk (Django's own handlers spool it to a temporary file)."""

    def __init__(self, request: HttpRequest, limit: int):
        super().__init__(request)
        self.limit, self.received, self.too_large = limit, 0, False

    def new_file(self, *args, **kwargs) -> None:
        super().new_file(*args, **kwargs)
        self.buffer = io.BytesIO()

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.received += len(raw_data)
        if self.received > self.limit:
            self.too_large = True
            raise StopUpload(connection_reset=False)  # the rest (at most SLACK more) is read and dropped
        self.buffer.write(raw_data)

    def file_complete(self, file_size: int) -> InMemoryUploadedFile:
        self.buffer.seek(0)
        return InMemoryUploadedFile(
            self.buffer, self.field_name, self.file_name, self.content_type, file_size, self.charset
        )


def upload(model_admin, request: HttpRequest) -> HttpResponse:
    """The upload form; a POST within the size limit is checked (CSRF, then the file) before a job is queued.
    Called before anything reads the body (the URL is exempt from the CSRF middleware, checked here instead)."""
    if not model_admin.has_add_permission(request):
        return HttpResponse("not allowed", status=403)
    if request.method == "POST":
        if _declared_length(request) > MAX_BYTES + SLACK:
            return _form_page(model_admin, request, ImportForm(), TOO_LARGE, status=413)
        request.upload_handlers = [CappedUpload(request, MAX_BYTES)]
    return _checked_upload(request, model_admin)


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0  # as Django reads it: no body


@csrf_protect
def _checked_upload(request: HttpRequest, model_admin) -> HttpResponse:
    if request.method != "POST":
        return _form_page(model_admin, request, ImportForm())
    files = request.FILES  # read the body now, through the handlers set above
    if any(getattr(h, "too_large", False) for h in request.upload_handlers):
        return _form_page(model_admin, request, ImportForm(), TOO_LARGE, status=413)
    form = ImportForm(request.POST, files)
    if not form.is_valid():
        return _form_page(model_admin, request, form, status=400)
    upload_file = form.cleaned_data["file"]
    data = upload_file.read(MAX_BYTES + 1)
    try:
        csv_file = read_csv(data)
    except BadFile as exc:
        return _form_page(model_admin, request, form, f"{exc}; nothing imported", status=400)
    job = ImportJob.objects.create(
        user=request.user,
        file_name=(upload_file.name or "")[:255],
        skip_test=form.cleaned_data["skip_test"],
        rows_total=len(csv_file.rows),
    )
    start_job(job, data)
    return redirect("admin:monitor_device_import_job", job.pk)


def _form_page(model_admin, request, form: ImportForm, error: str = "", status: int = 200) -> HttpResponse:
    if error and form.is_bound:
        form.add_error("file", error)
    recent = ImportJob.objects.filter(user=request.user)[:10] if request.user.is_authenticated else []
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Import devices from CSV",
        "opts": model_admin.model._meta,
        "form": form,
        "error": error if not form.is_bound else "",
        "recent": recent,
    }
    return render(request, "admin/monitor/device/import.html", context, status=status)


def _job(request: HttpRequest, job_id: int) -> ImportJob:
    job = ImportJob.objects.filter(pk=job_id).first()
    if job is None or not job.visible_to(request.user):
        raise Http404("no such import")
    return job


def job_page(model_admin, request: HttpRequest, job_id: int) -> HttpResponse:
    """The job's progress, then its whole report; `?part=progress` is the part the page fetches to update itself."""
    job = _job(request, job_id)
    lines = job.report if job.finished else job.report[-RUNNING_LINES:]
    context = {"job": job, "lines": lines, "partial": len(lines) < len(job.report)}
    if request.GET.get("part") == "progress":
        return render(request, "admin/monitor/device/_import_job.html", context)
    context |= {
        **model_admin.admin_site.each_context(request),
        "title": f"Import of {job.file_name or 'a CSV file'}",
        "opts": model_admin.model._meta,
    }
    return render(request, "admin/monitor/device/import_job.html", context)


def job_report(model_admin, request: HttpRequest, job_id: int) -> HttpResponse:
    """The per-line report as CSV; no cell can become a spreadsheet formula (names come from the upload)."""
    job = _job(request, job_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="import-{job.pk}-report.csv"'
    writer = csv.writer(response)
    writer.writerow(["line", "name", "outcome", "reason"])
    for line in job.report:
        outcome = "imported" if line["device"] is not None else "refused"
        writer.writerow([line["line"], neutral_cell(line["name"]), outcome, neutral_cell("; ".join(line["errors"]))])
    return response
