"""API authentication for Django REST framework: the same bearer tokens as the series API (Admin → API tokens),
checked by monitor/restapi/tokens.py (expiry, active account, directory groups, read-only scope)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from monitor.restapi.tokens import TokenRefused, bearer, token_user


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>`; only the token's SHA-256 is stored, and it is compared as such."""

    def authenticate(self, request):
        raw = bearer(request.headers.get("Authorization", ""))
        if raw is None:
            return None
        try:
            return token_user(raw, request.method)
        except TokenRefused as exc:
            refusal = exceptions.PermissionDenied if exc.status == 403 else exceptions.AuthenticationFailed
            raise refusal(str(exc)) from None

    def authenticate_header(self, request) -> str:
        return "Bearer"


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "monitor.restapi.auth.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer"}
