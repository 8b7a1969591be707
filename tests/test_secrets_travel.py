"""A device's stored secrets never travel to a host they were not entered for.

A user who may change devices but does not know a device's community or v3 keys points the device at a host
they control (its host, its port) or changes how the secrets are used (version, v3 user, protocols). The
"attacker's host" is a real UDP endpoint on loopback (tests/snmpwitness.py) that records every datagram and
relays it to the snmpsim agent. Whatever the write path (admin form, its "test and discover" button, REST PATCH
and PUT, the CSV import), no datagram carrying the stored community and no v3 request signed with the stored
auth key reaches it; the change is refused naming the secrets to type again. Typing them lets the change
through, and the new host then sees the new secret only.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from monitor.devices.importing import import_devices
from monitor.graphs.trees.models import ApiToken
from monitor.models import Device
from tests.snmpwitness import Witness
from tests.test_admin_devices import form, management_data

pytestmark = pytest.mark.django_db

STORED_COMMUNITY = "cmty-Zq9stored-01"
STORED_AUTH = "authk-Zq9stored-02"
STORED_PRIV = "privk-Zq9stored-03"
STORED = (STORED_COMMUNITY, STORED_AUTH, STORED_PRIV)
RETYPE = "Type it again"


@pytest.fixture
def changer(django_user_model):
    """Staff allowed to view and change devices, nothing else: the insider who does not know the secrets."""
    user = django_user_model.objects.create_user("changer", password="pw-changer-12345", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=["change_device", "view_device"]))
    return django_user_model.objects.get(pk=user.pk)


@pytest.fixture
def changer_web(client, changer) -> Client:
    client.force_login(changer)
    return client


@pytest.fixture
def changer_api(changer) -> Client:
    _, raw = ApiToken.issue(changer, "rebind", scope=ApiToken.Scope.WRITE)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


@pytest.fixture
def witness(agent):
    """The attacker's host: another loopback address, relaying to the real agent."""
    with Witness(("127.0.0.1", agent.port), host="127.0.0.2") as endpoint:
        yield endpoint


@pytest.fixture
def port_witness(agent):
    """The attacker's port on the device's own address."""
    with Witness(("127.0.0.1", agent.port), host="127.0.0.1") as endpoint:
        yield endpoint


def v2c_device(port: int, host: str = "127.0.0.1", **extra) -> Device:
    fields = {"name": "edge-7", "host": host, "port": port, "community": STORED_COMMUNITY, "timeout_s": 0.5}
    return Device.objects.create(**{**fields, "retries": 0, **extra})


def v3_device(host: str, port: int, **extra) -> Device:
    """An SNMPv3 device with the agent's user and protocols, and keys the sender of the change does not know."""
    fields = {
        "name": "vault-9",
        "host": host,
        "port": port,
        "snmp_version": "3",
        "community": STORED_COMMUNITY,
        "v3_user": "simulator",
        "v3_security_level": "authPriv",
        "v3_auth_protocol": "MD5",
        "v3_auth_key": STORED_AUTH,
        "v3_priv_protocol": "DES",
        "v3_priv_key": STORED_PRIV,
        "timeout_s": 0.5,
        "retries": 0,
    }
    return Device.objects.create(**{**fields, **extra})


def patch(api: Client, device: Device, body: dict, method: str = "patch"):
    return getattr(api, method)(f"/api/devices/{device.pk}/", json.dumps(body), content_type="application/json")


def nothing_reached(witness: Witness) -> None:
    """The witness received no datagram at all (the change was refused before any test was sent)."""
    assert witness.settled() == []


def unchanged(device: Device) -> None:
    again = Device.objects.get(pk=device.pk)
    for name in ("host", "port", "snmp_version", "v3_user", "v3_auth_protocol", "v3_priv_protocol"):
        assert getattr(again, name) == getattr(device, name), name
    assert (again.community, again.v3_auth_key, again.v3_priv_key) == (
        device.community,
        device.v3_auth_key,
        device.v3_priv_key,
    )


# --- REST: PATCH and PUT --------------------------------------------------------------------------------------


@pytest.mark.parametrize("skip_test", [False, True])
def test_rest_patch_of_the_host_without_the_community_is_refused_and_sends_nothing(
    agent, witness, changer_api, skip_test
):
    device = v2c_device(witness.port)
    response = patch(changer_api, device, {"host": witness.host, "skip_test": skip_test})
    assert response.status_code == 400, response.content
    errors = response.json()
    assert list(errors) == ["community"] and RETYPE in errors["community"][0] and "host" in errors["community"][0]
    nothing_reached(witness)
    unchanged(device)
    assert "Zq9stored" not in response.content.decode()


@pytest.mark.parametrize("method", ["patch", "put"])
def test_rest_change_of_the_port_without_the_community_is_refused_and_sends_nothing(
    agent, port_witness, changer_api, method
):
    device = v2c_device(agent.port)
    response = patch(changer_api, device, {"port": port_witness.port}, method)
    assert response.status_code == 400, response.content
    assert RETYPE in response.json()["community"][0] and "port" in response.json()["community"][0]
    nothing_reached(port_witness)
    unchanged(device)


def test_rest_patch_of_the_version_without_the_community_sends_nothing_to_the_device_host(agent, witness, changer_api):
    """The device already talks to the witness (say, a host on the path): v2c -> v1 must not resend the community."""
    device = v2c_device(witness.port, witness.host)
    response = patch(changer_api, device, {"snmp_version": "1"})
    assert response.status_code == 400
    assert RETYPE in response.json()["community"][0] and "SNMP version" in response.json()["community"][0]
    nothing_reached(witness)
    unchanged(device)


def test_rest_patch_from_v3_to_v2c_does_not_send_a_community_left_stored(agent, witness, changer_api):
    device = v3_device(witness.host, witness.port)
    response = patch(changer_api, device, {"snmp_version": "2c"})
    assert response.status_code == 400 and list(response.json()) == ["community"]
    nothing_reached(witness)
    unchanged(device)


@pytest.mark.parametrize(
    "change", [{"v3_user": "attacker"}, {"v3_auth_protocol": "SHA"}, {"v3_priv_protocol": "AES128"}]
)
def test_rest_patch_of_the_v3_user_or_protocols_sends_no_request_signed_with_the_stored_keys(
    agent, witness, changer_api, change
):
    device = v3_device(witness.host, witness.port)
    response = patch(changer_api, device, change)
    assert response.status_code == 400, response.content
    errors = response.json()
    assert sorted(errors) == ["v3_auth_key", "v3_priv_key"], errors
    assert all(RETYPE in messages[0] for messages in errors.values())
    assert [m for m in witness.v3_messages() if m.digest] == []  # no authenticated request at all
    assert witness.carried(*STORED) == []
    unchanged(device)


def test_a_rest_change_refused_for_another_reason_sends_nothing_either(agent, witness, changer_api):
    v2c_device(agent.port, name="taken")
    device = v2c_device(witness.port)
    taken = patch(changer_api, device, {"host": witness.host, "name": "taken", "community": "switch"})
    assert taken.status_code == 400 and list(taken.json()) == ["name"], taken.content  # the serializer's own check
    both = patch(changer_api, device, {"host": witness.host, "pinned_profile": "no-such-profile"})
    assert both.status_code == 400 and sorted(both.json()) == ["community", "pinned_profile"], both.content
    nothing_reached(witness)
    unchanged(device)


def test_retyping_the_community_lets_the_host_change_through_and_only_the_new_one_travels(agent, witness, changer_api):
    device = v2c_device(witness.port, v3_auth_key=STORED_AUTH, v3_priv_key=STORED_PRIV)
    response = patch(changer_api, device, {"host": witness.host, "community": "switch", "timeout_s": 2})
    assert response.status_code == 200, response.content
    assert response.json()["host"] == witness.host and response.json()["profile"] == "dell-powerconnect-62xx"
    seen = witness.communities()
    assert seen and set(seen) == {b"switch"}
    assert witness.carried(*STORED) == []
    device.refresh_from_db()
    assert (device.host, device.community) == (witness.host, "switch")
    assert (device.v3_auth_key, device.v3_priv_key) == ("", "")  # entered for the old host: not kept for the new


def test_retyping_the_v3_keys_lets_the_user_change_through_signed_with_the_new_key_only(agent, witness, changer_api):
    device = v3_device(witness.host, witness.port, v3_user="old-user")
    body = {"v3_user": "simulator", "v3_auth_key": "auctoritas", "v3_priv_key": "privatus", "timeout_s": 1}
    tested = patch(changer_api, device, body)
    # snmpsim picks its recording by v3 context name, which our sessions do not send: after the handshake and the
    # signed request it stays silent, so the test fails on the agent's side, not on ours.
    assert tested.status_code == 400 and "no SNMP response" in tested.json()["v3_auth_key"][0], tested.content
    signed = [m for m in witness.v3_messages() if m.digest]
    assert signed and all(m.user == b"simulator" and m.signed_with("auctoritas") for m in signed)
    assert not any(m.signed_with(STORED_AUTH) for m in signed)
    assert witness.carried(*STORED) == []
    saved = patch(changer_api, device, {**body, "skip_test": True})
    assert saved.status_code == 200, saved.content
    device.refresh_from_db()
    assert (device.v3_user, device.v3_auth_key, device.v3_priv_key, device.community) == (
        "simulator",
        "auctoritas",
        "privatus",
        "",  # the community was entered for the old settings: not kept
    )


def test_changes_that_do_not_move_the_device_keep_its_secrets(agent, changer_api):
    device = v2c_device(agent.port, community="switch", timeout_s=2)
    response = patch(changer_api, device, {"poll_interval_s": 30, "name": "edge-8", "v3_user": "ignored-on-v2c"})
    assert response.status_code == 200, response.content
    device.refresh_from_db()
    assert (device.poll_interval_s, device.name, device.community) == (30, "edge-8", "switch")


# --- the admin form and its "test and discover" button ---------------------------------------------------------


def change_form(device: Device, **overrides) -> dict:
    current = {"name": device.name, "host": device.host, "port": str(device.port), "community": ""}
    current |= {"timeout_s": str(device.timeout_s), "retries": str(device.retries), "skip_test": ""}
    return form(**{**current, **overrides})


@pytest.mark.parametrize("skip_test", ["", "on"])
def test_admin_change_of_the_host_without_the_community_is_refused_and_sends_nothing(
    agent, witness, changer_web, skip_test
):
    device = v2c_device(witness.port)
    url = f"/admin/monitor/device/{device.pk}/change/"
    data = {**management_data(changer_web, url), **change_form(device, host=witness.host, skip_test=skip_test)}
    response = changer_web.post(url, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["community"] and RETYPE in errors["community"][0]
    assert "Zq9stored" not in response.content.decode()
    nothing_reached(witness)
    unchanged(device)


@pytest.mark.parametrize(("community", "errors"), [("", ["community", "name"]), ("switch", ["name"])])
def test_admin_change_refused_for_a_taken_name_sends_nothing_even_with_the_community_typed(
    agent, witness, changer_web, community, errors
):
    """The unique name is checked after the form's own checks: the device test waits for it."""
    v2c_device(agent.port, name="taken")
    device = v2c_device(witness.port)
    url = f"/admin/monitor/device/{device.pk}/change/"
    data = {**management_data(changer_web, url), **change_form(device, host=witness.host, name="taken")}
    response = changer_web.post(url, {**data, "community": community})
    assert response.status_code == 200
    assert sorted(response.context["adminform"].form.errors) == errors
    nothing_reached(witness)
    unchanged(device)


def test_admin_test_and_discover_with_a_new_host_and_no_community_sends_nothing(agent, witness, changer_web):
    device = v2c_device(witness.port)
    url = f"/admin/monitor/device/{device.pk}/discover/"
    response = changer_web.post(url, change_form(device, host=witness.host))
    assert response.status_code == 400
    assert "community: " in response.content.decode() and RETYPE in response.content.decode()
    nothing_reached(witness)


def test_admin_change_with_the_community_typed_again_reaches_the_new_host_with_it_only(agent, witness, changer_web):
    device = v2c_device(witness.port)
    url = f"/admin/monitor/device/{device.pk}/change/"
    data = {
        **management_data(changer_web, url),
        **change_form(device, host=witness.host, community="switch", timeout_s="2"),
    }
    response = changer_web.post(url, data)
    assert response.status_code == 302, response.content.decode()[:3000]
    assert set(witness.communities()) == {b"switch"} and witness.carried(*STORED) == []
    device.refresh_from_db()
    assert (device.host, device.community) == (witness.host, "switch")


# --- the CSV import -------------------------------------------------------------------------------------------


def test_a_csv_row_naming_an_existing_device_with_a_new_host_is_refused_and_sends_nothing(agent, witness):
    """The import only adds devices: a row with an existing name is refused (not an update), and untested."""
    device = v2c_device(agent.port)
    rows = f"name,host,port,community\n{device.name},{witness.host},{witness.port},public\n".encode()
    (outcome,) = import_devices(rows)
    assert not outcome.imported and any("already exists" in e for e in outcome.errors), outcome.errors
    nothing_reached(witness)
    unchanged(device)
