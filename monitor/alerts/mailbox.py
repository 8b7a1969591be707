"""A page to read mail captured by Django's file backend (the demo's), so nothing sent is unseen."""

from __future__ import annotations

import email
from email import policy
from pathlib import Path

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

SEPARATOR = "-" * 79


def captured_messages(limit: int = 50) -> list[dict]:
    """The newest captured mails (subject, recipients, date, text part) from EMAIL_FILE_PATH."""
    folder = Path(getattr(settings, "EMAIL_FILE_PATH", "") or "")
    if not folder.is_dir():
        return []
    found: list[dict] = []
    for path in sorted(folder.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True):
        for raw in reversed(path.read_text(encoding="utf-8", errors="replace").split(SEPARATOR)):
            if not raw.strip():
                continue
            message = email.message_from_string(raw.strip() + "\n", policy=policy.default)
            body = message.get_body(preferencelist=("plain",))
            found.append(
                {
                    "subject": str(message.get("Subject", "")),
                    "to": str(message.get("To", "")),
                    "date": str(message.get("Date", "")),
                    "text": body.get_content() if body is not None else "",
                }
            )
            if len(found) >= limit:
                return found
    return found


@staff_member_required
def captured(request: HttpRequest) -> HttpResponse:
    backend = settings.EMAIL_BACKEND
    context = {"mails": captured_messages(), "file_backend": backend.endswith("filebased.EmailBackend")}
    return render(request, "alerts/mailbox.html", context)
