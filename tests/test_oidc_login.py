"""Sign-in with OpenID Connect against a real provider on loopback (django-oidc-provider in a server of its own):
the authorization code flow end to end, groups from the provider's claim become tree read permissions, local
accounts keep working and cannot be taken over by a provider user of the same name."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.parse

import pytest
import requests
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from monitor.core.oidc_settings import oidc_settings
from monitor.devstack.processes import Process, free_port, wait_http
from monitor.graphs.trees.models import Tree
from tests.conftest import REPO

pytestmark = pytest.mark.django_db
CLIENT_ID, SECRET = "monitor-test", "client-s3cret-for-tests"
REDIRECT = "http://testserver/oidc/callback/"


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
    yield url
    process.stop()


@pytest.fixture
def oidc_on(provider, settings, monkeypatch):
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_ID", CLIENT_ID)
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_SECRET", SECRET)
    for name, path in (("AUTHORIZATION", "authorize"), ("TOKEN", "token"), ("USERINFO", "userinfo"), ("JWKS", "jwks")):
        monkeypatch.setenv(f"MONITOR_OIDC_{name}_URL", f"{provider}/openid/{path}")
    for name, value in oidc_settings().items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = [*settings.AUTHENTICATION_BACKENDS, "monitor.core.oidc.GroupsOIDCBackend"]
    settings.MONITOR_OIDC_STAFF_GROUP = "noc-admins"  # dana is not in it (yet)
    return provider


def sign_in(client, provider: str, username: str, password: str):
    """The browser's part: our app sends it to the provider, it logs in there, the provider sends it back."""
    start = client.get("/oidc/authenticate/", {"next": "/"})
    assert start.status_code == 302 and start["Location"].startswith(f"{provider}/openid/authorize")
    browser = requests.Session()
    login_page = browser.get(start["Location"], timeout=10)  # the provider's login form (next = authorize)
    assert login_page.url.startswith(f"{provider}/accounts/login/")
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
            return client.get(location.removeprefix("http://testserver"))
        answer = browser.get(location, allow_redirects=False, timeout=10)
    raise AssertionError("the provider never sent the browser back")


def test_the_code_flow_logs_in_and_maps_the_groups_claim_to_trees(oidc_on, client, settings):
    network, storage = Tree.objects.create(name="Network"), Tree.objects.create(name="Storage")
    network.read_groups.add(Group.objects.get_or_create(name="netops")[0])
    login = client.get("/login/").content.decode()
    assert 'id="oidc-login"' in login and "Sign in with single sign-on" in login
    landed = sign_in(client, oidc_on, "dana", "dana-pass-1")
    assert landed.status_code == 302 and landed["Location"] == "/"
    dana = get_user_model().objects.get(username="dana")
    assert client.session["_auth_user_id"] == str(dana.pk)
    assert sorted(dana.groups.values_list("name", flat=True)) == ["monitor-admins", "netops"]
    assert not dana.is_staff and dana.email == "dana@example.org" and not dana.has_usable_password()
    assert client.get(f"/trees/{network.pk}/").status_code == 200
    assert client.get(f"/trees/{storage.pk}/").status_code == 404
    settings.MONITOR_OIDC_STAFF_GROUP = "monitor-admins"  # flags are worked out again at every login
    client.logout()
    assert sign_in(client, oidc_on, "dana", "dana-pass-1").status_code == 302
    assert get_user_model().objects.get(username="dana").is_staff


def test_a_provider_user_cannot_take_over_a_local_account_and_local_logins_still_work(oidc_on, client):
    get_user_model().objects.create_user("admin", password="local-pass-123")  # the provider also has an "admin"
    failed = sign_in(client, oidc_on, "admin", "x-pass-12345")
    assert failed.status_code == 302 and failed["Location"] == "/login/?sso=failed"
    assert "_auth_user_id" not in client.session
    assert 'id="sso-failed"' in client.get("/login/?sso=failed").content.decode()
    assert client.post("/login/", {"username": "admin", "password": "local-pass-123"}).status_code == 302


def test_off_until_configured_and_a_half_configuration_is_refused(client, monkeypatch):
    from monitor.core.config import ConfigError

    assert client.get("/oidc/authenticate/").status_code == 404
    assert 'id="oidc-login"' not in client.get("/login/").content.decode()
    monkeypatch.setenv("MONITOR_OIDC_CLIENT_ID", CLIENT_ID)
    with pytest.raises(ConfigError, match="MONITOR_OIDC_AUTHORIZATION_URL is needed"):
        oidc_settings()
