"""The directory's sign-in backend (django-auth-ldap's, configured by monitor/core/directory.py) with two locks.

A directory user signs into the account the directory made for them (by user name, in any case, as django-auth-ldap
matches), never into a local account (one with a password) or an OpenID Connect user's account of the same name:
those stay their owners'. And a session lasts only while its account is active: django-auth-ldap's get_user does
not look, so a deactivated user kept every page until the session expired (and its right password is a failed
login, as for a local account).
"""

from __future__ import annotations

import logging

from django.core.exceptions import MultipleObjectsReturned
from django_auth_ldap.backend import LDAPBackend

from monitor.core.identities import OidcIdentity

log = logging.getLogger(__name__)


class DirectoryBackend(LDAPBackend):
    """LDAPBackend that adopts no account it did not make and keeps no session of a deactivated account."""

    def get_or_build_user(self, username, ldap_user):
        try:
            user, built = super().get_or_build_user(username, ldap_user)
        except MultipleObjectsReturned:
            log.warning("directory sign-in refused: several accounts are named %r in some case", username[:150])
            raise ldap_user.AuthenticationFailed("several accounts match the name") from None
        if not built and (user.has_usable_password() or OidcIdentity.objects.filter(user=user).exists()):
            kind = "a local account" if user.has_usable_password() else "a single sign-on account"
            log.warning("directory sign-in refused: %r is %s, not the directory's", user.get_username(), kind)
            raise ldap_user.AuthenticationFailed(f"the account of that name is {kind}")
        return user, built

    def authenticate_ldap_user(self, ldap_user, password):
        """None for a deactivated account, as ModelBackend answers: a failed login, counted as one (else its right
        password, not counted, would tell a guesser they found it)."""
        user = super().authenticate_ldap_user(ldap_user, password)
        return user if user is not None and user.is_active else None

    def get_user(self, user_id):
        """The session's account while it is active (ModelBackend's rule), else None: the session is anonymous."""
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None
