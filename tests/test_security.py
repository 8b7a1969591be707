"""Security on real parts: logins rate-limited, pages need a login, deploy checks clean, secrets not shown."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.django_db


def test_login_is_refused_after_repeated_failures(client, django_user_model, settings):
    from django.core.management import call_command

    assert settings.AXES_FAILURE_LIMIT == settings.MONITOR_LOGIN_MAX_FAILURES == 5  # the environment's setting
    settings.AXES_FAILURE_LIMIT = 3
    django_user_model.objects.create_user("alice", password="correct-horse-battery")
    for _ in range(2):
        response = client.post("/login/", {"username": "alice", "password": "wrong"})
        assert response.status_code == 200 and "did not match" in response.content.decode()
    assert client.post("/login/", {"username": "alice", "password": "wrong"}).status_code == 429  # the third
    response = client.post("/login/", {"username": "alice", "password": "correct-horse-battery"})
    assert response.status_code == 429 and 'id="locked-out"' in response.content.decode()
    assert "_auth_user_id" not in client.session  # even the right password is refused while locked out
    call_command("axes_reset", verbosity=0)  # the lock-out expires (here: is cleared by an administrator)
    response = client.post("/login/", {"username": "alice", "password": "correct-horse-battery"})
    assert response.status_code == 302


def login(client, password: str, forwarded: str | None = None, remote: str = "127.0.0.1") -> int:
    headers = {"REMOTE_ADDR": remote} | ({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {})
    return client.post("/login/", {"username": "alice", "password": password}, **headers).status_code


def test_behind_a_trusted_proxy_one_client_failing_does_not_lock_out_the_others(django_user_model, settings):
    from django.test import Client

    from monitor.core.clientip import parse_networks

    settings.AXES_FAILURE_LIMIT = 3
    settings.MONITOR_TRUSTED_PROXIES = parse_networks(["127.0.0.1", "10.0.0.0/8"])  # the TLS proxy, the LB
    django_user_model.objects.create_user("alice", password="correct-horse-battery")
    attacker, colleague, direct = Client(), Client(), Client()
    # What a client writes itself is further left than what the proxies appended; the third failure locks.
    codes = [login(attacker, "wrong", forwarded="192.0.2.1, 198.51.100.7, 10.1.2.3") for _ in range(3)]
    assert codes == [200, 200, 429]
    assert login(attacker, "correct-horse-battery", forwarded="198.51.100.7, 10.1.2.3") == 429
    assert login(attacker, "correct-horse-battery", forwarded="203.0.113.5, 198.51.100.7") == 429  # spoof ignored
    # Everyone else comes through the same proxy and still logs in.
    assert login(colleague, "correct-horse-battery", forwarded="198.51.100.8") == 302
    # A client that reaches the web server directly cannot choose its address by sending the header.
    assert [login(direct, "wrong", forwarded="198.51.100.9", remote="192.0.2.50") for _ in range(3)] == [200, 200, 429]
    assert login(Client(), "correct-horse-battery", forwarded="198.51.100.9", remote="192.0.2.99") == 302
    assert login(Client(), "correct-horse-battery", forwarded="198.51.100.1", remote="192.0.2.50") == 429


@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        ("192.0.2.7", "198.51.100.1", "192.0.2.7"),  # not from a proxy: the header is not read
        ("127.0.0.1", "198.51.100.1", "198.51.100.1"),
        ("127.0.0.1", "198.51.100.1:5123", "198.51.100.1"),
        ("127.0.0.1", "[2001:db8::1]:443", "2001:db8::1"),
        ("::ffff:127.0.0.1", "2001:db8::2", "2001:db8::2"),
        ("127.0.0.1", "not-an-address", "127.0.0.1"),  # garbage: counted against the proxy, never guessed
        ("127.0.0.1", "", "127.0.0.1"),
        ("127.0.0.1", "10.0.0.1, 10.0.0.2", "127.0.0.1"),  # only proxies: the proxy itself
    ],
)
def test_client_address_behind_proxies(rf, settings, remote, forwarded, client):
    from monitor.core.clientip import client_ip, parse_networks

    settings.MONITOR_TRUSTED_PROXIES = parse_networks(["127.0.0.1", "10.0.0.0/8"])
    request = rf.get("/", REMOTE_ADDR=remote, **({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}))
    assert client_ip(request) == client


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
