"""Every way in, tried as an attacker would: password guesses by any spelling and at every door that takes one,
single sign-on's callback fed bad codes, redirects after login and logout, the session cookie, CSRF on logout,
LDAP filter characters in a user name, and what a refused login tells about an account."""

# ruff: noqa: F401, F811 (the sign-in fixtures: imported from tests/signin.py, named as arguments)
from __future__ import annotations

import base64

import pytest
from django.test import Client

from monitor.devstack.processes import free_port
from tests.signin import directory, ldap_on, log_in, oidc_on, provider, provider_redirect, sign_in

pytestmark = pytest.mark.django_db


def test_a_directory_password_lock_out_holds_for_the_name_in_any_case(ldap_on, client, settings):
    settings.AXES_FAILURE_LIMIT = 3
    assert [log_in(client, name, "wrong") for name in ("alice", "Alice", "ALICE ")] == [200, 200, 429]
    for name in ("aLiCe", "alice", " ALICE"):  # the directory's alice, however it is spelled, with her password
        response = client.post("/login/", {"username": name, "password": "alice-pass-1"})
        assert response.status_code == 429 and 'id="locked-out"' in response.content.decode(), name
    assert "_auth_user_id" not in client.session
    assert log_in(client, "bob", "bob-pass-1") == 302  # another name is not locked


def test_a_locked_out_name_is_refused_at_every_door_that_takes_a_password(client, settings, django_user_model):
    settings.AXES_FAILURE_LIMIT = 2
    django_user_model.objects.create_superuser("root", "root@example.com", "local-root-pass-1")
    assert [log_in(client, "root", "wrong") for _ in range(2)] == [200, 429]
    admin = client.post("/admin/login/", {"username": "root", "password": "local-root-pass-1", "next": "/admin/"})
    assert admin.status_code == 429 and "_auth_user_id" not in client.session
    basic = "Basic " + base64.b64encode(b"root:local-root-pass-1").decode()  # the API takes no password at all
    for path in ("/api/devices/", "/api/graphs/1/series", "/metrics"):
        assert client.get(path, HTTP_AUTHORIZATION=basic).status_code == 401, path


def test_failures_at_the_admin_login_count_as_at_the_login_page(client, settings, django_user_model):
    settings.AXES_FAILURE_LIMIT = 2
    django_user_model.objects.create_superuser("root", "root@example.com", "local-root-pass-1")
    for _ in range(2):
        client.post("/admin/login/", {"username": "Root", "password": "wrong", "next": "/admin/"})
    assert log_in(client, "root", "local-root-pass-1") == 429


def test_failed_single_sign_ons_are_a_clear_refusal_and_lock_nobody_out(oidc_on, settings):
    settings.AXES_FAILURE_LIMIT = 2
    for _ in range(3):  # a code that is not the provider's (forged, or spent by a double click)
        browser = Client()
        callback = provider_redirect(browser, oidc_on, "dana", "dana-pass-1")
        failed = browser.get(callback.replace("code=", "code=x"))
        assert failed.status_code == 302 and failed["Location"] == "/login/?sso=failed"
    landed = sign_in(Client(), oidc_on, "dana", "dana-pass-1")  # the same address signs in as before
    assert landed.status_code == 302 and landed["Location"] == "/"


def test_a_provider_that_stops_answering_is_a_failed_sign_in_not_an_error_page(oidc_on, settings, client):
    callback = provider_redirect(client, oidc_on, "dana", "dana-pass-1")
    settings.OIDC_OP_TOKEN_ENDPOINT = f"http://127.0.0.1:{free_port()}/openid/token"  # nothing listens there
    failed = client.get(callback)
    assert failed.status_code == 302 and failed["Location"] == "/login/?sso=failed"
    assert "_auth_user_id" not in client.session


BAD_NEXT = [
    "https://evil.example/",
    "//evil.example/",
    "/\\evil.example/",
    "\\\\evil.example/",
    "https:evil.example",
    "http://testserver@evil.example/",
    " //evil.example/",
    "javascript:alert(1)",
]


@pytest.mark.parametrize("target", BAD_NEXT)
def test_no_door_sends_the_browser_off_site_after_it(target, oidc_on, client, django_user_model):
    django_user_model.objects.create_user("local", password="local-pass-123")
    landed = client.post("/login/", {"username": "local", "password": "local-pass-123", "next": target})
    assert landed.status_code == 302 and landed["Location"] == "/"  # LOGIN_REDIRECT_URL
    page = client.get("/login/", {"next": target}).content.decode()
    assert "evil.example" not in page and "javascript:" not in page  # nor does the login page pass it on
    left = client.post("/logout/", {"next": target})
    assert left.status_code == 302 and left["Location"] == "/login/"
    signed = sign_in(client, oidc_on, "dana", "dana-pass-1", next_url=target)
    assert signed.status_code == 302 and signed["Location"] == "/"


def test_a_same_site_next_is_kept(oidc_on, client, django_user_model):
    django_user_model.objects.create_user("local", password="local-pass-123")
    landed = client.post("/login/", {"username": "local", "password": "local-pass-123", "next": "/pollers/?range=1d"})
    assert landed["Location"] == "/pollers/?range=1d"
    client.logout()
    assert sign_in(client, oidc_on, "dana", "dana-pass-1", next_url="/trees/")["Location"] == "/trees/"


def session_cookie(response):
    return response.cookies["sessionid"]


def test_the_session_cookie_is_httponly_same_site_secure_over_tls_and_bounded(client, settings, django_user_model):
    django_user_model.objects.create_user("local", password="local-pass-123")
    settings.SESSION_COOKIE_SECURE = True  # what DJANGO_SECURE_TLS sets
    cookie = session_cookie(client.post("/login/", {"username": "local", "password": "local-pass-123"}))
    assert cookie["httponly"] is True and cookie["samesite"] == "Lax" and cookie["secure"] is True
    assert int(cookie["max-age"]) == settings.SESSION_COOKIE_AGE == settings.MONITOR_SESSION_AGE_S
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    Session.objects.filter(session_key=cookie.value).update(expire_date=timezone.now())  # its time is up
    response = client.get("/")
    assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_a_session_key_planted_before_login_is_not_the_one_logged_in(ldap_on, oidc_on, django_user_model):
    """Session fixation: whatever key the browser held before a login (password, directory or single sign-on),
    the logged-in session has a new one, and the old key opens nothing."""
    from django.contrib.sessions.backends.db import SessionStore

    django_user_model.objects.create_user("local", password="local-pass-123")
    logins = {
        "local": lambda c: c.post("/login/", {"username": "local", "password": "local-pass-123"}),
        "directory": lambda c: c.post("/login/", {"username": "bob", "password": "bob-pass-1"}),
        "single sign-on": lambda c: sign_in(c, oidc_on, "dana", "dana-pass-1"),
    }
    for door, login in logins.items():
        planted = SessionStore()
        planted.create()  # a key the attacker made and slipped into the victim's browser
        victim = Client()
        victim.cookies["sessionid"] = planted.session_key
        assert login(victim).status_code == 302, door
        assert victim.cookies["sessionid"].value != planted.session_key, door
        attacker = Client()
        attacker.cookies["sessionid"] = planted.session_key
        assert attacker.get("/").status_code == 302, door  # to the login page


def test_logout_ends_the_session_on_the_server_and_needs_a_post_with_the_token(django_user_model):
    import re

    django_user_model.objects.create_user("local", password="local-pass-123")
    browser = Client(enforce_csrf_checks=True)
    page = browser.get("/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    browser.post("/login/", {"username": "local", "password": "local-pass-123", "csrfmiddlewaretoken": token})
    key = browser.cookies["sessionid"].value
    assert browser.get("/logout/").status_code == 405  # a link or an image cannot log anyone out
    assert browser.post("/logout/").status_code == 403  # nor a cross-site form without the token
    assert browser.get("/").status_code == 200
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', browser.get("/").content.decode()).group(1)
    assert browser.post("/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    stolen = Client()
    stolen.cookies["sessionid"] = key  # a copy of the cookie taken before the logout
    assert stolen.get("/").status_code == 302


@pytest.mark.parametrize(
    "typed", ["*", "al*", "*)(uid=*", "alice)(uid=*", "*)(|(objectClass=*", "alice\\2a", "(uid=*)"]
)
def test_ldap_filter_characters_in_a_user_name_match_nobody(typed, ldap_on, client):
    for password in ("alice-pass-1", "bob-pass-1"):
        response = client.post("/login/", {"username": typed, "password": password})
        assert response.status_code == 200 and "did not match" in response.content.decode()
        assert "_auth_user_id" not in client.session


def refusal(client, username: str, password: str) -> tuple[int, str]:
    """The status and the page of a refused login, with the per-request CSRF token taken out."""
    import re

    response = client.post("/login/", {"username": username, "password": password})
    page = re.sub(r'value="[^"]{40,}"', 'value=""', response.content.decode())  # the CSRF token
    page = page.replace(f'value="{username}"', 'value=""')  # the name typed, kept in its field
    return response.status_code, page


def test_a_refused_login_says_the_same_whatever_the_account(ldap_on, client, django_user_model):
    """No message tells an existing account from a missing one, a wrong password from a deactivated account, or a
    directory account from a local one."""
    django_user_model.objects.create_user("local", password="local-pass-123")
    django_user_model.objects.create_user("gone", password="gone-pass-123", is_active=False)
    answers = {
        "no such account": refusal(client, "nobody-here", "whatever-1"),
        "local, wrong password": refusal(client, "local", "whatever-1"),
        "deactivated, right password": refusal(client, "gone", "gone-pass-123"),
        "directory, wrong password": refusal(client, "alice", "whatever-1"),
    }
    first = answers["no such account"]
    assert first[0] == 200 and "did not match" in first[1]
    assert {name: answer == first for name, answer in answers.items()} == dict.fromkeys(answers, True)


def test_a_lock_out_names_no_account(client, settings, django_user_model):
    settings.AXES_FAILURE_LIMIT = 2
    django_user_model.objects.create_user("local", password="local-pass-123")
    assert [log_in(client, "local", "wrong") for _ in range(2)] == [200, 429]
    assert [log_in(client, "nobody-here", "wrong") for _ in range(2)] == [200, 429]  # the same for a missing one


@pytest.mark.parametrize(
    ("value", "expected"), [("3600", "3600"), ("10", "MONITOR_SESSION_AGE_S=10 is below the minimum")]
)
def test_the_session_age_comes_from_the_environment_and_a_bad_one_is_named(value, expected):
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    env = {**os.environ, "MONITOR_SESSION_AGE_S": value}
    code = "import monitor.settings as s; print(s.SESSION_COOKIE_AGE)"
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert expected in result.stdout + result.stderr


def test_a_deactivated_directory_account_answers_its_right_password_as_a_wrong_one(ldap_on, client, settings):
    """Nothing tells a guesser they found the password of a deactivated account (the directory's password, used
    elsewhere too): not the page, and not the lock-out count, which a right password advances as a wrong one does."""
    from django.contrib.auth import get_user_model

    assert log_in(client, "bob", "bob-pass-1") == 302
    client.logout()
    get_user_model().objects.filter(username="bob").update(is_active=False)
    settings.AXES_FAILURE_LIMIT = 2
    assert [log_in(client, "bob", "bob-pass-1") for _ in range(2)] == [200, 429]
