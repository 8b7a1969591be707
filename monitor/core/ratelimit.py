"""Login rate limiting: after too many failures for a user name or a client address, refuse for a while."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.signals import user_login_failed
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver

log = logging.getLogger(__name__)


def _keys(request, username: str | None) -> list[str]:
    address = request.META.get("REMOTE_ADDR", "") if request is not None else ""
    name = hashlib.sha256((username or "").lower().encode()).hexdigest()[:32]
    return [f"login-fail:user:{name}", f"login-fail:addr:{address}"]


def blocked(request, username: str | None) -> bool:
    limit = settings.MONITOR_LOGIN_MAX_FAILURES
    return any((cache.get(key) or 0) >= limit for key in _keys(request, username))


class RateLimitedModelBackend(ModelBackend):
    """The usual user/password check, refused outright while a user name or address is locked out."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if blocked(request, username):
            log.warning("login refused: too many failures (user or address locked out)")
            raise PermissionDenied("too many failed logins; try again later")
        return super().authenticate(request, username=username, password=password, **kwargs)


@receiver(user_login_failed)
def count_failure(sender, credentials, request=None, **kwargs) -> None:
    """Count a failed login against both the user name and the client address."""
    window = settings.MONITOR_LOGIN_LOCKOUT_S
    for key in _keys(request, credentials.get("username")):
        if not cache.add(key, 1, window):
            try:
                cache.incr(key)
            except ValueError:
                cache.set(key, 1, window)
