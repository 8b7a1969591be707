"""Django settings: everything comes from the environment; defaults run `make demo` with no .env."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from celery.schedules import crontab

from monitor.core import directory
from monitor.core.clientip import parse_networks
from monitor.core.config import (
    ConfigError,
    demo_defaults,
    env,
    env_bool,
    env_float,
    env_int,
    env_list,
    secret_from_var,
)
from monitor.core.oidc_settings import oidc_settings

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env("MONITOR_VAR_DIR", str(BASE_DIR / "var")))
# Where `make demo` from this VAR_DIR listens (var/demo-services.env): the defaults of REDIS_URL, INFLUXDB_URL and
# MONITOR_BASE_URL, so a command in another shell finds the demo's services; the environment still wins.
DEMO_SERVICES = demo_defaults(VAR_DIR)

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
    "monitor.events",
    "monitor.alerts",
    "monitor.graphs.trees",
    "monitor.health",
    "monitor.storage",
    "monitor.topology",
    "axes",
    "rest_framework",
    "drf_spectacular",
]

# The REST API (/api/devices/, /api/graphs/, /api/trees/; schema at /api/schema/): a login or an API token.
# Every list is paged by limit/offset: API_PAGE_SIZE rows unless asked, a limit above API_MAX_PAGE_SIZE is a 400.
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 1000, minimum=10, maximum=10000)
API_PAGE_SIZE = env_int("API_PAGE_SIZE", min(500, API_MAX_PAGE_SIZE), minimum=1, maximum=API_MAX_PAGE_SIZE)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "monitor.restapi.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "monitor.restapi.pagination.BoundedPagination",
    "PAGE_SIZE": API_PAGE_SIZE,
}
# API tokens (Admin → API tokens): API_TOKEN_DAYS is a new token's lifetime unless its maker picks another, up to
# API_TOKEN_MAX_DAYS. A directory (LDAP) account's token has the account's groups and staff flags read again from the
# directory when they were last read more than API_TOKEN_DIRECTORY_CHECK_S ago (0: at every request); a directory
# that does not confirm the account (gone, or not answering) refuses the token (docs/api.md).
API_TOKEN_MAX_DAYS = env_int("API_TOKEN_MAX_DAYS", 365, minimum=1, maximum=3650)
API_TOKEN_DAYS = env_int("API_TOKEN_DAYS", min(90, API_TOKEN_MAX_DAYS), minimum=1, maximum=API_TOKEN_MAX_DAYS)
API_TOKEN_DIRECTORY_CHECK_S = env_int("API_TOKEN_DIRECTORY_CHECK_S", 900, minimum=0, maximum=86400)
SPECTACULAR_SETTINGS = {
    "TITLE": "SNMP monitor API",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks: turns a lock-out into its page
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
                "monitor.core.oidc.context",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(env("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"), conn_max_age=60)
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Workers, beat, the receivers and the web server share the file. WAL lets readers go on while one process
    # writes; IMMEDIATE transactions take the write lock when they begin, so a writer waits its turn (up to the
    # timeout) instead of failing at once with "database is locked", which SQLite answers without waiting to a
    # transaction that read first and then wants to write while another holds the lock (docs/reliability.md).
    # A file in WAL mode is copied with SQLite's backup (`sqlite3 db.sqlite3 ".backup copy.sqlite3"`), never by
    # copying the file alone: what the -wal file holds would be missing. No code opens the file with open() in a
    # process that has it open through SQLite: closing that descriptor drops SQLite's POSIX locks too.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        timeout=20,
        transaction_mode="IMMEDIATE",
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    )
    DATABASES["default"]["CONN_MAX_AGE"] = 60  # a worker reopening the file for every task costs more than its poll
    if env("MONITOR_TEST_DATABASE", ""):
        DATABASES["default"]["TEST"] = {"NAME": env("MONITOR_TEST_DATABASE")}
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Login lock-out (django-axes): after MONITOR_LOGIN_MAX_FAILURES failed logins for one user name from one client
# address, that pair is refused for MONITOR_LOGIN_LOCKOUT_S. Behind a TLS proxy, list the proxies' addresses in
# MONITOR_TRUSTED_PROXIES so the client's own address is counted, not the proxy's (monitor/core/clientip.py).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
MONITOR_LOGIN_MAX_FAILURES = env_int("MONITOR_LOGIN_MAX_FAILURES", 5, minimum=1)
MONITOR_LOGIN_LOCKOUT_S = env_int("MONITOR_LOGIN_LOCKOUT_S", 900, minimum=1)
try:
    MONITOR_TRUSTED_PROXIES = parse_networks(env_list("MONITOR_TRUSTED_PROXIES", ""))
except ValueError as exc:
    raise ConfigError(str(exc)) from None
# Directory sign-in (LDAP), on when MONITOR_LDAP_URI is set; see monitor/core/directory.py and docs/signin.md.
globals().update(directory.ldap_settings())
if "AUTH_LDAP_SERVER_URI" in globals():
    AUTHENTICATION_BACKENDS.insert(1, directory.BACKEND)
# OpenID Connect sign-in, on when MONITOR_OIDC_CLIENT_ID is set; see monitor/core/oidc.py and docs/signin.md.
globals().update(oidc_settings())
MONITOR_OIDC_NAME = env("MONITOR_OIDC_NAME", "single sign-on")
MONITOR_OIDC_GROUPS_CLAIM = env("MONITOR_OIDC_GROUPS_CLAIM", "groups")
MONITOR_OIDC_STAFF_GROUP = env("MONITOR_OIDC_STAFF_GROUP", "")
if "OIDC_RP_CLIENT_ID" in globals():
    AUTHENTICATION_BACKENDS.append("monitor.core.oidc.GroupsOIDCBackend")
AXES_FAILURE_LIMIT = MONITOR_LOGIN_MAX_FAILURES
AXES_COOLOFF_TIME = timedelta(seconds=MONITOR_LOGIN_LOCKOUT_S)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "monitor.core.clientip.client_ip"
# One count per user name in any case (the directory matches so); OpenID Connect's callback is no password guess.
AXES_USERNAME_CALLABLE = "monitor.core.lockout.username"
AXES_WHITELIST_CALLABLE = "monitor.core.lockout.not_a_password_login"
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
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
    "chartjs-plugin-annotation": "chartjs-plugin-annotation/dist",
    "hammerjs": "hammerjs",
    "cytoscape": "cytoscape/dist",
    "cytoscape-dagre": "cytoscape-dagre/dist",
}
STATICFILES_DIRS = [BASE_DIR / "static"] + [
    (f"vendor/{name}", BASE_DIR / "node_modules" / path)
    for name, path in VENDOR_DIST.items()
    if (BASE_DIR / "node_modules" / path).is_dir()
]
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
# Posted secrets and variables marked sensitive are starred on DEBUG error pages too (monitor/core/secrets.py).
DEFAULT_EXCEPTION_REPORTER_FILTER = "monitor.core.secrets.SecretsExceptionFilter"

# Production hardening: on unless DEBUG; cookies secure when served over TLS.
SECURE_TLS = env_bool("DJANGO_SECURE_TLS", False)
SESSION_COOKIE_SECURE = SECURE_TLS
CSRF_COOKIE_SECURE = SECURE_TLS
SECURE_SSL_REDIRECT = SECURE_TLS and env_bool("DJANGO_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000 if SECURE_TLS else 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_TLS and env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = SECURE_TLS and env_bool("DJANGO_HSTS_PRELOAD", False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
# HSTS for subdomains and browser preloading bind every host of the domain, beyond this application, and
# preloading is hard to undo: both are opt-in (variables above), so `check --deploy` does not ask for them.
SILENCED_SYSTEM_CHECKS = [
    *([] if SECURE_HSTS_INCLUDE_SUBDOMAINS else ["security.W005"]),
    *([] if SECURE_HSTS_PRELOAD else ["security.W021"]),
]
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if SECURE_TLS else None
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"  # Django's default, said here: a cross-site POST carries no session
# A login lasts this long (not renewed by use): the bound on a copied cookie, and on the session of someone removed
# from the directory or the provider but not deactivated here (deactivating ends it at once).
MONITOR_SESSION_AGE_S = env_int("MONITOR_SESSION_AGE_S", 14 * 86400, minimum=300, maximum=90 * 86400)
SESSION_COOKIE_AGE = MONITOR_SESSION_AGE_S
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp): scripts only from this site, never inline, so a device string that ever
# reached a page unescaped could still not run. Styles allow inline attributes (severity colours); charts draw on
# canvas; images are this site's or data: URLs (a chart's PNG).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Redis: Celery broker and the poller's short-lived state (last counters, locks), and Django's cache
# (login failure counts shared by every web process).
REDIS_URL = env("REDIS_URL", DEMO_SERVICES.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "monitor-cache",
    }
}
CELERY_BROKER_URL = env("CELERY_BROKER_URL", REDIS_URL)
CELERY_TASK_IGNORE_RESULT = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BEAT_SCHEDULER = "monitor.polling.scheduler:DeviceScheduler"
CELERY_TASK_DEFAULT_QUEUE = "celery"
# Static periodic tasks (beside the per-device polls the scheduler builds): name -> {task, schedule, ...}.
CELERY_BEAT_SCHEDULE: dict = {
    # Rollup windows are written by the polls that close them; this closes those of devices no longer polled.
    "rollups-sweep": {"task": "monitor.polling.sweep", "schedule": 300.0, "options": {"expires": 240}},
}
# The pollers' health figures, once a minute, as samples (graphs over time on /pollers/).
CELERY_BEAT_SCHEDULE["health-record"] = {"task": "monitor.health.record", "schedule": 60.0, "options": {"expires": 50}}
CELERY_IMPORTS = ("monitor.polling.sweep",)
# Alert mails: send what is due (retries with back-off included) even if no poll kicks the sender.
CELERY_BEAT_SCHEDULE["alerts-send-pending"] = {
    "task": "alerts.send_pending",
    "schedule": float(env_int("ALERTS_SEND_INTERVAL_S", 15, minimum=1)),
}
# The iSCSI path (which switch ports carry each array's traffic), learned again daily (and after a discovery).
CELERY_BEAT_SCHEDULE["storage-refresh-paths"] = {
    "task": "storage.refresh_paths",
    "schedule": float(env_int("MONITOR_PATH_REFRESH_S", 86400, minimum=300)),
    "options": {"expires": 3600},
}
# Where hosts were seen (monitor/topology), forgotten this many days after they were last seen.
MONITOR_HOSTS_KEEP_DAYS = env_int("MONITOR_HOSTS_KEEP_DAYS", 365, minimum=1)
# A host name typed into the host search is resolved by this machine's resolver (off: 0), waiting at most this long.
MONITOR_HOSTS_DNS = env_bool("MONITOR_HOSTS_DNS", True)
MONITOR_HOSTS_DNS_TIMEOUT_S = env_float("MONITOR_HOSTS_DNS_TIMEOUT_S", 2.0, minimum=0.1, maximum=30.0)
# Pages viewed within MONITOR_WARM_VIEWED_S (0: off) are read again around each 5-minute window, at most
# MONITOR_WARM_MAX_REQUESTS data requests a run, newest first (monitor/graphs/warming.py): from a minute after a
# window's end, paced to end before pages see it (cache.WRITE_GRACE_S, 3 minutes after its end) and as at that
# moment, the requests whose devices have written it, as they do; at that moment, those left, then every one as at
# the next window's end (when the ranges' starts move on); a minute later, the same for the pages viewed since. A
# page viewed again, or the live refresh of one left open, finds them cached.
MONITOR_WARM_VIEWED_S = env_int("MONITOR_WARM_VIEWED_S", 1800, minimum=0, maximum=86400)
MONITOR_WARM_MAX_REQUESTS = env_int("MONITOR_WARM_MAX_REQUESTS", 500, minimum=1, maximum=2000)
# Graphs (and aggregates) one user's remembered requests name at most (the newest are kept), so no user fills the
# list or the run's budget: 3200 is about 10 pages of a 52-port switch (monitor/graphs/viewed.py).
MONITOR_WARM_USER_GRAPHS = env_int("MONITOR_WARM_USER_GRAPHS", 3200, minimum=1, maximum=600000)
# A run stops after this long, so it ends before the next one (beat lets the task wait 240 s for a worker).
MONITOR_WARM_BUDGET_S = env_int("MONITOR_WARM_BUDGET_S", 150, minimum=1, maximum=280)
if MONITOR_WARM_VIEWED_S:
    CELERY_BEAT_SCHEDULE["graphs-warm-ahead"] = {
        "task": "graphs.warm_viewed",
        "schedule": crontab(minute="1-59/5"),
        "options": {"expires": 240},
    }
    CELERY_BEAT_SCHEDULE["graphs-warm-viewed"] = {
        "task": "graphs.warm_viewed",
        "schedule": crontab(minute="3-59/5"),
        "options": {"expires": 240},
    }
    CELERY_BEAT_SCHEDULE["graphs-warm-since"] = {  # pages first viewed after the run above
        "task": "graphs.warm_viewed",
        "schedule": crontab(minute="4-59/5"),
        "options": {"expires": 50},
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# InfluxDB 2.x.
INFLUXDB_URL = env("INFLUXDB_URL", DEMO_SERVICES.get("INFLUXDB_URL", "http://127.0.0.1:8086"))
INFLUXDB_ORG = env("INFLUXDB_ORG", "monitor")
INFLUXDB_BUCKET = env("INFLUXDB_BUCKET", "monitor")
INFLUXDB_TOKEN = env("INFLUXDB_TOKEN", "")
if not INFLUXDB_TOKEN and (VAR_DIR / "influxdb" / "token").exists():
    INFLUXDB_TOKEN = (VAR_DIR / "influxdb" / "token").read_text(encoding="utf-8").strip()
INFLUXDB_TIMEOUT_MS = env_int("INFLUXDB_TIMEOUT_MS", 10000, minimum=100)
MONITOR_ROLLUP_TIMEOUT_S = env_int("MONITOR_ROLLUP_TIMEOUT_S", 600, minimum=10, maximum=86400)
# Downsampling tiers (days; 0 keeps forever): raw samples, then 5-minute and 1-hour min/mean/max rollups.
MONITOR_RAW_RETENTION_DAYS = env_int("MONITOR_RAW_RETENTION_DAYS", 14, minimum=0)
MONITOR_ROLLUP_5M_RETENTION_DAYS = env_int("MONITOR_ROLLUP_5M_RETENTION_DAYS", 366, minimum=0)
MONITOR_ROLLUP_1H_RETENTION_DAYS = env_int("MONITOR_ROLLUP_1H_RETENTION_DAYS", 1830, minimum=0)

# Polling.
MONITOR_SCHEDULE_REFRESH_S = env_int("MONITOR_SCHEDULE_REFRESH_S", 5, minimum=1)
MONITOR_LINE_RATE_TOLERANCE = env_float("MONITOR_LINE_RATE_TOLERANCE", 1.1, minimum=1.0)
MONITOR_SECRETS_KEY = env("MONITOR_SECRETS_KEY", "")
# Old secrets keys (comma-separated) that still decrypt after MONITOR_SECRETS_KEY changed; see reencrypt_secrets.
MONITOR_SECRETS_KEY_PREVIOUS = env_list("MONITOR_SECRETS_KEY_PREVIOUS", "")
MONITOR_SNMP_ENGINE = env("MONITOR_SNMP_ENGINE", "pysnmp")
# Extra directories of device profiles (YAML), beside collectors/profiles/; same name overrides.
MONITOR_PROFILE_DIRS = env_list("MONITOR_PROFILE_DIRS", "")
MONITOR_REDISCOVER_S = env_int("MONITOR_REDISCOVER_S", 86400, minimum=300)
# Devices due in the same second of the same poller group travel in one task of at most this many devices,
# polled concurrently (at most MONITOR_POLL_CONCURRENCY in flight per worker process); finished devices'
# samples are written every MONITOR_WRITE_EVERY_S seconds while slower ones are still being polled.
MONITOR_POLL_BATCH = env_int("MONITOR_POLL_BATCH", 50, minimum=1)
MONITOR_POLL_CONCURRENCY = env_int("MONITOR_POLL_CONCURRENCY", 64, minimum=1)
MONITOR_WRITE_EVERY_S = env_float("MONITOR_WRITE_EVERY_S", 0.2, minimum=0.01)
# CPU niceness of the Celery worker (0: as started): a poll has a minute, a page 300 ms (docs/scaling.md).
MONITOR_WORKER_NICE = env_int("MONITOR_WORKER_NICE", 10, minimum=0, maximum=19)
# A device with this many polls in a row without any answer is tried without retries, on ticks at least
# MONITOR_UNREACHABLE_POLL_S apart, until it answers again (monitor/polling/backoff.py).
MONITOR_UNREACHABLE_AFTER = env_int("MONITOR_UNREACHABLE_AFTER", 3, minimum=1)
MONITOR_UNREACHABLE_POLL_S = env_int("MONITOR_UNREACHABLE_POLL_S", 60, minimum=1, maximum=86400)

# Mail (alerts). No EMAIL_HOST: mails go to files in EMAIL_FILE_PATH, readable at /alerts/mail/.
EMAIL_HOST = env("EMAIL_HOST", "")
EMAIL_BACKEND = env(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.filebased.EmailBackend",
)
EMAIL_FILE_PATH = env("EMAIL_FILE_PATH", str(VAR_DIR / "mail"))
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", not EMAIL_USE_SSL)
EMAIL_HOST_USER = env("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env("EMAIL_HOST_PASSWORD", "")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", "SNMP monitor <monitor@localhost>")
# Links in alert mails point here.
MONITOR_BASE_URL = env("MONITOR_BASE_URL", DEMO_SERVICES.get("MONITOR_BASE_URL", "http://127.0.0.1:8000"))
# Flapping: more than ALERTS_FLAP_CHANGES fire/clear changes within ALERTS_FLAP_WINDOW_S become one notice.
ALERTS_FLAP_CHANGES = env_int("ALERTS_FLAP_CHANGES", 4, minimum=1)
ALERTS_FLAP_WINDOW_S = env_int("ALERTS_FLAP_WINDOW_S", 3600, minimum=60)
# A pending or firing target no poll read for this long (or three polls of its device) while the device answers is
# closed as no longer reported: a disk pulled, an alert the array deleted, a port removed.
ALERTS_GONE_AFTER_S = env_int("ALERTS_GONE_AFTER_S", 3600, minimum=60)
# Failed sends are retried after ALERTS_RETRY_BASE_S, doubling up to ALERTS_RETRY_MAX_S; never dropped.
ALERTS_RETRY_BASE_S = env_int("ALERTS_RETRY_BASE_S", 30, minimum=1)
ALERTS_RETRY_MAX_S = env_int("ALERTS_RETRY_MAX_S", 1800, minimum=1)
# A worker that claimed a mail owns it this long; after that (a crash) another worker may send it.
ALERTS_SEND_LEASE_S = env_int("ALERTS_SEND_LEASE_S", 120, minimum=10)
# Webhook, Slack and Teams channels may post to the monitor's own host (loopback) only when this is on; link-local
# and cloud metadata addresses are refused always (monitor/alerts/webhookaddress.py).
ALERTS_WEBHOOK_ALLOW_LOOPBACK = env_bool("ALERTS_WEBHOOK_ALLOW_LOOPBACK", False)

# Events: the trap and syslog receivers (manage.py receive_traps / receive_syslog), retention and flood bounds
# (monitor/events/, docs/events.md).
EVENTS_TRAP_BIND = env("EVENTS_TRAP_BIND", "0.0.0.0")
EVENTS_TRAP_PORT = env_int("EVENTS_TRAP_PORT", 1162, minimum=1, maximum=65535)
EVENTS_SYSLOG_BIND = env("EVENTS_SYSLOG_BIND", "0.0.0.0")
EVENTS_SYSLOG_PORT = env_int("EVENTS_SYSLOG_PORT", 1514, minimum=1, maximum=65535)
EVENTS_TRAP_COMMUNITIES = env_list("EVENTS_TRAP_COMMUNITIES", "")  # accepted from every device, beside its own
EVENTS_TRAP_RELAYS = env_list("EVENTS_TRAP_RELAYS", "")  # sources whose v1 traps are matched by agent address
EVENTS_RETENTION_DAYS = env_int("EVENTS_RETENTION_DAYS", 90, minimum=1)
EVENTS_MAX_STORED = env_int("EVENTS_MAX_STORED", 5_000_000, minimum=1000)
EVENTS_MAX_MESSAGE_BYTES = env_int("EVENTS_MAX_MESSAGE_BYTES", 8192, minimum=480, maximum=65535)
EVENTS_QUEUE_MAX = env_int("EVENTS_QUEUE_MAX", 20_000, minimum=10)
EVENTS_QUEUE_MAX_BYTES = env_int("EVENTS_QUEUE_MAX_BYTES", 32 * 1024 * 1024, minimum=65536)  # what it may hold
EVENTS_SOURCE_RATE = env_float("EVENTS_SOURCE_RATE", 500.0, minimum=1.0)
EVENTS_SOURCE_BURST = env_int("EVENTS_SOURCE_BURST", 5000, minimum=1)
EVENTS_SYSLOG_MAX_CONNECTIONS = env_int("EVENTS_SYSLOG_MAX_CONNECTIONS", 256, minimum=1)
EVENTS_SYSLOG_MAX_CONNECTIONS_PER_SOURCE = env_int("EVENTS_SYSLOG_MAX_CONNECTIONS_PER_SOURCE", 16, minimum=1)
EVENTS_SOCKET_BUFFER_BYTES = env_int("EVENTS_SOCKET_BUFFER_BYTES", 4 * 1024 * 1024, minimum=65536)
EVENTS_REFRESH_S = env_int("EVENTS_REFRESH_S", 30, minimum=1)
EVENTS_MARKERS_MAX = env_int("EVENTS_MARKERS_MAX", 1000, minimum=10, maximum=20000)
CELERY_BEAT_SCHEDULE["events-prune"] = {"task": "events.prune", "schedule": 3600.0, "options": {"expires": 3000}}
# Alert rules on events without a clearing event (syslog patterns) clear after their quiet time: checked every minute.
CELERY_BEAT_SCHEDULE["alerts-events-quiet"] = {
    "task": "alerts.events_quiet",
    "schedule": 60.0,
    "options": {"expires": 50},
}

LOG_LEVEL = env("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {"pysnmp": {"level": "WARNING"}, "asyncio": {"level": "WARNING"}},
}
