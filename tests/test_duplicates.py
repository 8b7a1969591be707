"""Two devices at one host and port with one credential make every trap and syslog line from there ambiguous (none
stored): such a device is refused by the admin form, the REST API and the CSV import, naming the device that has
them; an ambiguous source is said on the Events page with the devices involved; a disabled switch is off the path."""

from __future__ import annotations

import json
import subprocess

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from monitor.devices.forms import DeviceForm
from monitor.devices.saving import form_data
from monitor.events.models import ReceiverCount
from monitor.events.syslogd import SyslogReceiver
from monitor.models import Device
from monitor.storage.models import PathLink
from tests import eventkit as kit
from tests.test_rest_api import bearer

pytestmark = pytest.mark.django_db(transaction=True)
DUPLICATE = "Device 'core-1' (id {pk}) has this host, port and community already: traps and syslog from 127.0.0.1 "
DUPLICATE += "could not be told apart. Use another port or community, or change that device."


@pytest.fixture
def core(stack_env):
    return Device.objects.create(name="core-1", host="127.0.0.1", port=161, community="shared")


def test_the_admin_form_refuses_a_duplicate_and_takes_another_port_or_community(core):
    base = form_data({"name": "core-1-again", "host": "127.0.0.1", "port": 161, "community": "shared",
                      "skip_test": True})  # fmt: skip
    form = DeviceForm(base)
    assert not form.is_valid() and form.errors["host"] == [DUPLICATE.format(pk=core.pk)]
    assert "shared" not in str(form.errors)
    assert DeviceForm(base | {"port": 1161}).is_valid()
    assert DeviceForm(base | {"community": "other"}).is_valid()
    v3 = {"snmp_version": "3", "v3_user": "ops", "v3_security_level": "noAuthNoPriv", "community": ""}
    Device.objects.create(name="v3-1", host="127.0.0.1", port=161, snmp_version="3", v3_user="ops")
    form = DeviceForm(base | v3)
    assert not form.is_valid() and "Device 'v3-1'" in form.errors["host"][0] and "SNMPv3 user" in form.errors["host"][0]
    assert DeviceForm(base | v3 | {"v3_user": "other"}).is_valid()
    assert DeviceForm(form_data({"retries": 2, "skip_test": True}, core), instance=core).is_valid()  # itself


def test_the_api_and_the_csv_import_refuse_a_duplicate_naming_the_device(core, admin_user, tmp_path):
    body = {"name": "core-1-api", "host": "127.0.0.1", "port": 161, "community": "shared", "skip_test": True}
    response = bearer(admin_user).post("/api/devices/", json.dumps(body), content_type="application/json")
    assert response.status_code == 400 and response.json() == {"host": [DUPLICATE.format(pk=core.pk)]}
    path = tmp_path / "devices.csv"
    path.write_text("name,host,port,community\ncore-1-csv,127.0.0.1,161,shared\ncore-1-other,127.0.0.1,1161,shared\n")
    from io import StringIO

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_devices", str(path), "--skip-test", stdout=out)
    assert f"line 2: refused 'core-1-csv': host: {DUPLICATE.format(pk=core.pk)}" in out.getvalue()
    assert "line 3: imported core-1-other" in out.getvalue()
    assert sorted(Device.objects.values_list("name", flat=True)) == ["core-1", "core-1-other"]


def test_an_ambiguous_syslog_source_is_said_on_the_events_page_with_its_devices(core, client, admin_user):
    Device.objects.create(name="core-1-copy", host="127.0.0.1", port=161, community="shared")  # saved before
    syslog = SyslogReceiver("127.0.0.1", 0, name="syslog@dup").start()
    try:
        result = subprocess.run(["logger", "-n", "127.0.0.1", "-P", str(syslog.port), "-d", "-t", "x", "hello"],
                                capture_output=True, timeout=20)  # fmt: skip
        assert result.returncode == 0
        kit.counted(syslog, "ambiguous_source")
        syslog.flush_counts()
    finally:
        syslog.stop()
    note = ReceiverCount.objects.get(receiver__name="syslog@dup", reason="ambiguous_source").note
    assert note.startswith("last from 127.0.0.1 (") and note.endswith("): devices core-1, core-1-copy")
    client.force_login(admin_user)
    page = client.get("/events/").content.decode()
    assert "several devices at that address, none told apart</th><td>1</td>" in page and "core-1, core-1-copy" in page


def test_a_disabled_switch_is_off_the_path(stack_env, admin_client):
    array = Device.objects.create(name="eql", host="127.0.0.2", community="eql", profile="dell-equallogic")
    on = Device.objects.create(name="sw-on", host="127.0.0.3", community="c")
    off = Device.objects.create(name="sw-off", host="127.0.0.4", community="c", enabled=False)
    now = timezone.now()
    for switch, port in ((on, "1/g1"), (off, "1/g2")):
        PathLink.objects.create(array=array, array_port="eth0", switch=switch, switch_port=port, learned_at=now)
    page = admin_client.get(f"/storage/arrays/{array.pk}/path/").content.decode()
    assert "sw-on 1/g1" in page and "sw-off" not in page
