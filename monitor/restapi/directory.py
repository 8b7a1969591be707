"""Directory (LDAP) accounts behind API tokens: their groups and staff flags are read again from the directory when
they were last read more than API_TOKEN_DIRECTORY_CHECK_S ago, so a token reads what the directory grants now, not
what it granted at the account's last sign-in; an account the directory does not confirm gets no access."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.utils import timezone

from monitor.core import directory
from monitor.graphs.trees.models import DirectoryAccount

log = logging.getLogger(__name__)
RETRY_AFTER_REFUSAL = timedelta(minutes=1)


def confirmed(user: AbstractBaseUser) -> AbstractBaseUser | None:
    """The token's user as the directory has them now (the same user when it is no directory account, or was read
    lately); None when the directory does not confirm the account (gone from it, not answering, LDAP turned off).
    After a refusal the directory is asked again at most once a minute, so a directory that does not answer holds
    up one request a minute per account, not every request."""
    account = getattr(user, "directory_account", None)
    if account is None:
        return user
    now, check = timezone.now(), timedelta(seconds=settings.API_TOKEN_DIRECTORY_CHECK_S)
    if now - account.checked_at < check:
        return user
    if account.failed_at is not None and now - account.failed_at < min(check, RETRY_AFTER_REFUSAL):
        return None
    found = _read_again(user)
    if found is None:
        DirectoryAccount.objects.filter(pk=account.pk).update(failed_at=now)
        return None
    DirectoryAccount.objects.filter(pk=account.pk).update(checked_at=now, failed_at=None)
    return found


def _read_again(user: AbstractBaseUser) -> AbstractBaseUser | None:
    """The account re-read from the directory (groups mirrored and flags set, as a sign-in does), or None."""
    if not getattr(settings, "AUTH_LDAP_SERVER_URI", ""):
        log.warning("API token of directory account %s refused: LDAP sign-in is off", user.pk)
        return None
    from monitor.core.ldap_backend import DirectoryBackend

    found = DirectoryBackend().populate_user(user.get_username())  # the sign-in's own account rules
    if found is None or found.pk != user.pk:
        log.warning("API token of directory account %s refused: the directory did not confirm it", user.pk)
        return None
    return found


def on_login(sender, request, user, **kwargs) -> None:
    """A sign-in through the directory records the account (its groups were read just now)."""
    if getattr(user, "backend", "") == directory.BACKEND:
        DirectoryAccount.objects.update_or_create(user=user, defaults={"checked_at": timezone.now(), "failed_at": None})
