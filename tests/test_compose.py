"""File checks of docker-compose.yml and .env.example against the settings the code reads (no Docker)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
APP_SERVICES = ("web", "worker", "beat", "traps", "syslog")
READERS = re.compile(r"\b(?:env|env_bool|env_int|env_list|secret_from_var)\(\s*[\"']([A-Z][A-Z0-9_]*)[\"']")
WIRING = (
    "DATABASE_URL",
    "REDIS_URL",
    "CELERY_BROKER_URL",
    "INFLUXDB_URL",
    "INFLUXDB_ORG",
    "INFLUXDB_BUCKET",
    "INFLUXDB_TOKEN",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
)
REQUIRED_SECRETS = ("DJANGO_SECRET_KEY", "MONITOR_SECRETS_KEY", "INFLUXDB_TOKEN")


def environment(service: dict) -> dict[str, str]:
    """A service's environment as a dict, whichever of the two compose spellings it uses."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {name: str(value) for name, value in env.items()}


def command(service: dict) -> str:
    cmd = service.get("command") or ""
    return cmd if isinstance(cmd, str) else " ".join(cmd)


def without_interpolation(value: str) -> str:
    """Replace every ${...} with a placeholder, so the rest of a URL can be parsed."""
    return re.sub(r"\$\{[^}]*\}", "x", value)


@pytest.fixture(scope="module")
def services() -> dict[str, dict]:
    with (REPO / "docker-compose.yml").open(encoding="utf-8") as handle:
        compose = yaml.safe_load(handle)
    assert isinstance(compose, dict)
    return compose["services"]


@pytest.fixture(scope="module")
def names_read() -> set[str]:
    sources = [*(REPO / "monitor").rglob("*.py"), *(REPO / "collectors").rglob("*.py")]
    names = {name for path in sources for name in READERS.findall(path.read_text(encoding="utf-8"))}
    assert {"DATABASE_URL", "DJANGO_SECRET_KEY", "INFLUXDB_TOKEN"} <= names, "the scan found too little"
    return names


def test_services_exist(services):
    assert {"web", "worker", "beat", "redis", "influxdb", "postgres"} <= set(services)


def test_backing_images(services):
    assert re.fullmatch(r"influxdb:2\.7(\.\d+)?", services["influxdb"]["image"])
    assert services["redis"]["image"].startswith("redis:7")
    assert services["postgres"]["image"].startswith("postgres:16")
    for name in ("redis", "influxdb", "postgres"):
        assert services[name].get("healthcheck", {}).get("test"), f"{name} has no healthcheck"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_environment_reaches_the_other_services(services, name):
    env = environment(services[name])
    assert not set(WIRING) - set(env), f"{name} lacks {sorted(set(WIRING) - set(env))}"
    assert env == environment(services["web"]), "app services must share one environment"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_app_environment_names_are_read_by_the_code(services, names_read, name):
    ignored = set(environment(services[name])) - names_read
    assert not ignored, f"{name} passes names the code never reads: {sorted(ignored)}"


def test_secrets_are_required(services):
    env = environment(services["web"])
    for name in REQUIRED_SECRETS:
        assert env[name].startswith("${" + name + ":?"), f"{name} must be required: {env[name]!r}"
    assert environment(services["postgres"])["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")


def test_urls_point_at_compose_services(services):
    env = environment(services["web"])
    expected = {
        "DATABASE_URL": ({"postgres", "postgresql"}, "postgres", 5432),
        "REDIS_URL": ({"redis"}, "redis", 6379),
        "CELERY_BROKER_URL": ({"redis"}, "redis", 6379),
        "INFLUXDB_URL": ({"http"}, "influxdb", 8086),
    }
    for name, (schemes, host, port) in expected.items():
        url = urlsplit(without_interpolation(env[name]))
        assert (url.scheme in schemes, url.hostname, url.port) == (True, host, port), f"{name}={env[name]}"


def test_influxdb_setup_matches_app_settings(services):
    app, influx = environment(services["web"]), environment(services["influxdb"])
    assert influx["DOCKER_INFLUXDB_INIT_MODE"] == "setup"
    assert influx["DOCKER_INFLUXDB_INIT_ORG"] == app["INFLUXDB_ORG"]
    assert influx["DOCKER_INFLUXDB_INIT_BUCKET"] == app["INFLUXDB_BUCKET"]
    assert influx["DOCKER_INFLUXDB_INIT_ADMIN_TOKEN"] == app["INFLUXDB_TOKEN"]


def test_celery_commands(services):
    assert "celery -A monitor worker" in command(services["worker"])
    assert "celery -A monitor beat" in command(services["beat"])
    assert "manage.py migrate --noinput" in command(services["web"])
    assert "manage.py influxdb_buckets" in command(services["web"])  # the rollup tiers' buckets exist
    assert "gunicorn monitor.wsgi" in command(services["web"])
    assert "manage.py receive_traps --bind 0.0.0.0 --port 1162" in command(services["traps"])
    assert "manage.py receive_syslog --bind 0.0.0.0 --port 1514" in command(services["syslog"])
    assert services["syslog"]["ports"] == ["${SYSLOG_PORT:-514}:1514/udp", "${SYSLOG_PORT:-514}:1514/tcp"]


def test_env_example_documents_every_setting(names_read):
    text = (REPO / ".env.example").read_text(encoding="utf-8")
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", text, flags=re.MULTILINE))
    assert not names_read - documented, f"missing from .env.example: {sorted(names_read - documented)}"
    interpolated = set(re.findall(r"(?<!\$)\$\{([A-Z][A-Z0-9_]*)", (REPO / "docker-compose.yml").read_text()))
    assert not interpolated - documented, f"compose variables missing: {sorted(interpolated - documented)}"
    assert {"DEMO_WEB_PORT", "DEMO_REDIS_PORT", "DEMO_INFLUXDB_PORT", "DEMO_SNMP_PORT"} <= documented
    assert {"DEMO_TRAP_PORT", "DEMO_SYSLOG_PORT", "EVENTS_SOURCE_RATE"} <= documented
