"""The port inventory (issue 42): admin status, duplex and VLANs as real switch recordings serve them, read through
snmpsim and checked against the recordings' own lines; and, end to end on simulated switches cabled with LLDP, the
daily read stores them and /ports/ lists admin-down ports, half duplex and a speed/duplex mismatch across a link,
filtered, exported and seen by a reader without naming a device the reader may not see."""

from __future__ import annotations

import bz2
import csv
import io
from pathlib import Path

import pytest
import snmpsim_data

from collectors.portfacts import read_port_facts
from collectors.sessions import open_session
from collectors.snmptypes import SnmpTarget
from collectors.topology import read_l2
from monitor.core import aio
from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_poll
from monitor.storage.paths import refresh_paths
from monitor.topology.models import Link, PortState

SHARED = Path(__file__).resolve().parents[2] / "shared" / "snmprec"
PROCURVE = Path(snmpsim_data.__file__).parent / "data" / "network" / "switch" / "hpe-procurve-516733-b21.snmprec.bz2"


def lines(path: Path) -> dict[str, str]:
    """oid -> value text, as the recording has it."""
    text = bz2.decompress(path.read_bytes()).decode() if path.suffix == ".bz2" else path.read_text(errors="replace")
    found = {}
    for line in text.splitlines():
        oid, _, rest = line.partition("|")
        found[oid] = rest.partition("|")[2]
    return found


def column(recording: dict[str, str], prefix: str) -> dict[str, str]:
    return {oid[len(prefix) + 1 :]: v for oid, v in recording.items() if oid.startswith(prefix + ".")}


def expected(recording: dict[str, str]) -> dict[int, tuple]:
    """The model: per ifIndex, (admin, duplex, pvid, vlans, untagged), from the recording's text alone."""
    base_to_if = {int(k): int(v) for k, v in column(recording, "1.3.6.1.2.1.17.1.4.1.2").items()}
    ports = lambda hexa: {i + 1 for i, bit in enumerate("".join(f"{int(c, 16):04b}" for c in hexa)) if bit == "1"}  # noqa: E731
    egress, untagged = {}, {}
    for key, hexa in column(recording, "1.3.6.1.2.1.17.7.1.4.2.1.4").items():
        vlan = int(key.split(".")[-1])
        for base in ports(hexa):
            egress.setdefault(base_to_if.get(base, base), set()).add(vlan)
        for base in ports(column(recording, "1.3.6.1.2.1.17.7.1.4.2.1.5").get(key, "")):
            untagged.setdefault(base_to_if.get(base, base), set()).add(vlan)
    pvid = {base_to_if.get(int(k), int(k)): int(v) for k, v in column(recording, "1.3.6.1.2.1.17.7.1.4.5.1.1").items()}
    admin = {int(k): {"1": True, "2": False}.get(v) for k, v in column(recording, "1.3.6.1.2.1.2.2.1.7").items()}
    duplex = {
        int(k): {"2": "half", "3": "full"}.get(v, "") for k, v in column(recording, "1.3.6.1.2.1.10.7.2.1.19").items()
    }
    return {
        i: (
            admin.get(i),
            duplex.get(i, ""),
            pvid.get(i),
            sorted(egress.get(i, ())),
            sorted(untagged.get(i, set()) & egress.get(i, set())),
        )
        for i in admin
    }


@pytest.mark.parametrize("source", [PROCURVE, SHARED / "powerconnect_2824.snmprec"], ids=["procurve", "pc2824"])
def test_port_facts_of_real_switch_recordings(tmp_path, source):
    data = tmp_path / "data"
    data.mkdir()
    (data / "rec.snmprec").write_bytes(
        bz2.decompress(source.read_bytes()) if source.suffix == ".bz2" else source.read_bytes()
    )
    port = free_udp_port()
    process = services.start_snmpsim(data, port, tmp_path / "log", name="snmpsim-portfacts")
    try:
        session = open_session(SnmpTarget("127.0.0.1", port, community="rec", timeout=3), "fast")
        view = aio.run(read_l2(session, fdb=False, lldp=False))
        names = {p.if_index: p.name for p in view.ports.values()}
        facts, errors = aio.run(
            read_port_facts(open_session(SnmpTarget("127.0.0.1", port, community="rec", timeout=3), "fast"), names)
        )
    finally:
        process.stop()
    assert errors == []
    model = expected(lines(source))
    got = {
        i: (f.admin_up, f.duplex, f.pvid, list(f.vlans), list(f.untagged))
        for i, name in names.items()
        for f in [facts[name]]
    }
    assert {i: got[i] for i in model if i in got} == {i: model[i] for i in model if i in got}
    assert len(got) >= 24
    if source == PROCURVE:
        assert any(len(v[3]) > 1 for v in got.values())  # a trunk carrying several VLANs
        assert any(v[3] and set(v[3]) - set(v[4]) for v in got.values())  # some of them tagged
    else:
        assert {v[1] for v in got.values()} >= {"full", ""} and {v[2] for v in got.values()} - {None} == {1}


def switch(name: str, n: int, ports: list[fleet.SimPort], attached: list[fleet.Attached]) -> fleet.SimDevice:
    extra = fleet.l2_records(ports, attached, f"02:00:00:00:{n:02x}:00", name, fdb=True, lldp=True)
    return fleet.SimDevice(name, "simulated switch", "1.3.6.1.4.1.8072.3.2.10", name, ports, extra)


def port(n: int, sw: int, **extra) -> fleet.SimPort:
    return fleet.SimPort(index=n, name=f"te{n}", mac=f"02:00:00:00:{sw:02x}:{n:02x}", **extra)


@pytest.fixture
def campus(tmp_path):
    """sw-left te4 (1 Gbit/s full) cabled to sw-right te4 (100 Mbit/s half), both saying so by LLDP; sw-left te2
    shut by an admin."""
    left_ports = [port(1, 1), port(2, 1, admin_up=False, oper_up=False), port(3, 1), port(4, 1)]
    right_ports = [port(1, 2), port(2, 2), port(3, 2), port(4, 2, speed_bps=100_000_000, duplex="half")]
    left = switch(
        "sw-left", 1, left_ports, [fleet.Attached(4, "02:00:00:00:02:04", "sw-right", "te4", "02:00:00:00:02:00")]
    )
    right = switch(
        "sw-right", 2, right_ports, [fleet.Attached(4, "02:00:00:00:01:04", "sw-left", "te4", "02:00:00:00:01:00")]
    )
    data = tmp_path / "data"
    for sim in (left, right):
        sim.write(data)
    port_number = free_udp_port()
    process = services.start_snmpsim(data, port_number, tmp_path / "log", name="snmpsim-campus")
    yield port_number
    process.stop()


@pytest.mark.django_db(transaction=True)
def test_the_daily_read_stores_port_states_and_the_inventory_shows_the_problems(
    campus, clean_backends, admin_client, django_user_model
):
    common = {"host": "127.0.0.1", "port": campus, "timeout_s": 3, "poll_interval_s": 3600}
    left = Device.objects.create(name="sw-left", community="sw-left", **common)
    right = Device.objects.create(name="sw-right", community="sw-right", **common)
    for device in (left, right):
        assert run_poll(device.pk).startswith("ok")
    summary = refresh_paths()
    assert summary.ports == 8, summary
    assert Link.objects.filter(a=left, a_port="te4", b=right, b_port="te4").exists()
    state = PortState.objects.get(device=right, port="te4")
    assert (state.admin_up, state.duplex, state.pvid, state.vlans, state.untagged) == (True, "half", 100, [100], [100])
    assert PortState.objects.get(device=left, port="te2").admin_up is False

    def listed(query: str, client=admin_client) -> list[list[str]]:
        answer = client.get(f"/ports/?{query}&format=csv")
        assert answer.status_code == 200, answer.content[:300]
        return list(csv.reader(io.StringIO(answer.content.decode())))[1:]

    mismatch = listed("problem=mismatch")
    assert sorted((r[0], r[1], r[10], r[11]) for r in mismatch) == [
        ("sw-left", "te4", "sw-right", "te4"),
        ("sw-right", "te4", "sw-left", "te4"),
    ]
    assert [(r[0], r[1]) for r in listed("problem=admin-down")] == [("sw-left", "te2")]
    assert [(r[0], r[1], r[6]) for r in listed("problem=half-duplex")] == [("sw-right", "te4", "half")]
    assert len(listed("vlan=100")) == 8 and listed("vlan=200") == []
    page = admin_client.get("/ports/").content.decode()
    assert "speed or duplex differs from the other end (2)" in page and "shut by an admin (1)" in page
    for bad in ("problem=nope", "vlan=5000", "vlan=x", "device=%C2%B2"):
        assert admin_client.get(f"/ports/?{bad}").status_code == 400

    from django.test import Client

    from monitor.graphs.trees.models import Tree, TreeNode, place_device

    reader = django_user_model.objects.create_user("ports-reader", password="s3cret-pass-123")
    tree = Tree.objects.create(name="Left only")
    place_device(left, TreeNode.objects.create(tree=tree, kind="header", title="Left"))
    tree.read_users.add(reader)
    client = Client()
    client.force_login(reader)
    rows = listed("problem=mismatch", client)
    assert [(r[0], r[1], r[10], r[11]) for r in rows] == [("sw-left", "te4", "", "")]  # the far end is not named
    assert "sw-right" not in client.get("/ports/").content.decode()
    assert client.get(f"/ports/?device={right.pk}").status_code == 404
