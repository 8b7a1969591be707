"""A newcomer's first look at the demo: a tree with both devices and the aggregate of the switch ports cabled to
the array, read by a user who is not staff; and the banner says how to log in as either, the devices' addresses and
communities, and where traps and syslog go."""

from __future__ import annotations

import io
import threading

import pytest
from django.test import Client

from monitor.devstack import demotree, fleet
from monitor.graphs.trees.models import TreeNode
from monitor.management.commands.demo import Command
from monitor.models import Device, Graph
from tests.signin import log_in

pytestmark = pytest.mark.django_db(transaction=True)


def demo_devices() -> tuple[Device, Device]:
    switch, array = (
        Device.objects.create(name=sim.sys_name, host="127.0.0.1", port=1161, community=sim.community)
        for sim in fleet.demo_fleet()
    )
    return switch, array


def test_the_viewer_reads_the_demo_tree_with_both_devices_and_the_iscsi_aggregate(stack_env, tmp_path):
    switch, array = demo_devices()
    tree = demotree.ensure_tree(switch, array)
    name, password = demotree.ensure_reader(tree, tmp_path)
    assert (name, password) == demotree.ensure_reader(tree, tmp_path)  # kept across restarts
    ports = [f"1/g{a.switch_port}" for a in fleet.array_attachments(fleet.demo_fleet()[1])]
    assert ports == ["1/g7", "1/g8", "1/g9", "1/g10"]
    made: list = []
    waiting = threading.Thread(target=lambda: made.append(demotree.ensure_aggregate(tree, switch, ports, 60)))
    waiting.start()  # as at the demo's start: the first poll has not made the port graphs yet
    for port in ["1/g1", *ports]:
        Graph.objects.create(device=switch, template="traffic", instance=port, title=f"Traffic {port}")
    waiting.join(70)
    (aggregate,) = made
    assert sorted(aggregate.members.values_list("instance", flat=True)) == sorted(ports)
    assert demotree.ensure_tree(switch, array) == tree and TreeNode.objects.filter(tree=tree).count() == 5
    client = Client()
    assert log_in(client, name, password) == 302  # the login form, with the password the banner prints
    page = client.get("/trees/", follow=True)
    assert page.status_code == 200
    text = page.content.decode()
    for shown in (demotree.TREE, "Network", "Storage", switch.name, array.name, demotree.AGGREGATE):
        assert shown in text, shown
    viewer = client.get(f"/devices/{switch.pk}/")
    assert viewer.status_code == 200
    assert client.get("/admin/").status_code == 302  # not staff: the admin sends them to log in


def test_the_banner_names_both_logins_the_devices_and_the_receivers(stack_env):
    command = Command(stdout=io.StringIO())
    command._opts = {"snmp_port": 1161, "campus_snmp_port": 1163, "trap_port": 1162, "syslog_port": 1514}
    command._banner(8000, "adminpass", "/var/log/demo", ("viewer", "viewerpass"))
    text = command.stdout.getvalue()
    assert "admin / adminpass" in text and "viewer / viewerpass" in text
    for sim in fleet.demo_fleet():
        assert f"{sim.sys_name} at 127.0.0.1:1161 community {sim.community}" in text
    for sim in fleet.campus_fleet():
        assert f"{sim.sys_name} at 127.0.0.1:1163 community {sim.community}" in text
    assert "manage.py demo_outage" in text
    assert "udp 127.0.0.1:1162" in text and "127.0.0.1:1514" in text
