"""Dependencies from the links between devices: who is reached through whom, and one alert when a parent is down.

The links are rows, as the daily layer-2 read stores them (its reads are tested in test_topology_links.py); the
polls are real (snmpsim on loopback, and ports where nothing listens), the mails go to a real SMTP server."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from monitor.alerts import delivery
from monitor.alerts.models import AlertState, Event, Rule
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_polls
from monitor.topology import dependencies
from monitor.topology.models import Link, Upstream
from tests import test_alert_kit as kit
from tests.test_alert_kit import make_switch, subjects

smtp = kit.smtp  # fixture

pytestmark = pytest.mark.django_db


def link(a: Device, b: Device, gone: bool = False) -> Link:
    """A cable between a and b as the layer-2 read stores it (lower id first); `gone`: not seen in the newest read."""
    now = timezone.now()
    first, second = sorted((a, b), key=lambda d: d.pk)
    seen = now - timedelta(days=1) if gone else now
    return Link.objects.create(
        a=first, a_port=f"to-{second.name}", b=second, b_port=f"to-{first.name}", via_lldp=True,
        first_seen=now - timedelta(days=9), last_seen=seen, checked_at=now,
    )  # fmt: skip


def plain(name: str) -> Device:
    return Device.objects.create(name=name, host="127.0.0.1", community="c", poll_interval_s=3600)


def campus() -> dict[str, Device]:
    """core - access1 - edge, core - access2 - array, core - spare: the core has the most links."""
    d = {n: plain(n) for n in ("array", "edge", "access2", "spare", "access1", "core")}
    cables = (("core", "access1"), ("core", "access2"), ("access1", "edge"), ("access2", "array"), ("core", "spare"))
    for a, b in cables:
        link(d[a], d[b])
    return d


def named(parent_of: dict[int, int | None], d: dict[str, Device]) -> dict[str, str | None]:
    name = {dev.pk: n for n, dev in d.items()}
    return {name[c]: (name[p] if p is not None else None) for c, p in parent_of.items() if c in name}


def test_parents_follow_the_links_from_the_device_with_most_links():
    d = campus()
    assert named(dependencies.parents(), d) == {
        "core": None, "access1": "core", "access2": "core", "spare": "core", "edge": "access1", "array": "access2",
    }  # fmt: skip
    parent_of = dependencies.parents()
    behind = [Device.objects.get(pk=pk).name for pk in dependencies.behind(d["core"].pk, parent_of)]
    assert behind == ["access2", "spare", "access1", "array", "edge"]  # nearest first, lowest id first (created so)
    assert dependencies.behind(d["access2"].pk, parent_of) == [d["array"].pk]
    assert dependencies.ancestors(d["array"].pk, parent_of) == [d["access2"].pk, d["core"].pk]


def test_a_gone_link_and_a_disabled_device_carry_no_dependency():
    d = campus()
    Link.objects.filter(a=min(d["access1"], d["edge"], key=lambda x: x.pk)).delete()
    link(d["access1"], d["edge"], gone=True)
    Device.objects.filter(pk=d["access2"].pk).update(enabled=False)
    found = named(dependencies.parents(), d)
    assert found["edge"] is None and found["array"] is None  # nothing links them to the rest now
    assert "access2" not in found


def test_the_admin_says_where_the_poller_sits_and_names_a_parent_outright():
    d = campus()
    Upstream.objects.create(device=d["access2"], parent=None)  # the poller sits behind access2
    Upstream.objects.create(device=d["edge"], parent=d["spare"])  # a cable the links do not show
    assert named(dependencies.parents(), d) == {
        "access2": None, "array": "access2", "core": "access2", "access1": "core", "spare": "core", "edge": "spare",
    }  # fmt: skip


def test_overrides_that_make_a_loop_end_it():
    d = campus()
    Upstream.objects.create(device=d["access1"], parent=d["edge"])
    Upstream.objects.create(device=d["edge"], parent=d["access1"])
    parent_of = dependencies.parents()
    assert dependencies.ancestors(d["edge"].pk, parent_of) == [d["access1"].pk]
    assert dependencies.ancestors(d["access1"].pk, parent_of) == [d["edge"].pk]


def test_a_device_cannot_be_its_own_upstream_in_the_admin(admin_client):
    device = plain("self")
    page = admin_client.post("/admin/topology/upstream/add/", {"device": device.pk, "parent": device.pk})
    assert page.status_code == 200 and "cannot be its own upstream device" in page.content.decode()
    assert not Upstream.objects.exists()
    page = admin_client.post("/admin/topology/upstream/add/", {"device": device.pk, "parent": ""})
    assert page.status_code == 302 and Upstream.objects.get().parent is None


@pytest.mark.django_db(transaction=True)
def test_a_core_outage_sends_one_alert_that_counts_the_devices_behind_it(agent, clean_backends, smtp):
    """core - access - array, core - spare. core, access and array stop answering: one mail, core's, naming the two;
    then core answers and access does not: access's own alert follows, array's still waits behind access."""
    dead = {"port": free_udp_port(), "timeout_s": 0.3, "retries": 0}
    core = make_switch(agent, name="core", **dead)
    access = make_switch(agent, name="access", **dead)
    array = make_switch(agent, name="array", **dead)
    spare = make_switch(agent, name="spare")
    for a, b in ((core, access), (access, array), (core, spare)):
        link(a, b)
    rule = Rule.objects.create(name="down", metric="not_answering", scope=Rule.Scope.ALL, fire_level=0.5,
                               clear_level=0.5, for_polls=3, recipient_emails="ops@example.com")  # fmt: skip
    batch = [core.pk, access.pk, array.pk, spare.pk]

    for _ in range(4):
        outcomes = run_polls(batch)
        assert outcomes[spare.pk].startswith("ok") and "no SNMP response" in outcomes[array.pk], outcomes
    assert delivery.send_due()["sent"] == 1
    assert [s.split(":")[0] for s in subjects(smtp)] == ["[FIRING] core"]
    text = smtp.messages[0].get_body(("plain",)).get_content()
    assert "2 devices behind it do not answer either" in text and "access, array" in text, text
    fired = Event.objects.filter(rule=rule, kind="fire").values_list("device__name", flat=True)
    assert list(fired) == ["core"]
    held = AlertState.objects.filter(rule=rule, device__in=[access, array]).values_list("state", flat=True)
    assert set(held) <= {"ok", "pending"}  # at most the first poll's breach, before core's failure was known

    page = kit_page(access)
    assert "unreachable: core does not answer" in page and 'id="upstream"' in page
    assert "core</a> \u203a access" in page
    core_page = kit_page(core)
    assert "3 devices reached only through it" in core_page  # access, spare, array: its blast radius

    Device.objects.filter(pk=core.pk).update(port=agent.port)  # core is back; access is really down
    for _ in range(4):
        run_polls(batch)
    assert delivery.send_due()["sent"] == 2
    assert sorted(s.split(":")[0] for s in subjects(smtp)[1:]) == ["[FIRING] access", "[RECOVERED] core"]
    access_mail = next(m for m in smtp.messages if str(m["Subject"]).startswith("[FIRING] access"))
    assert "1 device behind it does not answer either" in access_mail.get_body(("plain",)).get_content()

    Device.objects.filter(pk__in=[access.pk, array.pk]).update(port=agent.port)  # both answer again
    run_polls(batch)
    assert delivery.send_due()["sent"] == 1
    assert subjects(smtp)[-1].startswith("[RECOVERED] access")
    assert not Event.objects.filter(rule=rule, device=array, kind="fire").exists()  # array never mailed


def kit_page(device: Device) -> str:
    from django.contrib.auth.models import User
    from django.test import Client

    user, _ = User.objects.get_or_create(username="dep-admin", defaults={"is_staff": True, "is_superuser": True})
    client = Client()
    client.force_login(user)
    page = client.get(f"/devices/{device.pk}/")
    assert page.status_code == 200
    return page.content.decode()


def test_a_reader_sees_the_dependencies_of_the_devices_granted_and_no_name_of_a_hidden_one(django_user_model):
    from django.test import Client

    from monitor.graphs.trees.models import Tree, TreeNode, place_device

    d = campus()
    Device.objects.filter(name__in=["core", "access2"]).update(consecutive_failures=3, last_poll_at=timezone.now())
    reader = django_user_model.objects.create_user("dep-reader", password="s3cret-pass-123")
    site = Tree.objects.create(name="Site")
    for name in ("access2", "array"):
        place_device(d[name], TreeNode.objects.create(tree=site, kind="header", title=name))
    site.read_users.add(reader)
    client = Client()
    client.force_login(reader)

    page = client.get(f"/devices/{d['access2'].pk}/").content.decode()
    assert "unreachable: a device on its way does not answer" in page  # core is down, and hidden
    assert "devices not shown to you \u203a access2" in page
    assert ">core<" not in page and f"/devices/{d['core'].pk}/" not in page
    assert "1 device reached only through it" in page and ">array</a>" in page
    assert client.get(f"/devices/{d['core'].pk}/").status_code == 404


def test_a_device_and_a_port_show_what_hangs_on_them_arrays_with_their_volumes(admin_user):
    """core's port to access2 carries access2 and the array behind it (2 volumes); its port to spare, spare alone.
    A second cable from core to access2 marks access2 as one that may live through either port's failure."""
    import re

    from django.test import Client

    from monitor.models import Graph

    d = campus()
    Device.objects.filter(pk=d["array"].pk).update(profile="dell-equallogic")
    for template, volume in (("volume_iops", "vol-a"), ("volume_latency", "vol-a"), ("volume_iops", "vol-b")):
        Graph.objects.create(device=d["array"], template=template, instance=volume, title=volume)
    client = Client()
    client.force_login(admin_user)

    def text(url: str, section: str) -> str:
        page = client.get(url).content.decode()
        found = page.split(f'id="{section}"')[1].split("</dd>" if section == "behind" else "</section>")[0]
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", found.split(">", 1)[1]))

    assert text(f"/devices/{d['core'].pk}/", "behind").startswith(
        "5 devices reached only through it, with 2 volumes: access2, spare, access1, array (array, 2 volumes), edge"
    )  # nearest first, then by id

    def port_page(port: str) -> str:
        graph, _ = Graph.objects.get_or_create(device=d["core"], template="traffic", instance=port, title=port)
        return text(f"/graphs/{graph.pk}/", "port-behind")

    assert port_page("to-access2").startswith(
        "Behind this port 2 devices reached through it, with 2 volumes: access2, array (array, 2 volumes)"
    )
    assert port_page("to-spare").startswith("Behind this port 1 device reached through it: spare")
    graph = Graph.objects.create(device=d["array"], template="traffic", instance="to-access2", title="x")
    assert 'id="port-behind"' not in client.get(f"/graphs/{graph.pk}/").content.decode()  # nothing hangs on it

    lower, higher = sorted((d["core"], d["access2"]), key=lambda dev: dev.pk)
    now = timezone.now()
    Link.objects.create(
        a=lower, a_port="second", b=higher, b_port="second", via_lldp=True, first_seen=now, last_seen=now,
        checked_at=now,
    )  # fmt: skip
    assert "also cabled to this switch by 1 other link" in port_page("to-access2")
