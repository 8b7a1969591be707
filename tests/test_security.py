"""Security on real parts: logins rate-limited, pages need a login, deploy checks clean, secrets not shown."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.django_db


def test_login_is_refused_after_repeated_failures(client, django_user_model, stack_env, settings):
    from monitor.core import services

    services.redis_client().flushdb()
    settings.MONITOR_LOGIN_MAX_FAILURES = 3
    django_user_model.objects.create_user("alice", password="correct-horse-battery")
    for _ in range(3):
        response = client.post("/login/", {"username": "alice", "password": "wrong"})
        assert response.status_code == 200 and "did not match" in response.content.decode()
    response = client.post("/login/", {"username": "alice", "password": "correct-horse-battery"})
    assert response.status_code != 302  # even the right password is refused while locked out
    assert "_auth_user_id" not in client.session
    services.redis_client().flushdb()  # the lock-out expires (here: is cleared)
    response = client.post("/login/", {"username": "alice", "password": "correct-horse-battery"})
    assert response.status_code == 302


@pytest.mark.parametrize("path", ["/", "/devices/1/", "/api/graphs/1/series", "/admin/"])
def test_pages_need_a_login(client, path):
    response = client.get(path)
    assert response.status_code in (302, 401, 403)
    if response.status_code == 302:
        assert "/login/" in response["Location"]


def test_health_check_is_open(client):
    response = client.get("/healthz")
    assert response.status_code == 200 and response.content == b"ok"


def test_check_deploy_is_clean_with_production_settings(tmp_path):
    env = {
        **os.environ,
        "DJANGO_SECRET_KEY": "x" * 20 + "production-secret-key-with-enough-entropy-1234567890",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECURE_TLS": "true",
        "DJANGO_ALLOWED_HOSTS": "monitor.example.com",
        "MONITOR_VAR_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
