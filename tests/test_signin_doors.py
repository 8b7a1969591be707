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
