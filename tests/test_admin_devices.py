"""Adding devices in the admin: clear errors, nothing saved on bad input, secrets write-only and encrypted."""

import re

import pytest
from django.db import connection

from monitor.models import Device

pytestmark = pytest.mark.django_db

ADD_URL = "/admin/monitor/device/add/"


def management_data(client, url: str = ADD_URL) -> dict:
    """The inline formsets' management fields, as the admin page renders them (inlines vary by installed apps)."""
    page = client.get(url).content.decode()
    return dict(re.findall(r'name="([\w-]+-(?:TOTAL|INITIAL|MIN_NUM|MAX_NUM)_FORMS)"[^>]*value="(\d+)"', page))


def form(**overrides) -> dict:
    data = {
        "name": "core-1",
        "host": "127.0.0.1",
        "port": "161",
        "enabled": "on",
        "poll_interval_s": "60",
        "snmp_version": "2c",
        "community": "s3cret-community",
        "timeout_s": "2",
        "retries": "1",
        "max_repetitions": "25",
        "v3_user": "",
        "v3_security_level": "authPriv",
        "v3_auth_protocol": "SHA256",
        "v3_auth_key": "",
        "v3_priv_protocol": "AES128",
        "v3_priv_key": "",
        "skip_test": "on",
    }
    data.update(overrides)
    return data


def test_add_device_stores_the_community_encrypted_and_never_shows_it(admin_client):
    response = admin_client.post(ADD_URL, {**management_data(admin_client), **form()})
    assert response.status_code == 302, response.content.decode()[:2000]
    device = Device.objects.get(name="core-1")
    assert device.community == "s3cret-community"
    with connection.cursor() as cursor:
        cursor.execute("SELECT community FROM monitor_device WHERE id = %s", [device.pk])
        (raw,) = cursor.fetchone()
    assert raw.startswith("enc1:") and "s3cret" not in raw
    page = admin_client.get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert "s3cret-community" not in page
    assert "A value is stored" in page


def test_editing_without_retyping_the_community_keeps_it(admin_client):
    admin_client.post(ADD_URL, {**management_data(admin_client), **form()})
    device = Device.objects.get(name="core-1")
    url = f"/admin/monitor/device/{device.pk}/change/"
    response = admin_client.post(
        url, {**management_data(admin_client, url), **form(community="", poll_interval_s="30")}
    )
    assert response.status_code == 302
    device.refresh_from_db()
    assert device.poll_interval_s == 30
    assert device.community == "s3cret-community"


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"host": "no-such-host.invalid"}, "host", "does not resolve"),
        ({"port": "70000"}, "port", "less than or equal to 65535"),
        ({"community": ""}, "community", "community is needed"),
        ({"poll_interval_s": "1"}, "poll_interval_s", "greater than or equal to 5"),
        (
            {"snmp_version": "3", "v3_user": "mon", "v3_auth_key": "short", "v3_priv_key": "longenough"},
            "v3_auth_key",
            "at least 8 characters",
        ),
        (
            {"snmp_version": "3", "v3_user": "mon", "v3_auth_key": "longenough1", "v3_priv_key": "x"},
            "v3_priv_key",
            "at least 8 characters",
        ),
        (
            {"snmp_version": "3", "v3_user": "", "v3_auth_key": "longenough1", "v3_priv_key": "longenough2"},
            "v3_user",
            "needs a user name",
        ),
        (
            {
                "snmp_version": "3",
                "v3_user": "mon",
                "v3_security_level": "authNoPriv",
                "v3_auth_protocol": "",
                "v3_auth_key": "longenough1",
            },
            "v3_auth_protocol",
            "Choose an auth protocol",
        ),
    ],
)
def test_bad_input_is_explained_next_to_its_field_and_nothing_is_saved(admin_client, overrides, field, message):
    response = admin_client.post(ADD_URL, {**management_data(admin_client), **form(**overrides)})
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors, errors
    assert message in " ".join(errors[field])
    assert not Device.objects.exists()
    assert "s3cret-community" not in response.content.decode()
    assert "longenough" not in response.content.decode()


def test_v3_auth_priv_is_the_default_for_new_devices():
    device = Device(name="x", host="127.0.0.1")
    assert device.v3_security_level == "authPriv"
    assert device.v3_auth_protocol == "SHA256" and device.v3_priv_protocol == "AES128"


def test_target_repr_hides_secrets():
    device = Device(name="x", host="h", community="topsecret", v3_auth_key="authsecret", v3_priv_key="privsecret")
    text = repr(device.snmp_target())
    assert "topsecret" not in text and "authsecret" not in text and "privsecret" not in text
