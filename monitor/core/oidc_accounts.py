"""The account an OpenID Connect user signs into: found by issuer and subject, never by name.

A provider user's first sign-in creates an account of their own, named by their preferred_username; when that name
(in any case: the directory matches names so) is another account's, they get the first free of `NAME-sso`,
`NAME-sso-2`, ... instead, and keep it: a later rename at the provider changes nothing here. The one exception is
an account an administrator marked with `manage.py oidc_adopt` (made by a sign-in before subjects were recorded):
the next provider user of exactly that name adopts it, and it is theirs by subject from then on.
"""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, transaction
from django.utils import timezone

from monitor.core.identities import ISSUER_MAX, SUBJECT_MAX, OidcIdentity

log = logging.getLogger(__name__)
NAME_MAX = 150  # Django's user name
SUFFIX = "-sso"


def free_username(wanted: str) -> str:
    """`wanted` if no account has it (in any case), else the first free `wanted-sso`, `wanted-sso-2`, ..."""
    users = get_user_model().objects
    base = wanted[:NAME_MAX] or "sso-user"
    if not users.filter(username__iexact=base).exists():
        return base
    for n in range(1, 1000):
        tail = SUFFIX if n == 1 else f"{SUFFIX}-{n}"
        name = base[: NAME_MAX - len(tail)] + tail
        if not users.filter(username__iexact=name).exists():
            return name
    raise SuspiciousOperation(f"no free user name left for {base[:40]!r}")


def _claim(issuer: str, subject: str, wanted: str) -> AbstractBaseUser:
    found = OidcIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
    if found is not None:
        return found.user
    marked = OidcIdentity.objects.select_for_update().select_related("user")
    marked = marked.filter(subject="", user__username=wanted).first()
    if marked is not None:  # an administrator marked this account of an earlier sign-in for adoption
        marked.issuer, marked.subject, marked.linked_at = issuer, subject, timezone.now()
        marked.save(update_fields=["issuer", "subject", "linked_at"])
        log.info("OpenID Connect: account %r adopted by subject %r of %s", wanted, subject, issuer)
        return marked.user
    name = free_username(wanted)
    user = get_user_model().objects.create_user(name)  # no usable password: the provider decides
    OidcIdentity.objects.create(user=user, issuer=issuer, subject=subject, linked_at=timezone.now())
    if name != wanted:
        log.warning(
            "OpenID Connect: %r is another account's name; subject %r of %s is %r", wanted, subject, issuer, name
        )
    return user


def account_for(issuer: str, subject: str, wanted: str) -> AbstractBaseUser:
    """The account of the provider's user `subject` at `issuer`, created at their first sign-in (see the module)."""
    if not issuer or not subject:
        raise SuspiciousOperation("the ID token names no issuer or no subject")
    if len(issuer) > ISSUER_MAX or len(subject) > SUBJECT_MAX:
        raise SuspiciousOperation("the ID token's issuer or subject is too long to be stored whole")
    for _ in range(3):  # two first sign-ins at once: the loser finds the winner's row
        try:
            with transaction.atomic():
                return _claim(issuer, subject, wanted)
        except IntegrityError:
            continue
    raise SuspiciousOperation(f"no account could be made for subject {subject[:40]!r}")
