"""Discovery against real snmpsim agents: profile matching, the admin's test-and-discover, bad devices."""

import json
import re
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from monitor.core import aio
from monitor.devstack.processes import free_udp_port
from monitor.models import Device, Graph, Interface
from monitor.polling.run import run_poll
from tests.test_admin_devices import ADD_URL, form, management_data

pytestmark = pytest.mark.django_db


def device_form(agent, community: str, **extra) -> dict:
    return form(
        name=f"dev-{community}",
        host="127.0.0.1",
        port=str(agent.port),
        community=community,
        timeout_s="1",
        retries="0",
        skip_test="",
        **extra,
    )


@pytest.mark.parametrize(
    ("community", "profile"), [("switch", "dell-powerconnect-62xx"), ("eql", "dell-equallogic"), ("legacy", "generic")]
)
def test_saving_a_device_discovers_its_profile_and_ports(agent, admin_client, community, profile):
    response = admin_client.post(ADD_URL, {**management_data(admin_client), **device_form(agent, community)})
    assert response.status_code == 302, response.context["adminform"].form.errors
    device = Device.objects.get(name=f"dev-{community}")
    assert device.profile == profile
    assert device.sys_descr == agent.devices[community].sys_descr
    assert device.discovered_at is not None
    names = set(Interface.objects.filter(device=device).values_list("name", flat=True))
    assert names == {p.name for p in agent.devices[community].ports}


def test_test_and_discover_shows_the_ports_and_the_unticked_ones_are_not_graphed(agent, admin_client, clean_backends):
    data = {**management_data(admin_client), **device_form(agent, "switch")}
    fragment = admin_client.post("/admin/monitor/device/discover/", data)
    assert fragment.status_code == 200
    html = fragment.content.decode()
    assert "dell-powerconnect-62xx" in html and "PowerConnect 6248" in html
    assert html.count('name="graph_port"') == 8
    assert "&lt;b&gt;port 3&lt;/b&gt;" in html and "<b>port 3</b>" not in html  # device strings escaped
    assert not Device.objects.exists()  # nothing saved by a test
    ticked = [f"1/g{i}" for i in range(1, 8)]  # untick 1/g8
    response = admin_client.post(ADD_URL, {**data, "discovered_ports": "1", "graph_port": ticked})
    assert response.status_code == 302
    device = Device.objects.get()
    assert not Interface.objects.get(device=device, name="1/g8").graphed
    assert Interface.objects.get(device=device, name="1/g1").graphed
    assert run_poll(device.pk) == "ok"
    instances = set(Graph.objects.filter(device=device, template="traffic").values_list("instance", flat=True))
    assert instances == set(ticked)


def test_discovery_lists_sensors_volumes_and_disks(agent, admin_client):
    data = {**management_data(admin_client), **device_form(agent, "eql")}
    html = admin_client.post("/admin/monitor/device/discover/", data).content.decode()
    assert "dell-equallogic" in html
    assert "vmfs-datastore-1; vmfs-datastore-2; vmfs-datastore-3" in html
    assert "Control module 0 processor" in html and "eql-member-1" in html


def test_wrong_community_is_explained_next_to_the_community_and_nothing_is_saved(agent, admin_client):
    data = {**management_data(admin_client), **device_form(agent, "switch")}
    data.update(community="not-the-community", timeout_s="0.5")
    response = admin_client.post(ADD_URL, data)
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "no SNMP response" in " ".join(errors["community"])
    assert "not-the-community" not in response.content.decode()
    assert not Device.objects.exists()


def test_unreachable_host_port_times_out_with_a_clear_message(admin_client):
    data = {
        **management_data(admin_client),
        **form(port=str(free_udp_port()), timeout_s="0.5", retries="0", skip_test=""),
    }
    response = admin_client.post(ADD_URL, data)
    assert "no SNMP response" in " ".join(response.context["adminform"].form.errors["community"])
    assert not Device.objects.exists()


@pytest.mark.parametrize(
    ("user", "field", "message"),
    [("simulator", "v3_auth_key", "wrong SNMPv3 keys"), ("nobody-here", "v3_user", "user unknown")],
)
def test_v3_authentication_failure_is_shown_next_to_its_field(agent, admin_client, user, field, message):
    data = {**management_data(admin_client), **device_form(agent, "switch")}
    data.update(
        snmp_version="3",
        v3_user=user,
        v3_security_level="authNoPriv",
        v3_auth_protocol="MD5",
        v3_auth_key="wrong-key-123",
        community="",
        timeout_s="0.5",
    )
    response = admin_client.post(ADD_URL, data)
    errors = response.context["adminform"].form.errors
    assert message in " ".join(errors[field]), errors
    assert "wrong-key-123" not in response.content.decode()
    assert not Device.objects.exists()


def test_an_agent_with_nothing_useful_is_refused(agent, admin_client):
    response = admin_client.post(ADD_URL, {**management_data(admin_client), **device_form(agent, "bare")})
    assert response.status_code == 200
    assert "nothing useful to monitor" in " ".join(response.context["adminform"].form.non_field_errors())
    assert not Device.objects.exists()


def test_equallogic_volume_latency_is_delta_latency_over_delta_ops(agent, clean_backends):
    device = Device.objects.create(
        name="eql", host="127.0.0.1", port=agent.port, community="eql", poll_interval_s=2, timeout_s=1.0
    )
    assert run_poll(device.pk) == "ok"
    time.sleep(2)
    from collectors.poll import poll_device
    from monitor.core import services
    from monitor.devices.profiles import registry

    device.refresh_from_db()
    assert device.profile == "dell-equallogic"
    state = services.counter_store().load(str(device.pk))
    result = aio.run(poll_device(device.snmp_target(), "x", state, profile=registry()["dell-equallogic"]))
    volumes = {s.tags["volume"]: s.fields for s in result.samples if s.measurement == "volume"}
    assert set(volumes) == {"vmfs-datastore-1", "vmfs-datastore-2", "vmfs-datastore-3"}
    for v in (1, 2, 3):
        fields = volumes[f"vmfs-datastore-{v}"]
        assert fields["read_iops"] == pytest.approx(100 * v, rel=0.02)
        assert fields["write_iops"] == pytest.approx(50 * v, rel=0.02)
        assert fields["read_latency_ms"] == pytest.approx(1.5 * v, rel=0.01)
        assert fields["write_latency_ms"] == pytest.approx(0.5 * v, rel=0.01)
        assert fields["read_bps"] == pytest.approx(100 * v * 8192, rel=0.02)
        assert fields["size_bytes"] == 512000 * v * 1048576
        assert "read_latency_sum" not in fields
    temps = {s.tags["name"]: s.fields for s in result.samples if s.measurement == "sensor"}
    assert temps["eql-member-1 Control module 0 processor"] == {  # its member first: a group has several
        "value": 54.0,
        "status": 1.0,
        "warning_high": 60.0,
        "critical_high": 70.0,
    }
    assert result.errors == []
    # The first poll created the graphs the profile offers for what it saw.
    templates = set(Graph.objects.filter(device=device).values_list("template", flat=True))
    assert {"traffic", "volume_capacity", "temperature"} <= templates


def test_probe_prints_one_json_object(agent, capsys):
    call_command(
        "probe", "127.0.0.1", "--port", str(agent.port), "--community", "switch", "--interval", "1.5", "--json"
    )
    report = json.loads(capsys.readouterr().out)
    assert report["profile"] == "dell-powerconnect-62xx"
    assert report["sys_object_id"] == "1.3.6.1.4.1.674.10895.3011"
    assert report["uptime_seconds"] > 0
    assert {i["name"] for i in report["interfaces"]} == {f"1/g{i}" for i in range(1, 9)}
    assert all(i["hc_counters"] and i["oper_status"] == "up" for i in report["interfaces"])
    rates = {m["tags"]["port"]: m["value"] for m in report["metrics"] if m["name"] == "in_bps"}
    assert rates["1/g2"] == pytest.approx(2 * 1_250_000 * 8, rel=0.03)
    assert isinstance(report["errors"], list)


def test_probe_fails_with_a_one_line_reason():
    with pytest.raises(CommandError) as failure:
        call_command("probe", "127.0.0.1", "--port", str(free_udp_port()), "--timeout", "0.3", "--retries", "0")
    assert re.fullmatch(r"127\.0\.0\.1: no SNMP response[^\n]*", str(failure.value))


def test_test_and_discover_says_when_an_agent_reports_no_uptime(admin_client):
    from tests.snmpfake import FakeAgent, Mib
    from tests.test_bad_snmp import device_mib

    sys_uptime = (1, 3, 6, 1, 2, 1, 1, 3, 0)
    fake = FakeAgent(Mib({oid: value for oid, value in device_mib().objects.items() if oid != sys_uptime}))
    try:
        html = admin_client.post(
            "/admin/monitor/device/discover/", {**management_data(admin_client), **device_form(fake, "x")}
        )
    finally:
        fake.close()
    text = html.content.decode()
    assert html.status_code == 200, text
    uptime = text.split("<th>Uptime</th>")[1].split("</tr>")[0]
    assert "not reported" in uptime and " s<" not in uptime
