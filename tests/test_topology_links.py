"""Links between monitored devices (issue 42's map): derived from real layer-2 views (LLDP naming another monitored
switch by its chassis id, its sysName or a port's MAC; the iSCSI path's array links), kept as rows whose first seen
stays, and, on real snmpsim agents through the daily read, a link whose end stops answering is kept as it was while
a link both answering ends stop showing is gone, never deleted."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from collectors.topology import FdbEntry, L2Port, L2View, Neighbour
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.storage.pathfind import find_paths
from monitor.storage.paths import refresh_paths
from monitor.topology import links
from monitor.topology.models import Link

T0 = datetime(2026, 11, 20, 4, 0, tzinfo=timezone.utc)


def switch(n: int, name: str, ports: int = 4, chassis: str = "", neighbours: list[Neighbour] | None = None) -> L2View:
    """A switch view: ports te1..te<ports> with MACs 02:00:00:00:<n>:<port>, its chassis id and sysName."""
    return L2View(
        ports={p: L2Port(p, f"te{p}", f"02:00:00:00:{n:02x}:{p:02x}") for p in range(1, ports + 1)},
        neighbours=neighbours or [],
        chassis_id=chassis or f"02:00:00:00:{n:02x}:00",
        sys_name=name,
    )


def seen(a: str, a_port: str, b: str, b_port: str, via: str = "lldp") -> links.Seen:
    key = links.normalised(a, a_port, b, b_port)
    return links.Seen(key, {via})


def test_an_lldp_neighbour_named_by_its_chassis_id_is_a_link_to_that_switch_port():
    near = Neighbour("te1", "02:00:00:00:02:00", "te3", False, "", "")  # port id: the far port's name
    views = {"1": switch(1, "sw-one", neighbours=[near]), "2": switch(2, "sw-two")}
    assert links.lldp_links(views) == {("1", "te1", "2", "te3"): seen("1", "te1", "2", "te3")}


def test_an_lldp_neighbour_named_by_sysname_only_and_its_port_by_description():
    near = Neighbour("te2", "not-a-known-chassis", "17", False, "te4", "SW-Two")  # sysName in another case
    views = {"5": switch(5, "sw-five", neighbours=[near]), "2": switch(2, "sw-two")}
    assert list(links.lldp_links(views)) == [("2", "te4", "5", "te2")]  # stored lower id first


def test_a_sysname_alone_does_not_tie_a_cable_to_another_box_of_that_name():
    """An unmonitored switch also called sw-two (a lab copy) says so by LLDP, with its own chassis MAC: not our sw-two,
    whose MACs are known; a neighbour without a chassis MAC, or towards a silent sw-two known only by its name, is."""
    twin = Neighbour("te2", "aa:bb:cc:00:00:01", "te3", False, "", "sw-two")
    views = {"1": switch(1, "sw-one", neighbours=[twin]), "2": switch(2, "sw-two")}
    assert links.lldp_links(views) == {}
    unnamed = Neighbour("te2", "", "te3", False, "", "sw-two")
    views = {"1": switch(1, "sw-one", neighbours=[unnamed]), "2": switch(2, "sw-two")}
    assert list(links.lldp_links(views)) == [("1", "te2", "2", "te3")]
    silent = {"2": L2View(sys_name="sw-two", errors=["timeout"])}
    assert list(links.lldp_links({"1": switch(1, "sw-one", neighbours=[twin])}, silent)) == [("1", "te2", "2", "te3")]


def test_a_port_named_by_its_mac_identifies_the_switch_and_the_port():
    near = Neighbour("te4", "", "02:00:00:00:02:03", True, "uplink", "")  # no chassis id, no name: only the MAC
    views = {"1": switch(1, "sw-one", neighbours=[near]), "2": switch(2, "sw-two")}
    assert list(links.lldp_links(views)) == [("1", "te4", "2", "te3")]


def test_both_ends_saying_so_is_one_link_and_strangers_or_ambiguous_names_are_none():
    one = switch(1, "sw-one", neighbours=[
        Neighbour("te1", "02:00:00:00:02:00", "te2", False, "", "sw-two"),
        Neighbour("te2", "aa:bb:cc:dd:ee:ff", "Gi0/1", False, "", "unmonitored"),  # nobody we poll
        Neighbour("te3", "", "x", False, "", "twin"),  # two monitored devices answer to this sysName
    ])  # fmt: skip
    two = switch(2, "sw-two", neighbours=[Neighbour("te2", "02:00:00:00:01:00", "te1", False, "", "sw-one")])
    views = {"1": one, "2": two, "3": switch(3, "twin"), "4": switch(4, "twin")}
    assert list(links.lldp_links(views)) == [("1", "te1", "2", "te2")]


def test_a_far_port_named_only_by_a_silent_switch_gives_way_to_the_far_switchs_own_name_for_it():
    """sw-one names the far port "Te 1/0/2" (not a port name of sw-two); sw-two's own LLDP names both ends."""
    one = switch(1, "sw-one", neighbours=[Neighbour("te1", "02:00:00:00:02:00", "7", False, "Te 1/0/2", "")])
    two = switch(2, "sw-two", neighbours=[Neighbour("te2", "02:00:00:00:01:00", "te1", False, "", "")])
    assert list(links.lldp_links({"1": one, "2": two})) == [("1", "te1", "2", "te2")]
    # when sw-two is silent (known by its sysName only), sw-one's words are all there is: the link is still seen
    silent = {"2": L2View(sys_name="sw-two", errors=["timeout"])}
    one = switch(1, "sw-one", neighbours=[Neighbour("te1", "", "7", False, "Te 1/0/2", "sw-two")])
    assert list(links.lldp_links({"1": one}, silent)) == [("1", "te1", "2", "Te 1/0/2")]
    # ...but where the link was stored from a read both ends answered, that row is the one seen: an outage of sw-two
    # adds no second row for the cable (which would show as gone once sw-two answers again)
    stored = {("1", "te1", "2"): ("1", "te1", "2", "te2"), ("2", "te2", "1"): ("1", "te1", "2", "te2")}
    assert list(links.lldp_links({"1": one}, silent, stored)) == [("1", "te1", "2", "te2")]


def test_the_iscsi_paths_array_links_are_links_of_the_map():
    """An array (id 9) whose port MAC an edge switch (id 3) learned on te2: the path's rule, the map's link."""
    array = L2View(ports={1: L2Port(1, "eth0", "00:09:8a:07:00:01")}, sys_name="eql")
    edge = switch(3, "sw-edge")
    edge.fdb = [FdbEntry("00:09:8a:07:00:01", "te2", 100)]
    found = links.path_links(find_paths({"9": array}, {"3": edge}))
    assert found == {("3", "te2", "9", "eth0"): links.Seen(("3", "te2", "9", "eth0"), {"fdb"})}


def bridge(n: int, name: str, learned: dict[str, list[int]]) -> L2View:
    """A switch without LLDP (view of `switch`, its bridge MAC 02:00:00:00:<n>:00) whose forwarding table learned the
    own MACs of the switches given, {port: [their numbers]}: each one's bridge MAC and its first port's MAC."""
    view = switch(n, name, ports=6)
    view.bridge_mac, view.chassis_id = f"02:00:00:00:{n:02x}:00", ""
    view.fdb = [
        FdbEntry(mac, port, 1)
        for port, others in learned.items()
        for other in others
        for mac in (f"02:00:00:00:{other:02x}:00", f"02:00:00:00:{other:02x}:01")
    ]
    return view


def test_forwarding_tables_alone_find_a_chain_of_switches_and_not_the_switch_beyond_a_neighbour():
    """core(1) te1 - te1 dist(2) te2 - te1 access(3): each learned the others on the port towards them. core and
    access learned each other through dist, whose MACs both learned on those ports too: not a cable."""
    views = {
        "1": bridge(1, "core", {"te1": [2, 3]}),
        "2": bridge(2, "dist", {"te1": [1], "te2": [3]}),
        "3": bridge(3, "access", {"te1": [1, 2]}),
    }
    assert links.fdb_links(views) == {
        ("1", "te1", "2", "te1"): seen("1", "te1", "2", "te1", "fdb"),
        ("2", "te2", "3", "te1"): seen("2", "te2", "3", "te1", "fdb"),
    }


def test_a_switch_between_that_one_end_forgot_still_keeps_the_ends_apart():
    """core(1) te1 - te1 dist(2) te2 - te1 access(3), where access's table no longer holds dist (aged out): core and
    access look like neighbours from their own tables, but dist learned them on two ports of its own."""
    views = {
        "1": bridge(1, "core", {"te1": [2, 3]}),
        "2": bridge(2, "dist", {"te1": [1], "te2": [3]}),
        "3": bridge(3, "access", {"te1": [1]}),
    }
    assert sorted(links.fdb_links(views)) == [("1", "te1", "2", "te1")]  # dist - access: access forgot dist


def test_a_bundle_lldp_names_by_its_members_gets_no_second_cable_from_the_forwarding_tables():
    """LLDP runs on te1 and te2 (a bundle's members); the forwarding tables learn on po1, the bundle."""
    one = bridge(1, "sw-one", {"po1": [2]})
    two = bridge(2, "sw-two", {"po1": [1]})
    one.neighbours = [Neighbour(p, "02:00:00:00:02:00", p, False, "", "sw-two") for p in ("te1", "te2")]
    views = {"1": one, "2": two}
    lldp, fdb = links.lldp_links(views), links.fdb_links(views)
    assert list(fdb) == [("1", "po1", "2", "po1")]
    assert sorted(links.with_fdb(lldp, fdb, views)) == [("1", "te1", "2", "te1"), ("1", "te2", "2", "te2")]


def test_forwarding_tables_find_a_star_and_need_both_ends_to_have_learned_each_other():
    """core(1) with access switches 2 on te2 and 3 on te3; access 2 and 3 learned each other through the core.
    Switch 4 is learned on the core's te4 but never learned the core: one side's word is not a cable."""
    views = {
        "1": bridge(1, "core", {"te2": [2], "te3": [3], "te4": [4]}),
        "2": bridge(2, "acc-a", {"te1": [1, 3]}),
        "3": bridge(3, "acc-b", {"te5": [1, 2]}),
        "4": bridge(4, "mute", {"te1": []}),
    }
    assert sorted(links.fdb_links(views)) == [("1", "te2", "2", "te1"), ("1", "te3", "3", "te5")]


def test_a_port_learned_from_two_ports_of_the_far_switch_names_no_far_port():
    """dist(2) learned core(1) on te1 and te2 alike (a loop, or a table caught mid-change): no single far port."""
    views = {"1": bridge(1, "core", {"te1": [2]}), "2": bridge(2, "dist", {"te1": [1], "te2": [1]})}
    assert links.fdb_links(views) == {}


def test_lldp_wins_where_it_names_the_cable_and_the_forwarding_tables_name_its_far_port_where_lldp_could_not():
    one = bridge(1, "sw-one", {"te1": [2], "te3": [3]})
    two = bridge(2, "sw-two", {"te2": [1]})
    three = bridge(3, "sw-three", {"te4": [1]})
    one.neighbours = [
        Neighbour("te1", "02:00:00:00:02:00", "te5", False, "", "sw-two"),  # LLDP: te5 (FDB says te2): LLDP wins
        Neighbour("te3", "02:00:00:00:03:00", "9", False, "Gig 0/4", "sw-three"),  # far port: no name of sw-three's
    ]
    views = {"1": one, "2": two, "3": three}
    lldp, fdb = links.lldp_links(views), links.fdb_links(views)
    assert sorted(fdb) == [("1", "te1", "2", "te2"), ("1", "te3", "3", "te4")]
    assert links.with_fdb(lldp, fdb, views) == {
        ("1", "te1", "2", "te5"): seen("1", "te1", "2", "te5"),
        ("1", "te3", "3", "te4"): links.Seen(("1", "te3", "3", "te4"), {"lldp", "fdb"}),
    }


@pytest.mark.django_db
def test_rows_keep_first_seen_a_vanished_link_is_gone_and_a_silent_ends_is_untouched():
    one, two, three = (Device.objects.create(name=f"sw-{n}", host="127.0.0.1", community="x") for n in range(3))
    ids = [str(d.pk) for d in (one, two, three)]
    first = {s.key: s for s in (seen(ids[0], "te1", ids[1], "te1"), seen(ids[1], "te2", ids[2], "te2", "fdb"))}
    assert links.store(first, [one.pk, two.pk, three.pk], T0) == 2
    t1 = T0 + timedelta(days=1)
    links.store(first, [one.pk, two.pk, three.pk], t1)  # seen again: first seen kept
    rows = {(r.a_id, r.b_id): r for r in Link.objects.all()}
    assert Link.objects.count() == 2
    kept = rows[(one.pk, two.pk)]
    assert (kept.first_seen, kept.last_seen, kept.via_lldp, kept.via_fdb, kept.gone) == (T0, t1, True, False, False)
    t2 = t1 + timedelta(days=1)
    links.store({}, [one.pk, two.pk], t2)  # nothing seen; sw-2 did not answer
    rows = {(r.a_id, r.b_id): r for r in Link.objects.all()}
    gone, held = rows[(one.pk, two.pk)], rows[(two.pk, three.pk)]
    assert (gone.last_seen, gone.checked_at, gone.gone) == (t1, t2, True)  # both ends answered: gone, not deleted
    assert (held.last_seen, held.checked_at, held.gone) == (t1, t1, False)  # its silent end proves nothing
    links.store(first, [one.pk, two.pk, three.pk], t2 + timedelta(days=1))  # back: the same row, seen again
    back = Link.objects.get(a=one, b=two)
    assert (back.pk, back.first_seen, back.gone) == (gone.pk, T0, False)


def core(uplink: bool = True) -> fleet.SimDevice:
    """sw-core (community core, or core-cut without the cable): its 1/xg1 LLDP neighbour is sw-edge's 1/xg1, named
    by that port's MAC, with sw-edge's chassis MAC and sysName."""
    ports = [fleet.SimPort(n, f"1/xg{n}", speed_bps=10_000_000_000, mac=f"00:1e:c9:aa:01:{n:02x}") for n in (1, 2)]
    cable = [fleet.Attached(1, "00:1e:c9:00:01:01", "sw-edge", "1/xg1", "00:1e:c9:00:00:00")] if uplink else []
    extra = fleet.l2_records(ports, cable, "00:1e:c9:aa:00:00", "sw-core", True, True)
    community = "core" if uplink else "core-cut"
    return fleet.SimDevice(community, "PowerConnect 8024", "1.3.6.1.4.1.674.10895.3024", "sw-core", ports, extra)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The demo's array cabled to sw-edge (1/g7..1/g10), sw-edge's 1/xg1 cabled to sw-core's 1/xg1."""
    root = tmp_path_factory.mktemp("links")
    array = fleet.equallogic_array()
    edge = fleet.powerconnect_6248("edge", "sw-edge", busy=False, attached=fleet.array_attachments(array))
    for device in (edge, array, core(), core(uplink=False)):
        device.write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-links")
    yield port
    process.stop()


@pytest.mark.django_db
def test_the_daily_read_stores_links_keeps_a_silent_ends_and_marks_a_cut_one_gone(lab):
    common = {"host": "127.0.0.1", "port": lab, "timeout_s": 2}
    array = Device.objects.create(name="eql", community="eql", profile="dell-equallogic", **common)
    edge = Device.objects.create(name="sw-edge", community="edge", sys_name="sw-edge", **common)
    core_switch = Device.objects.create(name="sw-core", community="core", **common)
    summary = refresh_paths()
    assert summary.problems == [] and summary.topology == 5
    ends = {(r.a.name, r.a_port, r.b.name, r.b_port): (r.via_lldp, r.via_fdb) for r in Link.objects.all()}
    assert ends == {
        **{("eql", f"eth{n}", "sw-edge", f"1/g{7 + n}"): (True, True) for n in range(4)},  # eql was created first
        ("sw-edge", "1/xg1", "sw-core", "1/xg1"): (True, False),
    }
    uplink = Link.objects.get(a=edge, b=core_switch)

    Device.objects.filter(pk=edge.pk).update(port=free_udp_port(), timeout_s=0.3, retries=0)  # sw-edge stops
    summary = refresh_paths()
    assert any(p.startswith("sw-edge:") for p in summary.problems)
    assert summary.topology == 1  # sw-core still sees sw-edge (known by its sysName) on its 1/xg1
    assert not any(link.gone for link in Link.objects.all())  # the array's links: not checked, not gone
    assert Link.objects.get(a=array, a_port="eth0").last_seen < Link.objects.get(pk=uplink.pk).last_seen

    Device.objects.filter(pk=edge.pk).update(port=lab, timeout_s=2, retries=1)
    Device.objects.filter(pk=core_switch.pk).update(community="core-cut")  # the cable is pulled
    summary = refresh_paths()
    assert summary.problems == [] and summary.topology == 4
    cut = Link.objects.get(pk=uplink.pk)
    assert cut.gone and cut.first_seen == uplink.first_seen and cut.last_seen < cut.checked_at
    assert Link.objects.count() == 5 and sum(link.gone for link in Link.objects.all()) == 1


def no_lldp(community: str, n: int, learned: dict[int, list[int]]) -> fleet.SimDevice:
    """A 6248 that speaks no LLDP (fdb-<community>, MACs 00:1e:c9:c<n>:..), whose forwarding table learned the bridge
    MACs of the switches given on its ports, {ifIndex: [their n]}."""
    seen_macs = [fleet.Attached(port, f"00:1e:c9:c{n2}:00:00") for port, others in learned.items() for n2 in others]
    prefix = f"00:1e:c9:c{n}"
    return fleet.powerconnect_6248(
        community, f"fdb-{community}", busy=False, attached=seen_macs, lldp=False, mac_prefix=prefix
    )


@pytest.fixture(scope="module")
def quiet_lab(tmp_path_factory):
    """core 1/xg1 (ifIndex 49) - 1/xg1 dist 1/xg2 (50) - 1/xg1 access, and no LLDP anywhere."""
    root = tmp_path_factory.mktemp("fdb-links")
    no_lldp("core", 1, {49: [2, 3]}).write(root / "data")
    no_lldp("dist", 2, {49: [1], 50: [3]}).write(root / "data")
    no_lldp("access", 3, {49: [1, 2]}).write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-fdb-links")
    yield port
    process.stop()


@pytest.mark.django_db
def test_switches_without_lldp_are_cabled_by_their_forwarding_tables_and_their_parents_follow(quiet_lab):
    from monitor.topology import dependencies

    made = {
        name: Device.objects.create(name=f"fdb-{name}", host="127.0.0.1", port=quiet_lab, community=name, timeout_s=2)
        for name in ("core", "dist", "access")
    }
    summary = refresh_paths()
    assert summary.problems == [] and summary.topology == 2
    ends = {(r.a.name, r.a_port, r.b.name, r.b_port): (r.via_lldp, r.via_fdb) for r in Link.objects.all()}
    assert ends == {
        ("fdb-core", "1/xg1", "fdb-dist", "1/xg1"): (False, True),
        ("fdb-dist", "1/xg2", "fdb-access", "1/xg1"): (False, True),
    }
    parent_of = dependencies.parents()  # the dist switch has the most links: the poller's side
    assert parent_of[made["core"].pk] == made["dist"].pk and parent_of[made["access"].pk] == made["dist"].pk


@pytest.fixture(scope="module")
def v2_lab(tmp_path_factory):
    """v2-a 1/xg1 - 1/xg1 v2-b, both speaking LLDP-V2-MIB alone (no LLDP-MIB, no forwarding table)."""
    root = tmp_path_factory.mktemp("lldp-v2")
    for me, other in (("a", "b"), ("b", "a")):
        far = fleet.Attached(49, f"00:1e:c9:d{other}:01:01", f"v2-{other}", "1/xg1", f"00:1e:c9:d{other}:00:00")
        device = fleet.powerconnect_6248(
            f"v2{me}", f"v2-{me}", busy=False, attached=[far], fdb=False, lldp="v2", mac_prefix=f"00:1e:c9:d{me}"
        )
        device.write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-lldp-v2")
    yield port
    process.stop()


@pytest.mark.django_db
def test_switches_speaking_only_lldp_v2_are_cabled_by_it(v2_lab):
    from collectors.sessions import open_session
    from collectors.snmptypes import SnmpTarget
    from collectors.topology import read_l2
    from monitor.core import aio

    session = open_session(SnmpTarget("127.0.0.1", v2_lab, community="v2a", timeout=3), "fast")
    view = aio.run(read_l2(session, fdb=False))
    assert view.errors == [] and (view.chassis_id, view.sys_name) == ("00:1e:c9:da:00:00", "v2-a")
    assert view.neighbours == [  # heard on two destination addresses: one neighbour
        Neighbour("1/xg1", "00:1e:c9:db:00:00", "00:1e:c9:db:01:01", True, "1/xg1", "v2-b")
    ]
    for me in ("a", "b"):
        Device.objects.create(name=f"v2-{me}", host="127.0.0.1", port=v2_lab, community=f"v2{me}", timeout_s=2)
    summary = refresh_paths()
    assert summary.problems == [] and summary.topology == 1
    ends = [(r.a.name, r.a_port, r.b.name, r.b_port, r.via_lldp, r.via_fdb) for r in Link.objects.all()]
    assert ends == [("v2-a", "1/xg1", "v2-b", "1/xg1", True, False)]
