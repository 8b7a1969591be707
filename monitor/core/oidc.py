"""Sign-in with OpenID Connect (mozilla-django-oidc), configured from the environment.

A provider's user is the issuer and subject of the ID token the provider signed, never a name: the account they
sign into is the one their first sign-in created (monitor/core/oidc_accounts.py), so no local, directory or other
provider user's account becomes theirs. The provider's `groups` claim (MONITOR_OIDC_GROUPS_CLAIM) becomes the
user's Django groups at every login, as LDAP's groups do (monitor/core/directory.py), so the trees granted to a
group are what its members read. Only the callback signs in, and only an active account stays signed in.
"""

from __future__ import annotations

import logging

import requests
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from monitor.core.oidc_accounts import account_for

log = logging.getLogger(__name__)


def enabled() -> bool:
    return bool(getattr(settings, "OIDC_RP_CLIENT_ID", ""))


def username_of(claims: dict) -> str:
    return str(claims.get("preferred_username") or claims.get("sub") or "")[:150]


class GroupsOIDCBackend(OIDCAuthenticationBackend):
    """Users by the ID token's issuer and subject; groups from the provider's groups claim at every login."""

    def authenticate(self, request, **kwargs):
        """Only the callback exchanges a code: a code and state sent to the password form are not redeemed."""
        if request is None or request.path != reverse("oidc_authentication_callback") or "password" in kwargs:
            return None
        try:
            return super().authenticate(request, **kwargs)
        except requests.RequestException as exc:  # a spent or forged code, the provider down: a failed sign-in
            status = getattr(exc.response, "status_code", None)
            log.warning("OpenID Connect sign-in failed: %s from the provider (HTTP %s)", type(exc).__name__, status)
            return None

    def get_or_create_user(self, access_token, id_token, payload):
        """`payload` is the ID token the provider signed (checked by mozilla-django-oidc): its `iss` and `sub`."""
        claims = self.get_userinfo(access_token, id_token, payload)
        if not self.verify_claims(claims):
            raise SuspiciousOperation("Claims verification failed")
        subject = str(payload.get("sub") or "")
        if "sub" in claims and str(claims["sub"]) != subject:
            raise SuspiciousOperation("the userinfo answer is about another subject than the ID token")
        user = account_for(str(payload.get("iss") or ""), subject, username_of(claims))
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

    def get_user(self, user_id):
        """The session's account while it is active: a deactivated account's session ends at its next request."""
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None


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
