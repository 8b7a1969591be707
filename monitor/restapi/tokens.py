"""Who an API token speaks for on one request, if anyone: the one check behind every door that takes a token (the
REST API's authentication and the JSON views' `api_auth`). A token must exist, be unexpired, belong to an active
account the directory still confirms, and be read-write for anything but a read."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.utils import timezone

from monitor.graphs.trees.models import ApiToken
from monitor.restapi.directory import confirmed

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
INVALID = "invalid API token"
USE_RECORDED_EVERY = timedelta(minutes=1)  # a request a second from a script need not write a row a second


class TokenRefused(Exception):
    """The token does not let this request in: `status` 401 (no valid token) or 403 (a read-only token's write)."""

    def __init__(self, message: str, status: int = 401):
        super().__init__(message)
        self.status = status


def bearer(header: str) -> str | None:
    """The token of an `Authorization: Bearer <token>` header; None for any other header (or none)."""
    scheme, _, raw = header.partition(" ")
    return raw.strip() if scheme.lower() == "bearer" else None


def token_user(raw: str, method: str) -> tuple[AbstractBaseUser, ApiToken]:
    """The user and token a raw token stands for on a request of this method; TokenRefused says why not."""
    token = None
    if 0 < len(raw) < 200:
        found = ApiToken.objects.select_related("user", "user__directory_account")
        token = found.filter(digest=ApiToken.hash(raw)).first()
    if token is None or not token.user.is_active:
        raise TokenRefused(INVALID)
    now = timezone.now()
    if token.expires_at <= now:
        raise TokenRefused(f"this API token expired at {token.expires_at:%Y-%m-%d %H:%M} UTC; ask for a new one")
    user = confirmed(token.user)
    if user is None or not user.is_active:
        raise TokenRefused("the directory did not confirm this API token's account; sign in, or try again later")
    if token.last_used_at is None or now - token.last_used_at >= USE_RECORDED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    if method.upper() not in SAFE_METHODS and token.scope != ApiToken.Scope.WRITE:
        raise TokenRefused("this API token is read-only: it may not change anything", 403)
    return user, token
