"""Sign-in with OpenID Connect (mozilla-django-oidc), configured from the environment.

The provider's `groups` claim (MONITOR_OIDC_GROUPS_CLAIM) becomes the user's Django groups at every login, as
LDAP's groups do (monitor/core/directory.py), so the trees granted to a group are what its members read. A user
the provider names like an existing local account (one with a password) is refused, never logged into it.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

log = logging.getLogger(__name__)


def enabled() -> bool:
    return bool(getattr(settings, "OIDC_RP_CLIENT_ID", ""))


def username_of(claims: dict) -> str:
    return str(claims.get("preferred_username") or claims.get("sub") or "")[:150]


class GroupsOIDCBackend(OIDCAuthenticationBackend):
    """Users by the provider's user name; groups from its groups claim at every login."""

    def filter_users_by_claims(self, claims):
        name = username_of(claims)
        if not name:
            return self.UserModel.objects.none()
        found = self.UserModel.objects.filter(username=name)
        if any(user.has_usable_password() for user in found):
            log.warning("OpenID Connect login refused: %r is a local account", name)
            raise SuspiciousOperation("an OpenID Connect user may not log into a local account of the same name")
        return found

    def create_user(self, claims):
        user = self.UserModel.objects.create_user(username_of(claims))  # no usable password: the provider decides
        return self.update_user(user, claims)

    def update_user(self, user, claims):
        user.email = str(claims.get("email") or user.email)[:254]
        user.first_name = str(claims.get("given_name") or user.first_name)[:150]
        user.last_name = str(claims.get("family_name") or user.last_name)[:150]
        groups = claims.get(settings.MONITOR_OIDC_GROUPS_CLAIM) or []
        names = sorted({g[:150] for g in groups if isinstance(g, str) and g}) if isinstance(groups, list) else []
        user.groups.set([Group.objects.get_or_create(name=name)[0] for name in names])
        if settings.MONITOR_OIDC_STAFF_GROUP:
            user.is_staff = settings.MONITOR_OIDC_STAFF_GROUP in names
        user.save()
        return user


def start(request: HttpRequest) -> HttpResponse:
    """/oidc/authenticate/: off (404) unless configured, else to the provider."""
    if not enabled():
        raise Http404("OpenID Connect sign-in is not configured")
    return OIDCAuthenticationRequestView.as_view()(request)


def callback(request: HttpRequest) -> HttpResponse:
    """/oidc/callback/: the provider sends the browser back here with a code."""
    if not enabled():
        raise Http404("OpenID Connect sign-in is not configured")
    return OIDCAuthenticationCallbackView.as_view()(request)


def context(request: HttpRequest) -> dict:
    """The login page's "Sign in with ..." button."""
    return {"oidc_name": settings.MONITOR_OIDC_NAME if enabled() else ""}
