"""OpenID Connect settings (mozilla-django-oidc's OIDC_*) from MONITOR_OIDC_*, read by settings.py before Django
is set up (monitor/core/oidc.py holds the backend and views)."""

from __future__ import annotations

from monitor.core.config import ConfigError, env

ENDPOINTS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "MONITOR_OIDC_AUTHORIZATION_URL",
    "OIDC_OP_TOKEN_ENDPOINT": "MONITOR_OIDC_TOKEN_URL",
    "OIDC_OP_USER_ENDPOINT": "MONITOR_OIDC_USERINFO_URL",
    "OIDC_OP_JWKS_ENDPOINT": "MONITOR_OIDC_JWKS_URL",
}


def oidc_settings() -> dict:
    """OIDC_* settings from MONITOR_OIDC_*; {} while MONITOR_OIDC_CLIENT_ID is unset (OpenID Connect off)."""
    client_id = env("MONITOR_OIDC_CLIENT_ID", "")
    if not client_id:
        return {}
    found = {
        "OIDC_RP_CLIENT_ID": client_id,
        "OIDC_RP_CLIENT_SECRET": env("MONITOR_OIDC_CLIENT_SECRET", ""),
        "OIDC_RP_SIGN_ALGO": env("MONITOR_OIDC_SIGN_ALGO", "RS256"),
        "OIDC_RP_SCOPES": env("MONITOR_OIDC_SCOPES", "openid email profile groups"),
        "OIDC_CREATE_USER": True,
        "LOGIN_REDIRECT_URL_FAILURE": "/login/?sso=failed",
    }
    for name, variable in ENDPOINTS.items():
        url = env(variable, "")
        if not url.startswith(("https://", "http://")):
            raise ConfigError(f"{variable} is needed with MONITOR_OIDC_CLIENT_ID (the provider's https:// URL)")
        found[name] = url
    return found
