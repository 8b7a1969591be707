"""What django-axes counts a failed login against (AXES_USERNAME_CALLABLE, AXES_WHITELIST_CALLABLE).

The directory matches user names in any case and with runs of spaces as one, so "alice", "Alice" and "ALICE" are one
directory account: they are one count too, or each spelling would get its own five guesses at the same password.
Local accounts that differ only in case share a count (a lock-out a little sooner; never a guess more). A sign-in
with no user name is OpenID Connect's callback: no password is guessed there (the provider checks it, with its own
limits), so it is neither counted nor locked, and a few failed sign-ins behind one address lock nobody out.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest

FIELD_MAX = 255  # axes' AccessAttempt.username


def username(request: HttpRequest | None, credentials: dict | None = None) -> str | None:
    """The user name tried, in one case with spaces collapsed; None when the attempt names none."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    raw = credentials.get(field) if credentials is not None else getattr(request, "POST", {}).get(field)
    if raw is None:
        return None
    return " ".join(str(raw).split()).casefold()[:FIELD_MAX]


def not_a_password_login(request: HttpRequest | None, credentials: dict | None = None) -> bool:
    """True for an attempt that names no user (OpenID Connect's callback): axes neither counts nor locks it."""
    return username(request, credentials) is None
