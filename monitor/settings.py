"""Django settings: everything comes from the environment; defaults run `make demo` with no .env."""

from __future__ import annotations

from pathlib import Path

import dj_database_url

from monitor.config import env, env_bool, env_float, env_int, env_list, secret_from_var

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env("MONITOR_VAR_DIR", str(BASE_DIR / "var")))

SECRET_KEY = secret_from_var("DJANGO_SECRET_KEY", VAR_DIR, "django-secret-key")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "monitor",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "monitor.urls"
WSGI_APPLICATION = "monitor.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), conn_max_age=60)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Workers, beat and the web server share the file: wait for locks instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    if env("MONITOR_TEST_DATABASE", ""):
        DATABASES["default"]["TEST"] = {"NAME": env("MONITOR_TEST_DATABASE")}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = env("TZ", "UTC") or "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Only the browser builds of the npm packages are served (never the whole node_modules tree).
VENDOR_DIST = {
    "chart.js": "chart.js/dist",
    "chartjs-adapter-date-fns": "chartjs-adapter-date-fns/dist",
    "chartjs-plugin-zoom": "chartjs-plugin-zoom/dist",
    "hammerjs": "hammerjs",
}
STATICFILES_DIRS = [BASE_DIR / "static"] + [
    (f"vendor/{name}", BASE_DIR / "node_modules" / path)
    for name, path in VENDOR_DIST.items()
    if (BASE_DIR / "node_modules" / path).is_dir()
]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Production hardening: on unless DEBUG; cookies secure when served over TLS.
SECURE_TLS = env_bool("DJANGO_SECURE_TLS", False)
SESSION_COOKIE_SECURE = SECURE_TLS
CSRF_COOKIE_SECURE = SECURE_TLS
SECURE_SSL_REDIRECT = SECURE_TLS and env_bool("DJANGO_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000 if SECURE_TLS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_TLS and env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = SECURE_TLS and env_bool("DJANGO_HSTS_PRELOAD", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE_TLS else None
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

# Redis: Celery broker and the poller's short-lived state (last counters, locks).
REDIS_URL = env("REDIS_URL", "redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = env("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULER = "monitor.scheduler:DeviceScheduler"
CELERY_TASK_DEFAULT_QUEUE = "celery"
# Static periodic tasks (beside the per-device polls the scheduler builds): name -> {task, schedule, ...}.
CELERY_BEAT_SCHEDULE: dict = {}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# InfluxDB 2.x.
INFLUXDB_URL = env("INFLUXDB_URL", "http://127.0.0.1:8086")
INFLUXDB_ORG = env("INFLUXDB_ORG", "monitor")
INFLUXDB_BUCKET = env("INFLUXDB_BUCKET", "monitor")
INFLUXDB_TOKEN = env("INFLUXDB_TOKEN", "")
if not INFLUXDB_TOKEN and (VAR_DIR / "influxdb" / "token").exists():
    INFLUXDB_TOKEN = (VAR_DIR / "influxdb" / "token").read_text(encoding="utf-8").strip()
INFLUXDB_TIMEOUT_MS = env_int("INFLUXDB_TIMEOUT_MS", 10000, minimum=100)

# Polling.
MONITOR_SCHEDULE_REFRESH_S = env_int("MONITOR_SCHEDULE_REFRESH_S", 5, minimum=1)
MONITOR_LINE_RATE_TOLERANCE = env_float("MONITOR_LINE_RATE_TOLERANCE", 1.1, minimum=1.0)
MONITOR_SECRETS_KEY = env("MONITOR_SECRETS_KEY", "")
MONITOR_SNMP_ENGINE = env("MONITOR_SNMP_ENGINE", "pysnmp")

LOG_LEVEL = env("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"pysnmp": {"level": "WARNING"}, "asyncio": {"level": "WARNING"}},
}
