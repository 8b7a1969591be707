"""The API's doors tried as a cross-site page and a curious client would: a browser session's writes need the CSRF
token (a forged form or fetch changes nothing), a session does not stand in for a refused token, and methods a
resource does not have are refused before anything is read."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from monitor.graphs.trees.models import ApiToken
from monitor.models import Device

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator(stack_env, django_user_model):
    """A staff user who may add, change and delete devices, signed in with a browser that enforces CSRF."""
    user = django_user_model.objects.create_user("operator", password="0perator-pass-1", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__endswith="_device", content_type__app_label="monitor")
    )
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(user)
    device = Device.objects.create(name="door-sw", host="127.0.0.1", community="d00r-c0mmunity", retries=1)
    return {"user": user, "browser": browser, "device": device}


def send(client: Client, method: str, path: str, body: dict | None = None, **extra):
    return client.generic(method, path, json.dumps(body or {}), content_type="application/json", **extra)


def test_a_forged_cross_site_write_with_the_session_cookie_changes_nothing(operator):
    browser, device = operator["browser"], operator["device"]
    path = f"/api/devices/{device.pk}/"
    assert browser.get(path).status_code == 200  # reads need no CSRF token
    forged = [
        ("POST", "/api/devices/", {"name": "planted", "host": "127.0.0.1", "community": "x", "skip_test": True}),
        ("PATCH", path, {"retries": 5, "skip_test": True}),
        ("PUT", path, {"name": "renamed", "host": "127.0.0.1", "skip_test": True}),
        ("DELETE", path, None),
        ("POST", f"{path}rediscover/", None),
    ]
    for method, target, body in forged:
        response = send(browser, method, target, body)
        assert response.status_code == 403 and "CSRF" in response.json()["detail"], (method, target)
    assert list(Device.objects.values_list("name", "retries", "rediscover")) == [("door-sw", 1, False)]
    browser.get("/login/")  # the page a person's browser has open sets the CSRF cookie its script sends back
    token = browser.cookies["csrftoken"].value
    allowed = send(browser, "PATCH", path, {"retries": 5, "skip_test": True}, HTTP_X_CSRFTOKEN=token)
    assert allowed.status_code == 200 and Device.objects.get().retries == 5


def test_a_refused_token_is_not_rescued_by_the_session_beside_it(operator):
    browser, device = operator["browser"], operator["device"]
    _, raw = ApiToken.issue(operator["user"], "read only")
    response = send(browser, "DELETE", f"/api/devices/{device.pk}/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 403 and "read-only" in response.json()["detail"]
    bad = browser.get(f"/api/devices/{device.pk}/", HTTP_AUTHORIZATION="Bearer forged")
    assert bad.status_code == 401 and "d00r" not in bad.content.decode()
    assert Device.objects.filter(pk=device.pk).exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [("TRACE", "/api/devices/"), ("DELETE", "/api/graphs/{graph}/"), ("POST", "/api/trees/"), ("PUT", "/api/series"),
     ("POST", "/api/events/"), ("DELETE", "/api/events/markers"), ("POST", "/api/graphs/{graph}/series")],
)  # fmt: skip
def test_methods_a_resource_does_not_have_are_refused(operator, method, path):
    _, raw = ApiToken.issue(operator["user"], "writes", scope=ApiToken.Scope.WRITE)
    response = send(Client(), method, path.format(graph=1), HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 405, response.content
    assert Device.objects.count() == 1
