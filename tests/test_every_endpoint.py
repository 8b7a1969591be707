"""Every route, found by walking the URL configuration: a login is needed, and no form posts without CSRF."""

from __future__ import annotations

import re

import pytest
from django.apps import apps
from django.http import HttpRequest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db
# The only routes anyone may reach without a login (logout: harmless; the OpenID Connect sign-in: 404 while off).
OPEN = {"login/", "logout/", "healthz", "oidc/authenticate/", "oidc/callback/"}
ADMIN_FORMS = [
    "/admin/monitor/device/add/",
    "/admin/alerts/rule/add/",
    "/admin/trees/tree/add/",
    "/admin/trees/apitoken/add/",
    "/admin/auth/user/add/",
    "/admin/logout/",
]


def routes() -> list[str]:
    """Every non-admin route as a concrete path: int parameters become 1, other parameters a word."""
    found: list[str] = []

    def walk(patterns, prefix: str) -> None:
        for entry in patterns:
            text = prefix + str(entry.pattern)
            if isinstance(entry, URLResolver):
                if not text.startswith("admin/"):
                    walk(entry.url_patterns, text)
            elif isinstance(entry, URLPattern):
                found.append(text)

    walk(get_resolver().url_patterns, "")
    return ["/" + re.sub(r"<(?:(\w+):)?\w+>", lambda m: "1" if m.group(1) == "int" else "up", r) for r in found]


ROUTES = routes()


def every_row() -> dict[str, list[tuple]]:
    """Every row of every table, field by field (the test database is small)."""
    return {model._meta.label: sorted(model.objects.values_list(), key=repr) for model in apps.get_models()}


def test_the_route_list_is_complete():
    """A guard on the walk itself: it must see the pages, the API, the alert pages and the dashboard actions."""
    for expected in ("/", "/devices/1/", "/api/graphs/1/series.csv", "/alerts/1/acknowledge", "/dashboard/items/1/up"):
        assert expected in ROUTES
    assert len(ROUTES) >= 25


@pytest.mark.parametrize("path", [p for p in ROUTES if p.lstrip("/") not in OPEN])
@pytest.mark.parametrize("method", ["get", "post"])
def test_every_route_but_login_and_health_needs_a_login(client, path, method):
    response = getattr(client, method)(path)
    if response.status_code == 302:
        assert response["Location"].startswith(("/login/", "/admin/login/"))  # staff-only pages: the admin login
    else:  # a GET-only route refuses a POST before anything else (405): nothing is read or changed either way
        refused = (401, 403, 405) if method == "post" else (401, 403)
        assert response.status_code in refused, f"{method.upper()} {path} answered {response.status_code}"


def test_admin_pages_need_a_staff_login(client, django_user_model, stack_env):
    for path in ["/admin/", *ADMIN_FORMS[:-1]]:
        response = client.get(path)
        assert response.status_code == 302 and response["Location"].startswith("/admin/login/"), path
    django_user_model.objects.create_user("viewer", password="pw-for-tests-1")
    client.login(request=HttpRequest(), username="viewer", password="pw-for-tests-1")  # django-axes needs a request
    for path in ADMIN_FORMS[:-1]:
        assert client.get(path).status_code == 302, path  # a logged-in non-staff user is sent to the admin login


@pytest.mark.parametrize("path", [*ROUTES, *ADMIN_FORMS])
def test_no_post_is_accepted_without_a_csrf_token(path, django_user_model, stack_env):
    """A superuser's session, a POST with no token: 403 from the CSRF check, and not one row changed."""
    django_user_model.objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    browser = Client(enforce_csrf_checks=True)
    browser.login(request=HttpRequest(), username="root", password="pw-for-tests-1")
    before = every_row()
    response = browser.post(path, {"name": "x", "username": "x", "password": "x"})
    assert response.status_code == 403, f"POST {path} answered {response.status_code}"
    assert b"CSRF" in response.content
    assert every_row() == before


def test_a_post_with_the_token_gets_past_the_csrf_check(django_user_model, stack_env):
    """The other side of the check: the same client with the page's token is let through (the check is real)."""
    django_user_model.objects.create_superuser("root", "root@example.com", "pw-for-tests-1")
    browser = Client(enforce_csrf_checks=True)
    browser.login(request=HttpRequest(), username="root", password="pw-for-tests-1")
    page = browser.get("/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1).decode()
    assert browser.post("/logout/").status_code == 403  # without the token: refused, still logged in
    assert browser.get("/").status_code == 200
    assert browser.post("/logout/", {"csrfmiddlewaretoken": token}).status_code == 302
    assert browser.get("/").status_code == 302  # logged out
