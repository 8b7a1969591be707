"""Synology disks' wear and bad sectors (issue 43): the real DSM recording (22 disks, from a DSM release whose
SYNOLOGY-DISK-MIB had no diskBadSector or diskRemainLife yet), given those two columns as a DSM 7 serves them, is
read through the product's own poll path: a disk with bad sectors is a warning with its count, one that does not
report them is not, and a rule on remaining life sees only the disks that report it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import services
from monitor.devstack.processes import free_udp_port

DSM = Path(__file__).resolve().parents[2] / "shared" / "snmprec" / "dsm.snmprec"
DISK = "1.3.6.1.4.1.6574.2.1.1"
# diskIndex: (diskBadSector, diskRemainLife); -1 is what a disk serves that does not report the figure
ADDED = {0: (0, 95), 1: (12, 7), 2: (-1, -1)}


LUN = "1.3.6.1.4.1.6574.104.1.1"  # SYNOLOGY-ISCSILUN-MIB iSCSILUNTable
# iSCSILUNName: (IopsRead .8, IopsWrite .9, DiskLatencyRead .10, DiskLatencyWrite .11, NetworkLatencyTx .12,
# NetworkLatencyRx .13, QueueDepth .16): vm-lun's reads spend 3 parts of 4 in the array (3 + 1 on the wire), its writes
# 1 part of 5 (4 receiving); idle-lun has no time at all; bad-lun and worse-lun serve negative latencies
LUNS = {"vm-lun": (120, 40, 3000, 1000, 1000, 4000, 6), "idle-lun": (0, 0, 0, 0, 0, 0, 0),
        "bad-lun": (10, 10, -50, 20, 10, 20, 1), "worse-lun": (5, 5, -2, 3, -4, 3, 0)}  # fmt: skip


def _key(line: str) -> tuple[int, ...]:
    return tuple(int(part) for part in line.split("|", 1)[0].split("."))


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    assert DSM.is_file(), f"the shared recording is missing: {DSM}"
    data = tmp_path_factory.mktemp("dsm") / "data"
    data.mkdir()
    shutil.copy(DSM, data / "dsm.snmprec")
    lines = [line for line in DSM.read_text().splitlines() if line]
    for index, (bad, life) in ADDED.items():
        lines += [f"{DISK}.9.{index}|2|{bad}", f"{DISK}.11.{index}|2|{life}"]
    (data / "dsm7.snmprec").write_text("\n".join(sorted(lines, key=_key)) + "\n")  # snmpsim needs OID order
    luns = list(lines)
    for index, (name, row) in enumerate(LUNS.items(), 1):
        luns.append(f"{LUN}.3.{index}|4|{name}")
        luns += [
            f"{LUN}.{column}.{index}|2|{value}" for column, value in zip((8, 9, 10, 11, 12, 13, 16), row, strict=True)
        ]
    (data / "dsmlun.snmprec").write_text("\n".join(sorted(luns, key=_key)) + "\n")
    port = free_udp_port()
    process = services.start_snmpsim(data, port, data.parent / "log", name="snmpsim-dsm")
    yield port
    process.stop()


def poll(port: int, community: str):
    profile = registry()["synology-dsm"]
    target = SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)
    return profile, aio.run(poll_device(target, community, None, profile=profile, engine="fast"))


def test_bad_sectors_are_a_warning_with_their_count_and_life_left_is_kept(agent):
    from monitor.storage.health import readings

    profile, result = poll(agent, "dsm7")
    assert [e for e in result.errors if not e.startswith("sysUpTime")] == []
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["Disk bad sectors Disk 1"] == ("ok", "none")
    assert found["Disk bad sectors Disk 2"] == ("warning", "12 bad sector(s)")
    assert found["Disk bad sectors Disk 3"] == ("ok", "not reported")
    life = {s.tags["disk"]: s.fields.get("remaining_life_pct") for s in result.samples if s.measurement == "disk"}
    assert (life["Disk 1"], life["Disk 2"], life["Disk 3"]) == (95, 7, -1)


def test_a_remaining_life_rule_sees_the_disks_that_report_it(agent):
    from monitor.alerts.rules import METRICS, format_value, observe

    profile, result = poll(agent, "dsm7")
    seen = {o.instance: o.value for o in observe(METRICS["disk_life"], result.samples, "", profile)}
    assert seen == {"Disk 1": 95.0, "Disk 2": 7.0}  # Disk 3's -1 is "not reported", not "worn out"
    assert format_value(METRICS["disk_life"], "absolute", 7.0) == "7.0 %"


def test_the_older_dsm_without_those_columns_reads_as_before(agent):
    from monitor.storage.health import readings

    profile, result = poll(agent, "dsm")
    assert not any(part.startswith("Disk bad sectors") for part, _, _ in readings(profile, result.samples))
    disks = [s for s in result.samples if s.measurement == "disk"]
    assert len(disks) == 22 and all("remaining_life_pct" not in s.fields for s in disks)


@pytest.mark.django_db(transaction=True)
def test_an_iscsi_lun_says_whether_its_time_went_in_the_array_or_on_the_network(agent, clean_backends):
    """SYNOLOGY-ISCSILUN-MIB through the poll path and InfluxDB to the path page's data: each LUN's IOPS, and the
    share of its reads' and writes' time spent in the array against the wire, the MIB's latency columns stating no
    unit (a share needs none); a LUN without I/O time draws no share, nor a read whose latency is negative."""
    from datetime import datetime, timedelta, timezone

    from monitor.models import Device
    from monitor.polling.run import run_polls
    from monitor.storage.pathdata import path_data

    nas = Device.objects.create(name="nas-1", host="127.0.0.1", port=agent, community="dsmlun", timeout_s=3)
    for _ in range(2):
        assert all(o.startswith("ok") for o in run_polls([nas.pk]).values())
    nas.refresh_from_db()
    assert nas.profile == "synology-dsm"
    now = datetime.now(timezone.utc)
    data = path_data(nas, "", now - timedelta(hours=1), now + timedelta(minutes=1), 60)
    assert data["volume"] == "vm-lun"  # no latency in time: the busiest LUN first
    assert set(data["volumes"]) == {"vm-lun", "idle-lun", "bad-lun", "worse-lun"}
    charts = {chart["key"]: chart for chart in data["charts"]}
    where = {s["label"]: {round(v, 6) for _, v in s["points"]} for s in charts["where"]["series"]}
    assert where == {
        "Read: in the array": {75.0},  # 3000 / (3000 + 1000)
        "Read: on the network": {25.0},
        "Write: in the array": {20.0},  # 1000 / (1000 + 4000)
        "Write: on the network": {80.0},
    }
    iops = {s["label"]: {v for _, v in s["points"]} for s in charts["iops"]["series"]}
    assert iops == {"Read": {120.0}, "Write": {40.0}}
    window = (now - timedelta(hours=1), now + timedelta(minutes=1), 60)
    assert "where" not in {c["key"] for c in path_data(nas, "idle-lun", *window)["charts"]}
    bad = {c["key"]: c for c in path_data(nas, "bad-lun", *window)["charts"]}["where"]
    shares = {s["label"]: {v for _, v in s["points"]} for s in bad["series"]}
    assert shares == {"Write: in the array": {50.0}, "Write: on the network": {50.0}}  # -50 of 10: no read share
    worse = {c["key"]: c for c in path_data(nas, "worse-lun", *window)["charts"]}["where"]
    shares = {s["label"]: {v for _, v in s["points"]} for s in worse["series"]}
    assert shares == {"Write: in the array": {50.0}, "Write: on the network": {50.0}}  # -2 of -6 is no 33 %


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_path_page_draws_where_a_luns_time_went_in_chromium(agent, clean_backends, live_server, admin_user,
                                                                  monkeypatch):  # fmt: skip
    """In a real Chromium: the Synology's path page opens on its busiest LUN and draws the four shares under its
    IOPS, with the planted values in their legends' tooltips' data."""
    from monitor.models import Device
    from monitor.polling.run import run_polls
    from tests.browser import chromium_page, log_in

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    nas = Device.objects.create(name="nas-2", host="127.0.0.1", port=agent, community="dsmlun", timeout_s=3)
    for _ in range(2):
        assert all(o.startswith("ok") for o in run_polls([nas.pk]).values())
    with chromium_page() as page:
        log_in(page, live_server.url, "admin", "password")
        page.goto(f"{live_server.url}/storage/arrays/{nas.pk}/path/?start=now-1h&end=now")
        page.wait_for_selector("#path[data-loaded='1']", timeout=30_000)
        keys = page.evaluate("[...document.querySelectorAll('figure.path-chart')].map(f => f.dataset.key)")
        assert keys[:2] == ["where", "iops"] or keys[:3] == ["latency", "where", "iops"], keys
        drawn = page.evaluate(
            """() => { const c = document.querySelector("figure.path-chart[data-key='where'] canvas");
            const chart = Chart.getChart(c);
            return chart.data.datasets.map(d => [d.label, [...new Set(d.data.map(p => p.y))]]); }"""
        )
        assert dict((label, values) for label, values in drawn) == {
            "Read: in the array": [75],
            "Read: on the network": [25],
            "Write: in the array": [20],
            "Write: on the network": [80],
        }
        assert "vm-lun" in page.locator("figure.path-chart[data-key='where'] figcaption").inner_text()
