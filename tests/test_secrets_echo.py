"""Device secrets are never echoed back, as an attacker would look for them: not in REST answers (GET, OPTIONS, the
PATCH answer, validation errors), not in the admin form or its history (LogEntry), not in logs, not on a DEBUG
error page (a real 500: the database locked by another writer); and a secret SNMP cannot carry (too long, not
ASCII) is refused next to its field instead of a 500 whose traceback held it."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import contextmanager

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test import Client

from monitor.graphs.trees.models import ApiToken
from monitor.models import Device
from tests.test_secrets import everything_at_debug, monitor_logs
from tests.test_secrets_travel import change_form, management_data

pytestmark = pytest.mark.django_db

MARK = "Zq7echo"
STORED = (f"cmty-{MARK}-1", f"authk-{MARK}-2", f"privk-{MARK}-3")
V3 = {"snmp_version": "3", "v3_user": "simulator", "v3_auth_protocol": "MD5", "v3_priv_protocol": "DES"}


def bearer(user) -> Client:
    _, raw = ApiToken.issue(user, "echo", scope=ApiToken.Scope.WRITE)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}", raise_request_exception=False)


def stored_device(agent, **extra) -> Device:
    community, auth, priv = STORED
    fields = {"name": "echo-sw", "host": "127.0.0.1", "port": agent.port, "community": community}
    fields |= {"v3_auth_key": auth, "v3_priv_key": priv, "timeout_s": 0.5, "retries": 0}
    return Device.objects.create(**{**fields, **extra})


def patch(api: Client, device: Device, body: dict):
    return api.patch(f"/api/devices/{device.pk}/", json.dumps(body), content_type="application/json")


# --- input SNMP cannot carry: a message, not a 500 ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"community": "x" * 70_000 + MARK}, "community", "at most 255 characters"),
        ({"community": f"ключ-{MARK}"}, "community", "printable ASCII"),
        ({**V3, "v3_auth_key": "a" * 70_000 + MARK, "v3_priv_key": "privatus"}, "v3_auth_key", "at most 255"),
        ({**V3, "v3_auth_key": f"ключ-{MARK}", "v3_priv_key": "privatus"}, "v3_auth_key", "printable ASCII"),
        ({**V3, "v3_auth_key": "auctoritas", "v3_priv_key": f"ключ-{MARK}"}, "v3_priv_key", "printable ASCII"),
        ({**V3, "v3_user": "u" * 33, "v3_auth_key": "auctoritas", "v3_priv_key": "privatus"}, "v3_user", "32 bytes"),
    ],
)
def test_secrets_snmp_cannot_carry_are_refused_next_to_their_field_not_a_500(
    agent, admin_user, caplog, body, field, words
):
    everything_at_debug(caplog)
    device = stored_device(agent, community="switch")
    response = patch(bearer(admin_user), device, body)
    assert response.status_code == 400, response.content[:300]
    errors = response.json()
    assert field in errors and words in " ".join(errors[field]), errors
    assert MARK not in response.content.decode() and MARK not in monitor_logs(caplog)
    assert Device.objects.get(pk=device.pk).snmp_version == "2c"


def test_a_secret_snmp_cannot_carry_on_a_debug_page_is_a_form_message(agent, admin_user, settings):
    settings.DEBUG = True
    device = stored_device(agent)
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    url = f"/admin/monitor/device/{device.pk}/change/"
    data = {**management_data(client, url), **change_form(device, **V3)}
    response = client.post(url, {**data, "v3_auth_key": "a" * 70_000 + MARK, "v3_priv_key": "privatus"})
    assert response.status_code == 200
    assert "at most 255 characters" in " ".join(response.context["adminform"].form.errors["v3_auth_key"])
    assert MARK not in response.content.decode()


# --- a real 500 on a DEBUG page ---------------------------------------------------------------------------------


@contextmanager
def database_locked_by_another_writer():
    """Another process's write transaction on the SQLite file: reads go on, our next write fails at once (a 500)."""
    options = connection.settings_dict.setdefault("OPTIONS", {})
    saved = options.get("timeout")
    connection.close()
    options["timeout"] = 0.2
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()
        connection.close()
        options["timeout"] = saved


def debug_page_shows_no_secret(response, typed: str) -> None:
    page = response.content.decode()
    assert response.status_code == 500 and "database is locked" in page, page[:500]
    assert "echo-sw" in page  # the page does show the variables and the posted data...
    assert "********" in page  # ...with the secrets starred
    found = [s for s in (typed, *STORED) if s in page]
    assert found == [], [page[max(0, m.start() - 200) : m.end()] for m in re.finditer(MARK, page)][:3]


@pytest.mark.django_db(transaction=True)
def test_a_500_during_an_admin_change_shows_no_secret_on_the_debug_page(agent, admin_user, settings):
    device = stored_device(agent)
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)
    url = f"/admin/monitor/device/{device.pk}/change/"
    typed = f"typed-{MARK}-4"
    data = {**management_data(client, url), **change_form(device, community=typed, skip_test="on")}
    settings.DEBUG = True
    with database_locked_by_another_writer():
        response = client.post(url, {**data, "poll_interval_s": "30"})
    debug_page_shows_no_secret(response, typed)


@pytest.mark.django_db(transaction=True)
def test_a_500_during_a_rest_change_shows_no_secret_on_the_debug_page(agent, admin_user, settings):
    device = stored_device(agent)
    client = Client(raise_request_exception=False)
    client.force_login(admin_user)  # a session: a bearer token's use is itself a write
    typed = f"typed-{MARK}-5"
    settings.DEBUG = True
    with database_locked_by_another_writer():
        response = patch(client, device, {"community": typed, "poll_interval_s": 30, "skip_test": True})
    debug_page_shows_no_secret(response, typed)


# --- answers, the form, its history and logs ------------------------------------------------------------------------


def test_rest_answers_never_carry_a_secret(agent, admin_user, caplog):
    everything_at_debug(caplog)
    device = stored_device(agent)
    api = bearer(admin_user)
    typed = f"typed-{MARK}-6"
    path = f"/api/devices/{device.pk}/"
    answers = {
        "list": api.get("/api/devices/"),
        "detail": api.get(path),
        "options": api.options(path),
        "schema": api.get("/api/schema/"),
        "patch": patch(api, device, {"poll_interval_s": 30, "skip_test": True}),
        "refused": patch(api, device, {"community": typed, "pinned_profile": "no-such-profile"}),
        "moved": patch(api, device, {"port": 1, "community": typed, "timeout_s": 0.5}),
        "too long": patch(api, device, {"community": typed * 40}),
    }
    assert [answers[k].status_code for k in answers] == [200, 200, 200, 200, 200, 400, 400, 400]
    assert "no SNMP response" in answers["moved"].json()["community"][0]  # tested with the typed one, and refused
    for name, response in answers.items():
        assert MARK not in response.content.decode(), name
    assert answers["detail"].json()["name"] == "echo-sw" and "community" not in answers["detail"].json()
    assert MARK not in monitor_logs(caplog)


def test_the_admin_form_and_its_history_never_carry_a_secret(agent, admin_client, caplog):
    everything_at_debug(caplog)
    device = stored_device(agent, community="switch", timeout_s=2)
    url = f"/admin/monitor/device/{device.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert "A value is stored" in page and MARK not in page and 'value="switch"' not in page
    data = {**management_data(admin_client, url), **change_form(device)}
    assert admin_client.post(url, {**data, "poll_interval_s": "30"}).status_code == 302
    assert admin_client.post(url, {**data, "poll_interval_s": "30", "community": "switch"}).status_code == 302
    refused = admin_client.post(url, {**data, "community": f"typed-{MARK}-7", "port": "70000"})
    assert refused.status_code == 200 and MARK not in refused.content.decode()
    history = [entry.get_change_message() for entry in LogEntry.objects.order_by("id")]
    assert history == ["Changed Poll interval (s).", "Changed Community."]  # names, never values; only what was typed
    entries = " ".join(f"{e.object_repr} {e.change_message}" for e in LogEntry.objects.all())
    assert "switch" not in entries and MARK not in entries
    history_page = admin_client.get(f"/admin/monitor/device/{device.pk}/history/").content.decode()
    assert "Changed Community." in history_page and MARK not in history_page
    assert MARK not in monitor_logs(caplog)
    device.refresh_from_db()
    assert (device.poll_interval_s, device.community, device.v3_auth_key) == (30, "switch", STORED[1])
