"""The iSCSI path when a device stops answering, on real snmpsim agents: an array cabled to an edge switch whose
uplink reaches a core switch (which learned the array's MACs through that uplink). The edge switch falls silent
at once or mid-way (its ports answer, its forwarding table and LLDP time out), the array itself falls silent: the
links learned from them are kept as last seen, and the core's uplink never becomes the array's edge."""

from __future__ import annotations

import pytest

from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.storage.models import PathLink, PathRefresh
from monitor.storage.paths import refresh_paths
from tests.udprelay import UdpRelay

pytestmark = pytest.mark.django_db
EDGE_CHASSIS = "00:1e:c9:00:00:00"  # powerconnect_6248's chassis MAC; its 1/xg1 uplink is 00:1e:c9:00:01:01
# BER of 1.3.6.1.2.1.17.1.4 (BRIDGE-MIB dot1dBasePortTable): the first request of a forwarding-table read
FORWARDING_TABLE = bytes([0x2B, 6, 1, 2, 1, 17, 1, 4])
EDGE_PORTS = {("eth0", "1/g7"), ("eth1", "1/g8"), ("eth2", "1/g9"), ("eth3", "1/g10")}


def core_switch(array: fleet.SimDevice) -> fleet.SimDevice:
    """sw-core: two 10G ports; on 1/xg1 it learned the array's MACs and the edge switch's uplink MAC, and its LLDP
    neighbour there is the edge switch (by chassis id and sysName)."""
    ports = [fleet.SimPort(n, f"1/xg{n}", speed_bps=10_000_000_000, mac=f"00:1e:c9:aa:01:{n:02x}") for n in range(1, 3)]
    through_uplink = [fleet.Attached(1, port.mac) for port in array.ports if port.mac]
    edge = fleet.Attached(1, "00:1e:c9:00:01:01", "sw-edge", "1/xg1", EDGE_CHASSIS)
    extra = fleet.l2_records(ports, [*through_uplink, edge], "00:1e:c9:aa:00:00", "sw-core", fdb=True, lldp=True)
    return fleet.SimDevice("core", "PowerConnect 8024", "1.3.6.1.4.1.674.10895.3024", "sw-core", ports, extra)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("path-faults")
    array = fleet.equallogic_array("array", "eql-path")
    devices = [
        array,
        fleet.powerconnect_6248("edge", "sw-edge", busy=False, attached=fleet.array_attachments(array)),
        core_switch(array),
    ]
    for device in devices:
        device.write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-path-faults")
    yield port
    process.stop()


@pytest.fixture
def relay(lab):
    """The network between the monitor and the edge switch."""
    found = UdpRelay(lab)
    yield found
    found.close()


def network(lab: int, relay: UdpRelay) -> tuple[Device, Device, Device]:
    array = Device.objects.create(
        name="eql-path", host="127.0.0.1", port=lab, community="array", profile="dell-equallogic", timeout_s=3
    )
    edge = Device.objects.create(
        name="sw-edge", host="127.0.0.1", port=relay.port, community="edge", profile="dell-powerconnect-62xx",
        timeout_s=0.5, retries=0,
    )  # fmt: skip
    core = Device.objects.create(
        name="sw-core", host="127.0.0.1", port=lab, community="core", profile="dell-powerconnect-62xx", timeout_s=3
    )
    return array, edge, core


def links(array: Device) -> dict[tuple[str, str, str], PathLink]:
    found = PathLink.objects.filter(array=array).select_related("switch")
    return {(link.switch.name, link.array_port, link.switch_port): link for link in found}


def test_an_edge_switch_that_stops_answering_keeps_its_links_and_the_core_uplink_is_never_the_edge(lab, relay):
    array, _, _ = network(lab, relay)
    summary = refresh_paths()
    assert summary.problems == []
    first = links(array)
    assert set(first) == {("sw-edge", a, s) for a, s in EDGE_PORTS}  # the core's 1/xg1 leads to sw-edge: transit
    seen = {key: link.learned_at for key, link in first.items()}

    relay.silent = True  # the edge switch does not answer at all (never discovered: its sysName is not known)
    summary = refresh_paths()
    assert any(p.startswith("sw-edge: interfaces: no SNMP response") for p in summary.problems)
    now = links(array)
    assert set(now) == set(first)  # not the core's uplink, which every array MAC was learned on
    assert {key: link.learned_at for key, link in now.items()} == seen  # kept as last seen
    assert (summary.kept, summary.links) == (4, 0)
    problems = PathRefresh.objects.get(array=array).problems
    assert "sw-edge did not answer: its 4 link(s) are kept as last seen at" in problems

    relay.answer_again()
    relay.silence_at = FORWARDING_TABLE  # now it stops mid-way: ports read, forwarding table and LLDP time out
    summary = refresh_paths()
    assert any(p.startswith("sw-edge: forwarding table:") for p in summary.problems)
    assert any(p.startswith("sw-edge: LLDP:") for p in summary.problems)
    now = links(array)
    assert set(now) == set(first) and {key: link.learned_at for key, link in now.items()} == seen

    relay.answer_again()
    summary = refresh_paths()  # it answers again: its links are learned anew
    assert summary.problems == [] and summary.kept == 0
    again = links(array)
    assert set(again) == set(first) and all(again[key].learned_at > seen[key] for key in again)


def test_a_silent_switch_known_by_its_sysname_is_never_taken_for_the_array_edge(lab, relay):
    """No link was ever learned (a new array) while the edge is silent: the core names its neighbour on 1/xg1
    sw-edge, a monitored switch (its sysName from discovery), so 1/xg1 is transit, not the array's edge."""
    array, edge, core = network(lab, relay)
    Device.objects.filter(pk=edge.pk).update(sys_name="sw-edge")
    relay.silent = True
    summary = refresh_paths()
    assert summary.links == 0 and links(array) == {}
    assert not PathLink.objects.filter(switch=core).exists()


def test_an_array_that_stops_answering_keeps_its_links(lab, relay):
    array, _, _ = network(lab, relay)
    refresh_paths()
    seen = {key: link.learned_at for key, link in links(array).items()}
    assert len(seen) == 4
    Device.objects.filter(pk=array.pk).update(port=free_udp_port(), timeout_s=0.5, retries=0)
    summary = refresh_paths()
    assert any(p.startswith("eql-path: interfaces: no SNMP response") for p in summary.problems)
    assert {key: link.learned_at for key, link in links(array).items()} == seen
    assert (
        "eql-path did not answer: its 4 link(s) are kept as last seen at"
        in PathRefresh.objects.get(array=array).problems
    )


def test_links_of_a_switch_no_longer_monitored_are_dropped(lab, relay):
    """Keeping is for devices that failed to answer, not for those switched off in the monitor: the path is then
    learned from what answers, the core's 1/xg1 towards a switch no longer monitored, as for any unmonitored edge."""
    array, edge, _ = network(lab, relay)
    refresh_paths()
    Device.objects.filter(pk=edge.pk).update(enabled=False)
    summary = refresh_paths()
    assert summary.kept == 0 and set(links(array)) == {("sw-core", a, "1/xg1") for a, _ in EDGE_PORTS}
