"""The chassis a device is made of (issue 42's "ENTITY-MIB for the chassis"): read from real recordings (an HPE
ProCurve blade switch, a PowerConnect 2824 in a stack entity) and checked against an independent reading of their
own lines; kept by the daily layer-2 read, shown on the device page and found by its serial number in the search
box, by a reader who may see the device and by nobody else."""

from __future__ import annotations

import bz2
from dataclasses import asdict
from pathlib import Path

import pytest
import snmpsim_data
from django.test import Client

from collectors.chassis import read_chassis
from collectors.sessions import open_session
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devstack import services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.storage.paths import refresh_paths
from monitor.topology.models import ChassisRecord

SHARED = Path(__file__).resolve().parents[2] / "shared" / "snmprec"
PROCURVE = Path(snmpsim_data.__file__).parent / "data" / "network" / "switch" / "hpe-procurve-516733-b21.snmprec.bz2"
SOURCES = {"procurve": PROCURVE, "pc2824": SHARED / "powerconnect_2824.snmprec"}
ENTITY = "1.3.6.1.2.1.47.1.1.1.1"
COLUMNS = {
    "description": 2, "name": 7, "hardware": 8, "firmware": 9, "software": 10, "serial": 11, "maker": 12, "model": 13,
}  # fmt: skip


def raw(path: Path) -> bytes:
    return bz2.decompress(path.read_bytes()) if path.suffix == ".bz2" else path.read_bytes()


def model(path: Path) -> list[dict]:
    """Each class-3 entity's columns, as the recording's lines write them (hex decoded)."""
    cells: dict[str, str] = {}
    for line in raw(path).decode(errors="replace").splitlines():
        oid, tag, value = [*line.split("|", 2), "", ""][:3]
        cells[oid] = bytes.fromhex(value).decode(errors="replace") if tag == "4x" else value
    indexes = sorted(
        int(oid.rsplit(".", 1)[1]) for oid, v in cells.items() if oid.startswith(f"{ENTITY}.5.") and v == "3"
    )
    return [{"index": i} | {k: cells.get(f"{ENTITY}.{n}.{i}", "").strip() for k, n in COLUMNS.items()} for i in indexes]


def oid_key(line: str) -> tuple[int, ...]:
    return tuple(int(part) for part in line.split("|", 1)[0].split(".") if part.isdigit())


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    root = tmp_path_factory.mktemp("chassis")
    (root / "data").mkdir()
    for community, path in SOURCES.items():
        (root / "data" / f"{community}.snmprec").write_bytes(raw(path))
    # a device that also says a chassis is at entPhysicalIndex 4294967295, past the MIB's 2147483647
    odd = [f"{ENTITY}.2.4294967295|4|Forged chassis", f"{ENTITY}.5.4294967295|2|3", f"{ENTITY}.11.4294967295|4|EVIL-1"]
    lines = raw(SOURCES["procurve"]).decode(errors="replace").splitlines() + odd
    (root / "data" / "odd.snmprec").write_text("\n".join(sorted(lines, key=oid_key)) + "\n")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-chassis")
    yield port
    process.stop()


@pytest.mark.parametrize("community", list(SOURCES))
def test_the_chassis_of_real_recordings_match_their_own_lines(agent, community):
    session = open_session(SnmpTarget("127.0.0.1", agent, community=community, timeout=5), "fast")
    found, errors = aio.run(read_chassis(session))
    assert errors == []
    expected = model(SOURCES[community])
    assert len(expected) == 1 and expected[0]["serial"]  # each is one chassis with a serial number
    assert [asdict(c) for c in found] == expected


@pytest.mark.django_db
def test_the_daily_read_keeps_them_the_page_shows_them_and_the_search_finds_a_serial(agent, django_user_model):
    from monitor.graphs.trees.models import Tree, TreeNode, place_device

    pc = Device.objects.create(name="pc2824", host="127.0.0.1", port=agent, community="pc2824", timeout_s=5)
    hp = Device.objects.create(name="blade-sw", host="127.0.0.1", port=agent, community="procurve", timeout_s=5)
    summary = refresh_paths()
    assert summary.chassis == 2, summary.problems
    serial = model(PROCURVE)[0]["serial"]
    assert ChassisRecord.objects.get(device=hp).serial == serial
    first = ChassisRecord.objects.get(device=pc)

    reader = django_user_model.objects.create_user("chassis-reader", password="s3cret-pass-123")
    site = Tree.objects.create(name="Site")
    place_device(hp, TreeNode.objects.create(tree=site, kind="header", title="blades"))
    site.read_users.add(reader)
    client = Client()
    client.force_login(reader)
    page = client.get(f"/devices/{hp.pk}/").content.decode()
    chassis = page.split('id="chassis">')[1].split("</dd>")[0]
    assert serial in chassis and model(PROCURVE)[0]["model"] in chassis
    found = client.get("/search/", {"q": serial.lower()}).content.decode()  # typed off a label, any case
    assert 'id="found-chassis"' in found and f"/devices/{hp.pk}/" in found
    hidden = client.get("/search/", {"q": first.serial}).content.decode()  # pc2824 is not in the reader's trees
    assert 'id="found-chassis"' not in hidden and "pc2824" not in hidden

    Device.objects.filter(pk=pc.pk).update(port=free_udp_port(), timeout_s=0.3, retries=0)  # it stops answering
    refresh_paths()
    assert ChassisRecord.objects.get(device=pc).read_at == first.read_at  # kept as it was, not forgotten


@pytest.mark.django_db
def test_a_chassis_index_past_the_mibs_range_is_left_out_and_the_rest_kept(agent):
    odd = Device.objects.create(name="odd", host="127.0.0.1", port=agent, community="odd", timeout_s=5)
    summary = refresh_paths()
    assert summary.chassis == 1
    assert list(ChassisRecord.objects.filter(device=odd).values_list("serial", flat=True)) == [
        model(PROCURVE)[0]["serial"]
    ]
