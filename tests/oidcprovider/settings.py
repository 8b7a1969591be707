"""A real OpenID Connect provider for the sign-in tests (django-oidc-provider), run as its own server on loopback."""

import os
from pathlib import Path

BASE = Path(os.environ["OIDCP_DIR"])
SECRET_KEY = "test-provider-secret-key-not-for-production-0123456789"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oidc_provider",
    "tests.oidcprovider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.oidcprovider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(BASE / "provider.sqlite3")}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
USE_TZ = True
LOGIN_URL = "/accounts/login/"
SITE_URL = os.environ.get("OIDCP_URL", "")
OIDC_EXTRA_SCOPE_CLAIMS = "tests.oidcprovider.claims.GroupsClaims"
OIDC_USERINFO = "tests.oidcprovider.claims.userinfo"
