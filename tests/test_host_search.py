"""Where is it plugged in (issue 42), on real snmpsim agents: an edge switch learned a host on an access port and the
core switch learned it through its uplink; the daily layer-2 read finds the host on the edge port, never the uplink,
keeps a move as history, and GET /api/hosts/?q= answers it in any MAC notation to a reader who may see the switch,
and nothing to one who may not."""

from __future__ import annotations

import ipaddress
import re

import pytest
from django.test import Client

from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.storage.paths import refresh_paths
from monitor.topology.hosts import mac_of
from monitor.topology.models import Sighting

pytestmark = pytest.mark.django_db
HOST = "00:50:56:0a:0b:0c"
EDGE_CHASSIS = "00:1e:c9:00:00:00"  # powerconnect_6248's chassis MAC; its 1/xg1 uplink is 00:1e:c9:00:01:01
BUSY = [f"00:50:56:00:10:{n:02x}" for n in range(12)]  # many hosts behind an unmonitored switch on port 20
# powerconnect_6248 also serves a VMware host's NIC on each of 1/g1..1/g6 (00:50:56:00:00:0N); 1/g7 has nothing


ARP = "1.3.6.1.2.1.4.35.1"  # IP-MIB ipNetToPhysicalTable: .4 PhysAddress, .6 Type; index ifIndex.type.len.address
V6 = "fd00::42"


def edge(community: str, host_port: int) -> fleet.SimDevice:
    """sw-edge (it routes VLAN 100, ifIndex 200): the host is 10.0.0.42 and fd00::42 in its ARP and neighbour cache;
    10.0.0.99's entry is invalid(2), 10.0.0.1 is its own (local(5))."""
    hosts = [fleet.Attached(host_port, HOST)] + [fleet.Attached(20, mac) for mac in BUSY]
    switch = fleet.powerconnect_6248(community, "sw-edge", busy=False, attached=hosts, lldp=False)
    v6 = ".".join(str(b) for b in ipaddress.IPv6Address(V6).packed)
    for address, mac, kind in (
        ("1.4.10.0.0.42", HOST, 3),
        (f"2.16.{v6}", HOST, 3),
        ("1.4.10.0.0.99", "00:50:56:0f:0f:0f", 2),
        ("1.4.10.0.0.1", "00:1e:c9:00:00:00", 5),
    ):
        switch.extra += [
            (f"{ARP}.4.200.{address}", "4x", mac.replace(":", "")),
            (f"{ARP}.6.200.{address}", "2", str(kind)),
        ]
    return switch


def core() -> fleet.SimDevice:
    """sw-core: on 1/xg1 it learned the host and the edge switch's uplink MAC; LLDP names the edge switch there."""
    ports = [fleet.SimPort(n, f"1/xg{n}", speed_bps=10_000_000_000, mac=f"00:1e:c9:aa:01:{n:02x}") for n in range(1, 3)]
    uplink = fleet.Attached(1, "00:1e:c9:00:01:01", "sw-edge", "1/xg1", EDGE_CHASSIS)
    extra = fleet.l2_records(ports, [fleet.Attached(1, HOST), uplink], "00:1e:c9:aa:00:00", "sw-core", True, True)
    return fleet.SimDevice("core", "PowerConnect 8024", "1.3.6.1.4.1.674.10895.3024", "sw-core", ports, extra)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    root = tmp_path_factory.mktemp("hosts")
    for device in (edge("edge", 3), edge("moved", 5), core()):
        device.write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-hosts")
    yield port
    process.stop()


def test_vendors_from_the_oui_and_none_for_a_made_up_address():
    from monitor.topology.vendors import LOCAL, vendor

    assert vendor("00:1e:c9:00:00:01") == "Dell Inc."
    assert vendor("00:09:8a:07:00:01") == "EqualLogic Inc"
    assert vendor("02:00:00:00:01:01") == vendor("fa:16:3e:00:00:01") == LOCAL  # the U/L bit: no OUI
    assert vendor("zz:00:00:00:00:00") == ""


def test_mac_notations():
    for text in ("00:50:56:0a:0b:0c", "00-50-56-0A-0B-0C", "0050.560a.0b0c", "0050560A0B0C", " 00:50:56:0a:0b:0c "):
        assert mac_of(text.strip()) == HOST
    for text in ("00:50:56:0a:0b", "00:50:56:0a:0b:0c:0d", "10.0.0.1", "host.example.com", "zz:50:56:0a:0b:0c"):
        assert mac_of(text) is None


def test_a_host_is_found_on_its_edge_port_never_the_uplink_and_a_move_is_kept(
    lab, clean_backends, admin_user, django_user_model
):
    common = {"host": "127.0.0.1", "port": lab, "profile": "dell-powerconnect-62xx", "timeout_s": 3}
    switch = Device.objects.create(name="sw-edge", community="edge", **common)
    Device.objects.create(name="sw-core", community="core", **common)
    summary = refresh_paths()  # no array at all: the hosts are still read
    assert summary.problems == []
    assert [(s.switch.name, s.port, s.vlan) for s in Sighting.objects.filter(mac=HOST)] == [("sw-edge", "1/g3", 100)]
    # the busy port's MACs are on no other port: it is their edge (the fewest MACs wins only among candidates)
    assert Sighting.objects.filter(port="1/g20").count() == len(BUSY)
    assert not Sighting.objects.filter(port__startswith="1/xg").exists()  # uplinks: transit, never a host's port
    first = Sighting.objects.get(mac=HOST)

    Device.objects.filter(pk=switch.pk).update(community="moved")  # the host now plugged into 1/g5
    refresh_paths()
    client = Client()
    client.force_login(admin_user)
    answer = client.get("/api/hosts/", {"q": "0050.560A.0B0C"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["mac"] == HOST
    assert body["vendor"] == "VMware, Inc."  # IEEE's registration of OUI 00:50:56, as Wireshark's list has it
    places = [(p["switch_name"], p["port"], p["vlan"]) for p in body["places"]]
    assert places == [("sw-edge", "1/g5", 100), ("sw-edge", "1/g3", 100)]  # where it is now, then where it was
    moved, old = body["places"]
    assert old["first_seen"] == old["last_seen"] == first.first_seen.isoformat().replace("+00:00", "Z")
    assert moved["first_seen"] > old["last_seen"]

    page = client.get("/search/", {"q": "00-50-56-0A-0B-0C"}).content.decode()  # the search box says it too
    found = page.split('id="found-hosts">')[1].split("</section>")[0]
    lines = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", line)).strip() for line in found.split('class="place">')[1:]]
    assert [line.split(" seen ")[0] for line in lines] == [
        "now on sw-edge 1/g5 VLAN 100",
        "before on sw-edge 1/g3 VLAN 100",
    ]
    assert '<span class="muted" id="mac-vendor">VMware, Inc.</span>' in page

    from monitor.polling.run import run_polls

    assert all(o.startswith("ok") for o in run_polls([switch.pk]).values())  # its ports and their graphs
    traffic = switch.graphs.get(template="traffic", instance="1/g5")
    page = client.get(f"/graphs/{traffic.pk}/").content.decode()  # the port's own page lists what is plugged in
    seen = page.split('id="port-hosts">')[1].split("</section>")[0]
    assert re.findall(r">([0-9a-f:]{17})</a>", seen) == ["00:50:56:00:00:05", HOST]  # the switch's VMware host too
    assert seen.count("<td>VMware, Inc.</td>") == 2
    assert (
        "port-hosts"
        not in client.get(f"/graphs/{switch.graphs.get(instance='1/g7', template='traffic').pk}/").content.decode()
    )

    # by IP address: the MAC the switch's ARP (or IPv6 neighbour) cache resolved it to, then where that MAC is
    for ip in ("10.0.0.42", "FD00:0:0::42"):
        body = client.get("/api/hosts/", {"q": ip}).json()
        assert (body["mac"], body["places"][0]["port"]) == (HOST, "1/g5"), ip
    assert client.get("/api/hosts/", {"q": "10.0.0.99"}).json() == {
        "query": "10.0.0.99", "mac": None, "vendor": None, "addresses": ["10.0.0.99"], "places": [],
    }  # fmt: skip
    assert client.get("/api/hosts/", {"q": "10.0.0.1"}).json()["mac"] is None  # the switch's own address

    reader = django_user_model.objects.create_user("reader", password="x")  # granted no tree: sees no switch
    client.force_login(reader)
    assert client.get("/api/hosts/", {"q": HOST}).json()["places"] == []
    assert client.get("/api/hosts/", {"q": "10.0.0.42"}).json()["mac"] is None  # nor its ARP cache
    page = client.get("/search/", {"q": HOST}).content.decode()
    assert "sw-edge" not in page and "not seen on an edge port of a switch you may read" in page


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("", "name a MAC, an IP address or a host name"),
        ("host_name.example.com", "not a MAC, IP address or host name"),  # no underscore in a host name
        ("-leading.example.com", "not a MAC, IP address or host name"),
        ("10.0.0.300", "not a MAC, IP address or host name"),  # all digits: an address, and not one
        ("fe80::1%eth0", "not a MAC, IP address or host name"),  # a zone: no cache is keyed by it
        ("a" * 65, "at most 64"),
    ],
)
def test_a_query_that_is_not_a_mac_is_refused_with_what_to_send(admin_user, query, said):
    client = Client()
    client.force_login(admin_user)
    answer = client.get("/api/hosts/", {"q": query})
    assert answer.status_code == 400
    assert said in str(answer.json()["q"])


def test_hosts_need_a_signed_in_reader():
    assert Client().get("/api/hosts/", {"q": HOST}).status_code in (401, 403)


def test_what_was_last_seen_longer_ago_than_kept_is_forgotten_and_odd_vlans_are_none(lab, settings):
    from datetime import timedelta

    from django.utils import timezone

    from monitor.topology import hosts
    from monitor.topology.models import Address

    common = {"host": "127.0.0.1", "port": lab, "profile": "dell-powerconnect-62xx", "timeout_s": 3}
    Device.objects.create(name="sw-edge", community="edge", **common)
    refresh_paths()
    assert Sighting.objects.filter(mac=HOST).exists() and Address.objects.filter(ip="10.0.0.42").exists()
    settings.MONITOR_HOSTS_KEEP_DAYS = 30
    hosts.forget_before(timezone.now() + timedelta(days=29))
    assert Sighting.objects.filter(mac=HOST).exists() and Address.objects.filter(ip="10.0.0.42").exists()
    hosts.forget_before(timezone.now() + timedelta(days=31))
    assert not Sighting.objects.exists() and not Address.objects.exists()
    assert [hosts._vlan(v) for v in (None, 0, 1, 100, 4094, 4095, 2**32 - 1)] == [None, None, 1, 100, 4094, None, None]


def test_a_host_name_is_found_by_the_address_this_machines_resolver_gives_it(admin_user, django_user_model, settings):
    """`localhost` is 127.0.0.1 by /etc/hosts (no DNS server asked): the MAC a router's cache resolved 127.0.0.1 to is
    the host's, and its place is answered, by the API and the search page; with lookups off, a name finds nothing."""
    from django.utils import timezone

    from monitor.topology.models import Address

    settings.MONITOR_HOSTS_DNS = True
    now = timezone.now()
    switch = Device.objects.create(name="sw-edge", host="192.0.2.1", community="x")
    Address.objects.create(ip="127.0.0.1", mac=HOST, router=switch, first_seen=now, last_seen=now)
    Sighting.objects.create(mac=HOST, switch=switch, port="1/g5", vlan=100, first_seen=now, last_seen=now)
    client = Client()
    client.force_login(admin_user)
    body = client.get("/api/hosts/", {"q": "LOCALHOST"}).json()
    assert (body["mac"], "127.0.0.1" in body["addresses"]) == (HOST, True), body
    assert [(p["switch_name"], p["port"]) for p in body["places"]] == [("sw-edge", "1/g5")]
    page = client.get("/search/", {"q": "localhost"}).content.decode()
    assert "localhost is 127.0.0.1" in page and "now</b> on" in page

    Address.objects.all().delete()  # resolved, but in no cache: said so
    body = client.get("/api/hosts/", {"q": "localhost"}).json()
    assert (body["mac"], body["places"], "127.0.0.1" in body["addresses"]) == (None, [], True)
    page = client.get("/search/", {"q": "localhost"}).content.decode()
    assert "in no ARP cache of a device you may read" in page

    Address.objects.create(ip="127.0.0.1", mac=HOST, router=switch, first_seen=now, last_seen=now)
    reader = django_user_model.objects.create_user("reader", password="x")  # may see no switch: finds nothing
    client.force_login(reader)
    assert client.get("/api/hosts/", {"q": "localhost"}).json()["mac"] is None
    client.force_login(admin_user)
    settings.MONITOR_HOSTS_DNS = False
    assert client.get("/api/hosts/", {"q": "localhost"}).json() == {
        "query": "localhost", "mac": None, "vendor": None, "addresses": [], "places": [],
    }  # fmt: skip


def test_a_name_that_names_a_device_is_not_looked_up_by_the_search_page(admin_user, settings):
    """The search box finds devices by name: a dotless word that names one is not sent to the resolver."""
    from django.utils import timezone

    from monitor.topology.models import Address

    settings.MONITOR_HOSTS_DNS = True
    now = timezone.now()
    switch = Device.objects.create(name="localhost-switch", host="192.0.2.1", community="x")
    Address.objects.create(ip="127.0.0.1", mac=HOST, router=switch, first_seen=now, last_seen=now)
    client = Client()
    client.force_login(admin_user)
    page = client.get("/search/", {"q": "localhost"}).content.decode()
    assert "localhost-switch" in page and 'id="found-hosts"' not in page


def test_a_busy_resolver_answers_at_once_and_a_name_is_kept_a_minute(settings):
    """With every lookup slot taken (slow names someone else asked for), a search answers at once without its
    name's addresses, rather than queueing behind them; an answer once had is kept, so it needs no slot."""
    import time

    from monitor.topology import names

    settings.MONITOR_HOSTS_DNS = True
    names._kept.clear()
    taken = [names._slots.acquire(blocking=False) for _ in range(names.MAX_AT_ONCE)]
    try:
        assert all(taken)
        started = time.monotonic()
        assert names.addresses("localhost") == []
        assert time.monotonic() - started < 0.5  # not a wait for the resolver
    finally:
        for _ in taken:
            names._slots.release()
    assert "127.0.0.1" in names.addresses("localhost")
    taken = [names._slots.acquire(blocking=False) for _ in range(names.MAX_AT_ONCE)]
    try:
        assert "127.0.0.1" in names.addresses("LOCALHOST.")  # kept: no slot needed
    finally:
        for _ in taken:
            names._slots.release()
