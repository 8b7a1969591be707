"""Secrets on real parts: encrypted in the SQLite file, never in pages, logs or errors; key rotation; mail server."""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from collectors.influx import InfluxWriter
from collectors.samples import Sample
from monitor.alerts import delivery
from monitor.alerts.models import AlertState, Event, MailServer, Rule
from monitor.core import services
from monitor.devstack.processes import free_port
from monitor.models import Device, Graph
from monitor.polling.run import run_poll
from tests.conftest import REPO
from tests.test_alert_kit import Sink

COMMUNITY = "cmty-Zq8mark-01"
AUTH_KEY = "authk-Zq8mark-02"
PRIV_KEY = "privk-Zq8mark-03"
MAIL_PW = "mailpw-Zq8mark-04"
TOKEN = "influxtok-Zq8mark-05"
MAIL_URL = "/admin/alerts/mailserver/"

pytestmark = pytest.mark.django_db


def everything_at_debug(caplog) -> None:
    """Capture DEBUG records of every logger there is (pysnmp, influxdb_client, django, ours)."""
    caplog.set_level(logging.DEBUG)
    for name in list(logging.root.manager.loggerDict):
        caplog.set_level(logging.DEBUG, logger=name)


def monitor_logs(caplog) -> str:
    """Every captured record except the test SMTP server's own (aiosmtpd's "mail.log" is the far end, not us)."""
    return "\n".join(
        f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records if not r.name.startswith("mail.log")
    )


def stored(table: str, columns: str, pk: int) -> tuple:
    """The values as they are in the database columns, past the model's decryption."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {table} WHERE id = %s", [pk])  # noqa: S608 (fixed names)
        return cursor.fetchone()


def database_bytes() -> bytes:
    """The SQLite test database file as it is on disk, with its journal or WAL if there is one.

    Read by another process: a file this process opens and closes drops every POSIX lock the process holds on it,
    SQLite's own included, so the next process to close the database would take itself for the last one and remove
    the WAL from under us (from then on "disk I/O error"; SQLite's "How To Corrupt", section 2.2)."""
    path = Path(connection.settings_dict["NAME"])
    files = [str(p) for p in (path, Path(f"{path}-journal"), Path(f"{path}-wal")) if p.exists()]
    return subprocess.run(["cat", *files], capture_output=True, check=True, timeout=60).stdout


def secret_device(**extra) -> Device:
    fields = {
        "name": "vault-switch-Q7",
        "host": "127.0.0.1",
        "snmp_version": "3",
        "community": COMMUNITY,
        "v3_user": "monitor",
        "v3_auth_key": AUTH_KEY,
        "v3_priv_key": PRIV_KEY,
    }
    return Device.objects.create(**{**fields, **extra})


def mail_server(port: int = 25, **extra) -> MailServer:
    fields = {"host": "127.0.0.1", "port": port, "security": "none", "username": "mailer", "password": MAIL_PW}
    return MailServer.objects.create(**{**fields, **extra})


# --- at rest -------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_secrets_are_not_in_the_database_file_in_clear_and_read_back():
    device = secret_device()
    mail_server(from_email="monitor@vault-Q7.example")
    raw = stored("monitor_device", "community, v3_auth_key, v3_priv_key", device.pk)
    (raw_password,) = stored("alerts_mailserver", "password", 1)
    for value, secret in [*zip(raw, (COMMUNITY, AUTH_KEY, PRIV_KEY), strict=True), (raw_password, MAIL_PW)]:
        assert value.startswith("enc1:") and secret not in value and "Zq8mark" not in value
    on_disk = database_bytes()
    assert b"vault-switch-Q7" in on_disk and b"vault-Q7.example" in on_disk  # what is not secret is there
    assert b"Zq8mark" not in on_disk
    device = Device.objects.get(pk=device.pk)
    assert (device.community, device.v3_auth_key, device.v3_priv_key) == (COMMUNITY, AUTH_KEY, PRIV_KEY)
    assert MailServer.objects.get().password == MAIL_PW


# --- pages ---------------------------------------------------------------------------------------------------


def test_no_page_renders_a_secret_back(admin_client, clean_backends):
    device = secret_device()
    mail_server()
    pages = {
        "device admin": admin_client.get(f"/admin/monitor/device/{device.pk}/change/"),
        "mail server admin": admin_client.get(f"{MAIL_URL}1/change/"),
        "device page": admin_client.get(f"/devices/{device.pk}/"),
        "home page": admin_client.get("/"),
    }
    for name, response in pages.items():
        text = response.content.decode()
        assert response.status_code == 200, name
        assert "Zq8mark" not in text, name
    assert "vault-switch-Q7" in pages["device page"].content.decode()
    assert "A value is stored" in pages["device admin"].content.decode()
    mail_page = pages["mail server admin"].content.decode()
    assert "A password is stored" in mail_page and 'name="password"' in mail_page
    assert "Clear the stored password" in mail_page and 'name="_send_test"' in mail_page
    assert "Mail server" in admin_client.get("/admin/").content.decode()


# --- mail server form --------------------------------------------------------------------------------------------


def mail_form(**overrides) -> dict:
    data = {
        "host": "smtp.example.com",
        "port": "587",
        "security": "starttls",
        "timeout_s": "20",
        "username": "mailer",
        "password": "",
        "from_email": "SNMP monitor <monitor@example.com>",
    }
    return {**data, **overrides}


def test_the_mail_password_is_write_only_kept_replaced_or_cleared(admin_client):
    response = admin_client.post(f"{MAIL_URL}add/", mail_form(password=MAIL_PW))
    assert response.status_code == 302, response.content.decode()[:3000]
    assert MailServer.objects.get().password == MAIL_PW
    assert admin_client.get(MAIL_URL)["Location"] == f"{MAIL_URL}1/change/"  # one row: straight to it
    change = f"{MAIL_URL}1/change/"
    assert admin_client.post(change, mail_form(timeout_s="30")).status_code == 302  # empty: keeps the password
    server = MailServer.objects.get()
    assert (server.timeout_s, server.password) == (30, MAIL_PW)
    assert admin_client.post(change, mail_form(password="n3w-Zq8mark")).status_code == 302
    assert MailServer.objects.get().password == "n3w-Zq8mark"
    both = admin_client.post(change, mail_form(password="other-Zq8mark", clear_password="on"))
    assert "not both" in " ".join(both.context["adminform"].form.errors["clear_password"])
    assert "Zq8mark" not in both.content.decode()
    assert MailServer.objects.get().password == "n3w-Zq8mark"
    assert admin_client.post(change, mail_form(clear_password="on")).status_code == 302
    assert MailServer.objects.get().password == ""
    assert "Not set." in admin_client.get(change).content.decode()
    assert admin_client.get(f"{MAIL_URL}add/").status_code == 403  # a second row cannot be added


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"port": "70000"}, "port", "less than or equal to 65535"),
        ({"port": "0"}, "port", "greater than or equal to 1"),
        ({"host": "smtp example.com"}, "host", "Enter a host name"),
        ({"host": "-smtp.example.com"}, "host", "Enter a host name"),
        ({"host": "10.0.0.999"}, "host", "Enter a host name"),
        ({"from_email": "monitor at example"}, "from_email", "Enter an email address"),
        ({"from_email": "Monitor <not an address>"}, "from_email", "Enter an email address"),
        ({"username": ""}, "username", "needs the user"),
    ],
)
def test_bad_mail_settings_are_explained_next_to_the_field_and_nothing_is_saved(
    admin_client, overrides, field, message
):
    response = admin_client.post(f"{MAIL_URL}add/", mail_form(password=MAIL_PW, **overrides))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == [field] and message in " ".join(errors[field]), errors
    assert MAIL_PW not in response.content.decode()  # a form shown again does not carry the typed password
    assert not MailServer.objects.exists()


@pytest.mark.parametrize("host", ["smtp.example.com", "localhost", "192.0.2.10", "2001:db8::25", "[2001:db8::25]"])
def test_good_hosts_are_accepted(admin_client, host):
    assert admin_client.post(f"{MAIL_URL}add/", mail_form(host=host)).status_code == 302
    assert MailServer.objects.get().host == host.strip("[]")


def test_only_superusers_see_or_change_the_mail_server(client, django_user_model):
    from django.contrib.auth.models import Permission

    mail_server()
    staff = django_user_model.objects.create_user("ops", password="pw-ops-12345", is_staff=True)
    staff.user_permissions.set(Permission.objects.all())  # every permission there is, but not a superuser
    client.force_login(staff)
    assert client.get(f"{MAIL_URL}1/change/").status_code == 403
    assert client.post(f"{MAIL_URL}1/change/", mail_form(host="evil.example.com")).status_code == 403
    assert client.get(MAIL_URL).status_code == 403
    assert "Mail server" not in client.get("/admin/").content.decode()
    assert MailServer.objects.get().host == "127.0.0.1"


# --- mail through a real SMTP server that requires AUTH ------------------------------------------------------------


class AuthSmtp:
    """aiosmtpd requiring AUTH; it refuses a wrong password and (misbehaving) echoes it in the refusal."""

    def __init__(self, user: str, password: str):
        self.port = free_port()
        self.sink = Sink()
        self.logins: list[tuple[str, bool]] = []
        self.user, self.password = user, password
        self.controller = Controller(
            self.sink,
            hostname="127.0.0.1",
            port=self.port,
            authenticator=self.authenticate,
            auth_required=True,
            auth_require_tls=False,
        )

    def authenticate(self, server, session, envelope, mechanism, auth_data) -> AuthResult:
        login, password = auth_data.login.decode(), auth_data.password.decode()
        ok = (login, password) == (self.user, self.password)
        self.logins.append((login, ok))
        if ok:
            return AuthResult(success=True)
        return AuthResult(success=False, handled=False, message=f"535 5.7.8 password {password} refused for {login}")

    def __enter__(self) -> AuthSmtp:
        self.controller.start()
        return self

    def __exit__(self, *exc) -> None:
        self.controller.stop()


def queued_event(device: Device) -> Event:
    rule = Rule.objects.create(
        name="1/g1 utilisation",
        metric="port_util",
        scope=Rule.Scope.SERIES,
        device=device,
        instance="1/g1",
        unit=Rule.Unit.PERCENT,
        fire_level=80.0,
        clear_level=70.0,
        recipient_emails="ops@example.com",
    )
    state = AlertState.objects.create(rule=rule, device=device, instance="1/g1", state="firing", value=96.0)
    now = timezone.now()
    return Event.objects.create(
        state=state,
        rule=rule,
        device=device,
        instance="1/g1",
        kind="fire",
        to_state="firing",
        value=96.0,
        fire_level=80.0,
        clear_level=70.0,
        since=now - timedelta(minutes=1),
        mail=Event.Mail.QUEUED,
        next_attempt_at=now,
    )


def test_a_refused_smtp_login_is_recorded_without_the_password(caplog, client, admin_user):
    everything_at_debug(caplog)
    device = Device.objects.create(name="mailer-switch", host="127.0.0.1", community="x")
    with AuthSmtp("mailer", "the-right-one") as server:
        mail_server(server.port)  # the stored password (MAIL_PW) is not the one the server wants
        event = queued_event(device)
        outcome = delivery.send_one(event.pk)
    assert server.logins and all(login == ("mailer", False) for login in server.logins)  # PLAIN, then LOGIN
    assert server.sink.messages == []
    event.refresh_from_db()
    assert outcome.startswith("failed: SMTPAuthenticationError") and "535" in outcome
    assert (event.mail, event.attempts) == ("queued", 1)
    assert "password *** refused for mailer" in event.last_error  # the server's echo, redacted
    assert "Zq8mark" not in outcome + event.last_error
    assert "SMTPAuthenticationError" in monitor_logs(caplog) and "Zq8mark" not in monitor_logs(caplog)
    client.force_login(admin_user)
    page = client.get("/alerts/").content.decode()
    assert "Mail delivery is failing" in page and "Zq8mark" not in page


def test_send_a_test_mail_reports_the_smtp_error_without_the_password(admin_client, caplog):
    everything_at_debug(caplog)
    with AuthSmtp("mailer", "the-right-one") as server:
        data = mail_form(host="127.0.0.1", port=str(server.port), security="none", password=MAIL_PW)
        response = admin_client.post(f"{MAIL_URL}add/", {**data, "_send_test": "1"}, follow=True)
    page = response.content.decode()
    assert response.redirect_chain == [(f"{MAIL_URL}1/change/", 302)]
    assert "Test mail NOT sent: SMTPAuthenticationError" in page and "password *** refused" in page
    assert "test mail to admin@example.com not sent" in monitor_logs(caplog)
    assert "Zq8mark" not in page and "Zq8mark" not in monitor_logs(caplog)
    assert server.sink.messages == [] and MailServer.objects.get().password == MAIL_PW  # saved all the same


def test_send_a_test_mail_with_the_right_password_delivers_it(admin_client, admin_user):
    with AuthSmtp("mailer", MAIL_PW) as server:
        data = mail_form(
            host="127.0.0.1", port=str(server.port), security="none", password=MAIL_PW, from_email="nms@example.org"
        )
        response = admin_client.post(f"{MAIL_URL}add/", {**data, "_send_test": "1"}, follow=True)
    page = response.content.decode()
    assert f"Test mail sent to {admin_user.email} through 127.0.0.1:{server.port}" in page
    assert server.logins == [("mailer", True)]
    assert server.sink.recipients == [[admin_user.email]]
    (mail,) = server.sink.messages
    assert str(mail["Subject"]) == "Test mail from the SNMP monitor" and str(mail["From"]) == "nms@example.org"
    assert "alert mails will reach you too" in mail.get_content()
    assert "Zq8mark" not in page and "Zq8mark" not in mail.as_string()


def test_alert_mail_goes_through_the_admin_mail_server_and_else_through_the_environment(mailoutbox):
    device = Device.objects.create(name="route-switch", host="127.0.0.1", community="x")
    MailServer.objects.create(host="", port=25)  # no host: the environment (here pytest's locmem backend)
    assert delivery.send_one(queued_event(device).pk) == "sent"
    assert len(mailoutbox) == 1
    with AuthSmtp("mailer", MAIL_PW) as server:
        MailServer.objects.filter(pk=1).update(host="127.0.0.1", port=server.port, security="none", username="mailer")
        server_row = MailServer.objects.get()
        server_row.password, server_row.from_email = MAIL_PW, "Alerts <alerts@example.net>"
        server_row.save()
        assert delivery.send_one(queued_event(device).pk) == "sent"
    assert len(mailoutbox) == 1 and server.logins == [("mailer", True)]
    (mail,) = server.sink.messages
    assert str(mail["From"]) == "Alerts <alerts@example.net>"
    assert str(mail["Subject"]).startswith("[FIRING] route-switch 1/g1")


# --- polls and InfluxDB --------------------------------------------------------------------------------------------


def test_a_wrong_community_never_reaches_logs_or_the_device_error(agent, clean_backends, caplog, snmp_engine):
    everything_at_debug(caplog)
    device = Device.objects.create(
        name="wrong-cmty", host="127.0.0.1", port=agent.port, community=COMMUNITY, timeout_s=0.5, retries=0
    )
    outcome = run_poll(device.pk)
    device.refresh_from_db()
    assert outcome.startswith("failed: ") and "no SNMP response" in device.last_error
    assert device.consecutive_failures == 1
    assert "Zq8mark" not in outcome + device.last_error + caplog.text


@pytest.mark.parametrize(
    ("auth_key", "priv_key", "message"),
    [(AUTH_KEY, "privatus", "wrong auth key"), ("auctoritas", PRIV_KEY, "wrong privacy key")],
)
def test_wrong_v3_keys_never_reach_logs_or_the_device_error(agent, clean_backends, caplog, auth_key, priv_key, message):
    everything_at_debug(caplog)
    device = Device.objects.create(
        name="wrong-v3",
        host="127.0.0.1",
        port=agent.port,
        snmp_version="3",
        v3_user="simulator",
        v3_security_level="authPriv",
        v3_auth_protocol="MD5",
        v3_auth_key=auth_key,
        v3_priv_protocol="DES",
        v3_priv_key=priv_key,
        timeout_s=0.5,
        retries=0,
    )
    outcome = run_poll(device.pk)
    device.refresh_from_db()
    assert outcome.startswith("failed: ") and device.consecutive_failures == 1
    assert message in device.last_error and device.last_error
    assert "Zq8mark" not in outcome + device.last_error + caplog.text


def test_a_wrong_influxdb_token_is_logged_as_refused_without_the_token(influx, tmp_path, caplog):
    everything_at_debug(caplog)
    writer = InfluxWriter(influx.url, TOKEN, influx.org, influx.bucket, tmp_path / "spool", timeout_ms=5000)
    try:
        written = writer.write([Sample("poller", {"device": "token-test"}, {"ok": 1}, time.time())])
    finally:
        writer.close()
    assert written is False
    assert "InfluxDB write failed, 1 lines spooled: HTTP 401" in caplog.text
    assert "Zq8mark" not in caplog.text
    spooled = b"".join(p.read_bytes() for p in (tmp_path / "spool").iterdir())
    assert b"token-test" in spooled and b"Zq8mark" not in spooled


def test_pages_with_a_wrong_influxdb_token_do_not_show_it_and_the_token_is_not_in_the_database(
    agent, clean_backends, influx, admin_client, settings, caplog
):
    device = Device.objects.create(name="tok-switch", host="127.0.0.1", port=agent.port, community="switch")
    assert run_poll(device.pk) == "ok"
    graph = Graph.objects.filter(device=device).first()
    assert graph is not None
    assert influx.token.encode() not in database_bytes()  # deployment configuration, never stored
    everything_at_debug(caplog)
    settings.INFLUXDB_TOKEN = TOKEN
    services.reset_clients()
    try:
        home = admin_client.get("/").content.decode()
        series = admin_client.get(f"/api/graphs/{graph.pk}/series", {"range": "1h"})
    finally:
        settings.INFLUXDB_TOKEN = influx.token
        services.reset_clients()
    assert "rankings are unavailable" in home  # the wrong token was used, and refused
    assert series.status_code >= 500
    assert "Zq8mark" not in home + series.content.decode() + caplog.text


# --- key rotation --------------------------------------------------------------------------------------------------


def raw_secrets(device: Device) -> list[str]:
    return [
        *stored("monitor_device", "community, v3_auth_key, v3_priv_key", device.pk),
        *stored("alerts_mailserver", "password", 1),
    ]


def test_rotation_old_key_still_decrypts_and_reencrypt_rewrites_every_value(settings):
    settings.MONITOR_SECRETS_KEY, settings.MONITOR_SECRETS_KEY_PREVIOUS = "key-A-Zq8", []
    device = secret_device()
    mail_server()
    Device.objects.create(name="no-secrets", host="127.0.0.1", community="")  # empty: nothing to rewrite
    before = raw_secrets(device)

    settings.MONITOR_SECRETS_KEY, settings.MONITOR_SECRETS_KEY_PREVIOUS = "key-B-Zq8", ["key-X", "key-A-Zq8"]
    again = Device.objects.get(pk=device.pk)
    assert (again.community, again.v3_auth_key, again.v3_priv_key) == (COMMUNITY, AUTH_KEY, PRIV_KEY)
    assert MailServer.objects.get().password == MAIL_PW
    out = io.StringIO()
    call_command("reencrypt_secrets", stdout=out)
    assert "Re-encrypted 4 value(s) with the current key; 0 already used it." in out.getvalue()
    after = raw_secrets(device)
    assert all(a != b and a.startswith("enc1:") for a, b in zip(after, before, strict=True))

    settings.MONITOR_SECRETS_KEY_PREVIOUS = []  # key B alone reads everything now
    again = Device.objects.get(pk=device.pk)
    assert (again.community, again.v3_auth_key, again.v3_priv_key) == (COMMUNITY, AUTH_KEY, PRIV_KEY)
    assert MailServer.objects.get().password == MAIL_PW
    out = io.StringIO()
    call_command("reencrypt_secrets", stdout=out)
    assert "Re-encrypted 0 value(s) with the current key; 4 already used it." in out.getvalue()
    assert raw_secrets(device) == after


def reencrypt(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    """manage.py reencrypt_secrets as an operator runs it, on the test database file."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("MONITOR_SECRETS", "DJANGO_SECRET"))}
    base |= {"DATABASE_URL": f"sqlite:///{connection.settings_dict['NAME']}", "MONITOR_VAR_DIR": str(tmp_path)}
    return subprocess.run(
        [sys.executable, "manage.py", "reencrypt_secrets"],
        cwd=REPO,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.django_db(transaction=True)
def test_reencrypt_command_from_the_environment_and_a_value_no_key_decrypts(tmp_path, settings):
    settings.MONITOR_SECRETS_KEY, settings.MONITOR_SECRETS_KEY_PREVIOUS = "key-A-Zq8", []
    device = secret_device()
    mail_server()
    before = raw_secrets(device)
    (tmp_path / "previous").write_text("key-X,key-A-Zq8\n")

    done = reencrypt(
        tmp_path, MONITOR_SECRETS_KEY="key-B-Zq8", MONITOR_SECRETS_KEY_PREVIOUS_FILE=str(tmp_path / "previous")
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Re-encrypted 4 value(s)" in done.stdout
    after = raw_secrets(device)
    assert all(a != b for a, b in zip(after, before, strict=True))
    settings.MONITOR_SECRETS_KEY = "key-B-Zq8"
    assert Device.objects.get(pk=device.pk).v3_priv_key == PRIV_KEY

    failed = reencrypt(tmp_path, MONITOR_SECRETS_KEY="key-C-Zq8")  # neither A nor B is given
    assert failed.returncode != 0
    assert "Re-encrypted 0 value(s)" in failed.stdout
    for field in ("community", "v3_auth_key", "v3_priv_key"):
        assert f"monitor.Device id={device.pk} field {field}: no key decrypts it (left unchanged)" in failed.stderr
    assert "alerts.MailServer id=1 field password: no key decrypts it" in failed.stderr
    assert "MONITOR_SECRETS_KEY_PREVIOUS" in failed.stderr
    assert "Zq8mark" not in failed.stdout + failed.stderr and "enc1:" not in failed.stdout + failed.stderr
    assert raw_secrets(device) == after  # left untouched
