"""Sign-in parts the tests share: a real slapd directory and a real OpenID Connect provider (django-oidc-provider in a
server of its own) on loopback, the settings that turn each on as the environment would, and the browser's part
of each sign-in. Import the fixtures into a test module to use them (each module starts its own servers)."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass

import pytest
import requests

from monitor.core import directory as directory_settings
from monitor.core.oidc_settings import oidc_settings
from monitor.devstack.processes import Process, free_port, wait_http
from tests.conftest import REPO
from tests.ldapserver import GROUPS, PEOPLE, Directory, group, person

CLIENT_ID, SECRET = "monitor-test", "client-s3cret-for-tests"
REDIRECT = "http://testserver/oidc/callback/"
OIDC_BACKEND = "monitor.core.oidc.GroupsOIDCBackend"


@dataclass
class Provider:
    """The running provider: its URL, and its users changed as its administrator would (tests/oidcprovider/users)."""

    url: str
    env: dict

    def users(self, *args: str) -> str:
        argv = [sys.executable, "-m", "tests.oidcprovider.users", *args]
        return subprocess.run(argv, cwd=REPO, env=self.env, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def provider(tmp_path_factory, stack_dir):
    base = tmp_path_factory.mktemp("oidc-provider")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "OIDCP_DIR": str(base),
        "OIDCP_URL": url,
        "DJANGO_SETTINGS_MODULE": "tests.oidcprovider.settings",
    }
    env = {k: v for k, v in env.items() if not k.startswith(("MONITOR_", "DATABASE_URL"))}
    setup = [sys.executable, "-m", "tests.oidcprovider.setup", CLIENT_ID, SECRET, REDIRECT]
    subprocess.run(setup, cwd=REPO, env=env, check=True, capture_output=True)
    argv = [sys.executable, "-m", "gunicorn", "tests.oidcprovider.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2"]
    process = Process("oidc-provider", argv, stack_dir / "log" / f"oidc-provider-{port}.log", env=env, cwd=REPO)
    wait_http(process, f"{url}/openid/.well-known/openid-configuration")
    yield Provider(url, env)
    process.stop()


@pytest.fixture
def oidc_on(provider, settings, monkeypatch) -> Provider:
    """OpenID Connect on, as MONITOR_OIDC_* would turn it on (settings.py appends the backend)."""
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_SECRET", SECRET)
    for name, path in (("AUTHORIZATION", "authorize"), ("TOKEN", "token"), ("USERINFO", "userinfo"), ("JWKS", "jwks")):
        monkeypatch.setenv(f"MONITOR_OIDC_{name}_URL", f"{provider.url}/openid/{path}")
    for name, value in oidc_settings().items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, OIDC_BACKEND]
    settings.MONITOR_OIDC_STAFF_GROUP = "noc-admins"  # dana is not in it (yet)
    return provider


def provider_redirect(client, provider: Provider, username: str, password: str, next_url: str = "/") -> str:
    """The browser's part up to the way back: our app sends it to the provider, it logs in there, and the provider
    answers with the callback URL (code and state) it sends the browser to; returned without following it."""
    start = client.get("/oidc/authenticate/", {"next": next_url})
    assert start.status_code == 302 and start["Location"].startswith(f"{provider.url}/openid/authorize")
    browser = requests.Session()
    login_page = browser.get(start["Location"], timeout=10)  # the provider's login form (next = authorize)
    assert login_page.url.startswith(f"{provider.url}/accounts/login/")
    form = {
        "username": username,
        "password": password,
        "csrfmiddlewaretoken": browser.cookies["csrftoken"],
        "next": urllib.parse.parse_qs(urllib.parse.urlparse(login_page.url).query)["next"][0],
    }
    answer = browser.post(login_page.url, data=form, allow_redirects=False, timeout=10)
    for _ in range(5):  # follow the provider's redirects until it sends the browser back to us
        location = urllib.parse.urljoin(answer.url, answer.headers.get("Location", ""))
        assert answer.status_code == 302, (answer.status_code, answer.text[:300])
        if location.startswith(REDIRECT):  # "testserver" is our test client: the callback goes to it
            return location.removeprefix("http://testserver")
        answer = browser.get(location, allow_redirects=False, timeout=10)
    raise AssertionError("the provider never sent the browser back")


def sign_in(client, provider: Provider, username: str, password: str, next_url: str = "/"):
    """A whole OpenID Connect sign-in; the callback's response."""
    return client.get(provider_redirect(client, provider, username, password, next_url))


@pytest.fixture(scope="module")
def directory(tmp_path_factory, stack_dir):
    """alice (netops, monitor-admins) and bob (storage); the superuser group monitor-root starts empty."""
    server = Directory(tmp_path_factory.mktemp("slapd"), stack_dir / "log")
    server.add(
        person("alice", "alice-pass-1", "alice@example.org")
        + person("bob", "bob-pass-1", "bob@example.org")
        + group("netops", ["alice"])
        + group("monitor-admins", ["alice"])
        + group("storage", ["bob"])
        + f"dn: cn=monitor-root,{GROUPS}\nobjectClass: groupOfNames\ncn: monitor-root\nmember: cn=nobody\n\n"
    )
    yield server
    server.stop()


@pytest.fixture
def ldap_on(directory, settings, monkeypatch) -> Directory:
    """LDAP on, as MONITOR_LDAP_* would turn it on (settings.py inserts the backend after django-axes')."""
    monkeypatch.setenv("MONITOR_LDAP_URI", directory.uri)
    monkeypatch.setenv("MONITOR_LDAP_USER_BASE", PEOPLE)
    monkeypatch.setenv("MONITOR_LDAP_GROUP_BASE", GROUPS)
    monkeypatch.setenv("MONITOR_LDAP_STAFF_GROUP", f"cn=monitor-admins,{GROUPS}")
    monkeypatch.setenv("MONITOR_LDAP_SUPERUSER_GROUP", f"cn=monitor-root,{GROUPS}")
    for name, value in directory_settings.ldap_settings().items():
        setattr(settings, name, value)
    backends = list(settings.AUTHENTICATION_BACKENDS)
    settings.AUTHENTICATION_BACKENDS = [backends[0], directory_settings.BACKEND, *backends[1:]]
    return directory


def log_in(client, username: str, password: str) -> int:
    """The login form, as a browser posts it; the status code (302: logged in)."""
    return client.post("/login/", {"username": username, "password": password}).status_code
