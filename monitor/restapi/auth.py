"""API authentication for Django REST framework: the same bearer tokens as the series API (Admin → API tokens)."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from monitor.graphs.trees.models import ApiToken


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer <token>`; only the token's SHA-256 is stored, and it is compared as such."""

    def authenticate(self, request):
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bearer "):
            return None
        raw = header[7:].strip()
        token = None
        if 0 < len(raw) < 200:
            token = ApiToken.objects.select_related("user").filter(digest=ApiToken.hash(raw)).first()
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("invalid API token")
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user, token

    def authenticate_header(self, request) -> str:
        return "Bearer"


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "monitor.restapi.auth.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer"}
