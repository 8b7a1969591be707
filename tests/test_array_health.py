"""An array's health as its own tools show it first (issue 43): an EqualLogic served by snmpsim with a failed disk,
a disk predicted to fail, its RAID set reconstructing, a power supply without AC and everything else normal is
polled through the product's own poll path; the array page lists what is failed, rebuilding, degraded and warning
first, each with the MIB's own word, then every part that is ok."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone

import pytest

from monitor.devstack import fleet, services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_polls

pytestmark = pytest.mark.django_db(transaction=True)
EQL = "1.3.6.1.4.1.12740"
MEMBER = "1.1841966935"
# EQLDISK-MIB eqlDiskStatus by slot: on-line, failed, unhealthy (predicted to fail), spare
DISKS = {"0": 1, "1": 3, "2": 9, "3": 2}


def sick_array(community: str = "sick", sick: bool = True, done: int = 40_000) -> fleet.SimDevice:
    """The array as above, its rebuild `done` thousandths of a percent done; `sick=False`: the same parts, every one
    ok (the disk replaced, the rebuild done)."""
    array = fleet.equallogic_array(community, "eql-sick")
    array.extra += [(f"{EQL}.2.1.13.1.1.{MEMBER}", "2", "4" if sick else "1")]  # eqlMemberRaidStatus
    array.extra += [(f"{EQL}.2.1.13.1.5.{MEMBER}", "66", str(done if sick else 0))]  # eqlMemberRaidProgress
    for n, (name, status) in enumerate((("Power Cooling Module 0", 1), ("PCM <i>1</i>", 2 if sick else 1)), 1):
        array.extra += [
            (f"{EQL}.2.1.8.1.2.{MEMBER}.{n}", "4", name),
            (f"{EQL}.2.1.8.1.3.{MEMBER}.{n}", "2", str(status)),
        ]
    if not sick:  # volume 2's snapshots deleted: half its reserve unused, below the array's warning level
        free = f"{EQL}.5.1.7.7.1.3.1841966935.2"  # volumes are indexed by member and volume
        array.extra = [row for row in array.extra if row[0] != free] + [(free, "2", str(100_000))]
    for n, (slot, status) in enumerate(DISKS.items(), 1):
        array.extra += [
            (f"{EQL}.3.1.1.1.11.{MEMBER}.{n}", "4", slot),
            (f"{EQL}.3.1.1.1.8.{MEMBER}.{n}", "2", str(status if sick else 1)),
            (f"{EQL}.3.1.1.1.6.{MEMBER}.{n}", "2", "953869"),
        ]
    return array


# EQLDISK-MIB by slot: (eqlDiskTypeEnum, eqlDiskStatusLifetime, eqlDiskHealth, eqlDiskStatus): a SAS disk that
# serves 0 life; a SAS SSD with 12 % left; a SATA SSD past its SMART threshold; a failed SAS disk, its SMART not
# available
WORN = {"0": (2, 0, 1, 1), "1": (4, 12, 1, 1), "2": (3, 97, 2, 1), "3": (2, 0, 0, 3)}


def worn_array(community: str = "worn", primary: int = 1) -> fleet.SimDevice:
    array = fleet.equallogic_array(community, "eql-worn")
    for n, (slot, (kind, life, smart, status)) in enumerate(WORN.items(), 1):
        array.extra += [
            (f"{EQL}.3.1.1.1.11.{MEMBER}.{n}", "4", slot),
            (f"{EQL}.3.1.1.1.8.{MEMBER}.{n}", "2", str(status)),
            (f"{EQL}.3.1.1.1.12.{MEMBER}.{n}", "2", str(kind)),
            (f"{EQL}.3.1.1.1.17.{MEMBER}.{n}", "2", str(smart)),
            (f"{EQL}.3.1.2.1.9.{MEMBER}.{n}", "65", str(life)),
        ]
    # EQLCONTROLLER-MIB by slot: (eqlControllerBatteryStatus, eqlControllerNVRAMBattery,
    # eqlControllerPrimaryOrSecondary): the primary's cache battery at its end of life, the secondary's charging on an
    # older module without NVRAM battery
    for slot, (battery, nvram) in {1: (9, 1), 2: (3, 0)}.items():
        role = 1 if slot == primary else 2
        array.extra += [
            (f"{EQL}.4.1.1.1.5.{MEMBER}.{slot}", "2", str(battery)),
            (f"{EQL}.4.1.1.1.32.{MEMBER}.{slot}", "2", str(nvram)),
            (f"{EQL}.4.1.1.1.9.{MEMBER}.{slot}", "2", str(role)),
        ]
    return array


def two_member_group() -> fleet.SimDevice:
    """A group of two members, each with a disk in slot 0 and a "Backplane sensor 0": member 1's disk on-line at
    30 °C, member 2's failed at 45 °C (indexed group.member.n)."""
    array = fleet.equallogic_array("pair", "eql-pair")
    second = "1.2"
    array.extra += [(f"{EQL}.2.1.1.1.9.{second}", "4", "eql-member-2"), (f"{EQL}.2.1.5.1.1.{second}", "2", "1")]
    array.extra = [row for row in array.extra if not row[0].startswith(f"{EQL}.2.1.6.1.")]  # its own sensors only
    for member, status, celsius in ((MEMBER, 1, 30), (second, 3, 45)):
        array.extra += [
            (f"{EQL}.3.1.1.1.11.{member}.1", "4", "0"),
            (f"{EQL}.3.1.1.1.8.{member}.1", "2", str(status)),
            (f"{EQL}.2.1.6.1.2.{member}.1", "4", "Backplane sensor 0"),
            (f"{EQL}.2.1.6.1.3.{member}.1", "2", str(celsius)),
            (f"{EQL}.2.1.6.1.4.{member}.1", "2", "1"),
            (f"{EQL}.2.1.6.1.6.{member}.1", "2", "40"),
        ]
    return array


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    root = tmp_path_factory.mktemp("health")
    sick_array().write(root / "data")
    worn_array().write(root / "data")
    worn_array("failover", primary=2).write(root / "data")  # the same array after its control modules failed over
    two_member_group().write(root / "data")
    sick_array("well", sick=False).write(root / "data")
    sick_array("later", done=70_000).write(root / "data")  # the same rebuild 30 points further on
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-health")
    yield port
    process.stop()


def test_the_array_page_lists_what_is_wrong_first_in_the_arrays_own_words(agent, clean_backends, client, admin_user):
    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="sick", timeout_s=3)
    for _ in range(2):
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    array.refresh_from_db()
    assert array.profile == "dell-equallogic"
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{array.pk}/?range=1h").content.decode()
    panel = page.split('<section id="array-health">')[1].split("</section>")[0]
    rows = [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in row.split("</td>")[:4]]
        for body in panel.split("<tbody>")[1:]
        for row in body.split("</tbody>")[0].split("</tr>")[:-1]
    ]
    assert rows[:5] == [
        ["failed", "Disk", "eql-member-1 1", "failed"],
        ["rebuilding", "Member RAID", "eql-member-1", "reconstructing 40 % done"],  # no end while it does not move
        [
            "degraded",
            "Power supply",
            "eql-member-1 PCM &lt;i&gt;1&lt;/i&gt;",
            "no-ac-power",
        ],  # a device string, escaped
        ["warning", "Disk", "eql-member-1 2", "unhealthy"],
        # ok, but its snapshot reserve is used past the array's own warning level (the fleet's volume 2: 85 % of 80 %)
        ["near its reserve", "Volume", "vmfs-datastore-2 default", "available snapshot reserve 85 % used"],
    ]
    assert "1 failed, 1 rebuilding, 1 degraded, 1 warning, 1 near its reserve" in panel
    assert panel.index("unhealthy") < panel.index("<details") < panel.index("spare")  # ok parts folded under it
    ok = rows[5:]
    assert {tuple(r[1:3]) for r in ok} >= {
        ("Disk", "eql-member-1 0"),
        ("Disk", "eql-member-1 3"),
        ("Power supply", "eql-member-1 Power Cooling Module 0"),
    }
    assert all(r[0] == "ok" for r in ok) and ["ok", "Disk", "eql-member-1 3", "spare"] in ok
    assert ["ok", "Member health", "eql-member-1", "normal"] in ok and [
        "ok",
        "Temperature",
        "eql-member-1 Backplane sensor 0",
        "normal",
    ] in ok


def test_the_built_in_array_alert_fires_for_each_part_not_ok_and_clears_when_it_is(agent, clean_backends, admin_user):
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState, Event

    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="sick", timeout_s=3)
    run_polls([array.pk])  # discovery: the profile is found
    array.refresh_from_db()
    admin_user.email = "ops@example.com"
    admin_user.save()
    defaults.enable(array, "array_health", admin_user)
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    firing = dict(AlertState.objects.filter(state="firing").values_list("instance", "value"))
    assert firing == {
        "Disk eql-member-1 1": 4.0,  # failed
        "Member RAID eql-member-1": 3.0,  # rebuilding
        "Power supply eql-member-1 PCM <i>1</i>": 2.0,  # degraded
        "Disk eql-member-1 2": 1.0,  # warning: predicted to fail
    }
    assert AlertState.objects.filter(state="ok", instance="Disk eql-member-1 0").exists()  # watched, and ok
    Device.objects.filter(pk=array.pk).update(community="well")  # the disk replaced, the rebuild done
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    assert not AlertState.objects.exclude(state="ok").exists()
    cleared = set(Event.objects.filter(kind="clear").values_list("state__instance", flat=True))
    assert cleared == set(firing)


def test_a_rebuild_says_how_far_it_is_and_when_it_will_end_at_its_rate(agent, clean_backends, client, admin_user):
    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="sick", timeout_s=3)
    run_polls([array.pk])
    run_polls([array.pk])
    first = time.time()
    Device.objects.filter(pk=array.pk).update(community="later")  # 40 % done, then 70 %
    while time.time() < first + 2:  # a rate needs the two polls apart
        time.sleep(0.1)
    run_polls([array.pk])
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{array.pk}/?range=1h").content.decode()
    row = next(r for r in page.split("<tr")[1:] if "reconstructing" in r)
    found = re.search(r"70 % done, ends about (\d{4}-\d\d-\d\d \d\d:\d\d) UTC", row)
    assert found, row
    # 30 points in the seconds between the polls: the remaining 30 take as long again, within the minute
    ends = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc).timestamp()
    assert first - 60 <= ends <= time.time() + 120


def test_each_state_change_is_an_event_marked_on_the_volume_graphs_and_said_on_the_device_page(
    agent, clean_backends, client, admin_user
):
    from monitor.events.models import Event

    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="well", timeout_s=3)
    for _ in range(2):  # discovery, then a poll of the profile's tables: every part ok, nothing to tell
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    assert not Event.objects.filter(kind="health_changed").exists()
    client.force_login(admin_user)
    page = client.get(f"/devices/{array.pk}/").content.decode()
    health = page.split('id="device-health">')[1].split("</dd>")[0]
    assert health.startswith("every part ok (") and "#array-health" in health

    Device.objects.filter(pk=array.pk).update(community="sick")
    for _ in range(2):  # the second poll reads the same states: no event again
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    went = Event.objects.filter(device=array, kind="health_changed").order_by("severity", "text")
    assert [(e.severity, e.text) for e in went] == [
        (3, "Disk eql-member-1 1: ok → failed"),
        (4, "Disk eql-member-1 2: ok → warning (unhealthy)"),
        (4, "Member RAID eql-member-1: ok → rebuilding (reconstructing)"),
        (4, "Power supply eql-member-1 PCM <i>1</i>: ok → degraded (no-ac-power)"),
    ]
    page = client.get(f"/devices/{array.pk}/").content.decode()
    health = re.sub(r"\s+", " ", page.split('id="device-health">')[1].split("</dd>")[0])
    assert "<b>1 failed, 1 rebuilding, 1 degraded, 1 warning</b>" in health
    chunks = [chunk.split('">', 1) for chunk in health.split('<span class="part ')[1:]]
    said = [(cls, re.sub(r"<[^>]+>", "", text).split(" since ")[0].strip()) for cls, text in chunks]
    assert said == [
        ("state-failed", "failed Disk eql-member-1 1"),
        ("state-rebuilding", "rebuilding Member RAID eql-member-1 (reconstructing)"),
        (
            "state-degraded",
            "degraded Power supply eql-member-1 PCM &lt;i&gt;1&lt;/i&gt; (no-ac-power)",
        ),  # a device string, escaped
        ("state-warning", "warning Disk eql-member-1 2 (unhealthy)"),
    ]
    assert "<i>1</i>" not in page

    # every graph of the array draws them, its volume graphs too: device-wide events
    volume = next(g for g in array.graphs.all() if g.template.startswith("volume"))
    marked = client.get(f"/api/events/markers?range=1h&graph={volume.pk}").json()["events"]
    assert sorted(m["text"] for m in marked if m["kind"] == "health_changed") == sorted(e.text for e in went)

    Device.objects.filter(pk=array.pk).update(community="well")  # the disk replaced, the rebuild done, AC back
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    back = Event.objects.filter(device=array, kind="health_changed", severity=5).order_by("text")
    assert [e.text for e in back] == [
        "Disk eql-member-1 1: failed → ok (on-line)",
        "Disk eql-member-1 2: warning → ok (on-line)",
        "Member RAID eql-member-1: rebuilding → ok",  # eqlMemberRaidStatus ok(1): the word is the state's
        "Power supply eql-member-1 PCM <i>1</i>: degraded → ok (on-and-operating)",
    ]
    assert back[0].detail == {"part": "Disk eql-member-1 1", "state": "ok", "was": "failed", "word": "on-line"}


def test_a_volumes_snapshot_reserve_past_the_arrays_own_level_fires_and_clears(agent, clean_backends, admin_user):
    """EQLVOLUME-MIB: each volume's reserve (ReservedSpace, MB), what of it is unused (ReservedSpaceAvail) and the
    level the array warns at (SnapWarningLevel, % unused): the fleet's volumes 1, 2, 3 have 100,000, 200,000 and
    300,000 MB reserved, 60 %, 15 % and 90 % of it unused, and warn below 20 % unused (80 % used)."""
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState, Event
    from monitor.timeseries import tiers
    from monitor.timeseries.client import run

    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="sick", timeout_s=3)
    run_polls([array.pk])  # discovery
    array.refresh_from_db()
    admin_user.email = "ops@example.com"
    admin_user.save()
    defaults.enable(array, "snapshot_reserve", admin_user)
    for _ in range(3):  # the rule's default hold: three polls past the level
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    firing = dict(AlertState.objects.filter(state="firing").values_list("instance", "value"))
    assert firing == {"vmfs-datastore-2": pytest.approx(85.0)}
    script = (
        'from(bucket: p_bucket) |> range(start: -1h) |> filter(fn: (r) => r._measurement == "volume"'
        " and r.device == p_device and r._field =~ /^snapshot_/) |> last()"
    )
    params = {"p_bucket": tiers.tiers()[0].bucket, "p_device": str(array.pk)}
    found = {(t.group["volume"], t.group["_field"]): t.rows[0][1] for t in run(script, params) if t.rows}
    mib = 1048576
    for volume, free in ((1, 60), (2, 15), (3, 90)):
        name = f"vmfs-datastore-{volume}"
        assert found[(name, "snapshot_reserve_bytes")] == 100_000 * volume * mib
        assert found[(name, "snapshot_free_bytes")] == free * 1000 * volume * mib
        assert found[(name, "snapshot_used_pct")] == pytest.approx(100 - free)
        assert found[(name, "snapshot_warning_pct")] == 80

    Device.objects.filter(pk=array.pk).update(community="well")  # snapshots deleted: volume 2 at 50 % used
    for _ in range(3):
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    assert not AlertState.objects.filter(state="firing").exists()
    assert set(Event.objects.filter(kind="clear").values_list("state__instance", flat=True)) == {"vmfs-datastore-2"}


def test_a_poll_older_than_what_a_part_last_saw_changes_nothing_and_unchanged_polls_write_nothing(
    agent, clean_backends
):
    from datetime import timedelta

    from collectors.samples import Sample
    from monitor.devices.profiles import registry
    from monitor.events.models import Event
    from monitor.storage import partstates
    from monitor.storage.models import PartState

    array = Device.objects.create(name="eql-sick", host="127.0.0.1", port=agent, community="sick", timeout_s=3)
    for _ in range(2):
        assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    array.refresh_from_db()
    disk = PartState.objects.get(device=array, part="Disk eql-member-1 1")
    assert (disk.state, disk.word) == ("failed", "failed")
    profile = registry()[array.profile]
    # a batch that finished late: its poll, an hour before the newest, read the disk on-line
    late = disk.seen_at - timedelta(hours=1)
    back = [Sample("disk", {"device": str(array.pk), "disk": "eql-member-1 1"}, {"status": 1}, late.timestamp())]
    assert partstates.record(array, profile, back, late) == []
    assert PartState.objects.get(pk=disk.pk).state == "failed"
    # the same state a minute later: nothing to write, not even when it was seen
    again = disk.seen_at + timedelta(minutes=1)
    same = [Sample("disk", {"device": str(array.pk), "disk": "eql-member-1 1"}, {"status": 3}, again.timestamp())]
    assert partstates.record(array, profile, same, again) == []
    assert PartState.objects.get(pk=disk.pk).seen_at == disk.seen_at
    # and once SEEN_EVERY has passed, when it was seen is written, still without an event
    later = disk.seen_at + partstates.SEEN_EVERY
    same = [Sample("disk", {"device": str(array.pk), "disk": "eql-member-1 1"}, {"status": 3}, later.timestamp())]
    events = Event.objects.filter(kind="health_changed").count()
    assert partstates.record(array, profile, same, later) == []
    assert PartState.objects.get(pk=disk.pk).seen_at == later
    assert Event.objects.filter(kind="health_changed").count() == events


# eqliscsiRemoteReplicaTable rows of each volume at site 1: (volume, snap, eqliscsiRemoteReplAdminStatus, hours ago):
# volume 1's newest complete replica is 30 h old (one in progress, 5 minutes old, is not a replica yet); volume 2's 40 h
# (an incomplete one of an hour ago never arrived); volume 3's 2 h
REPLICAS = [(1, 1, 0, 54), (1, 2, 0, 30), (1, 3, 2, 1 / 12), (2, 1, 0, 40), (2, 2, 3, 1), (3, 1, 0, 2)]


def replicas(now: float) -> list[tuple[str, str, str]]:
    rows = []
    for volume, snap, status, hours in REPLICAS:
        index = f"{MEMBER.split('.')[1]}.{volume}.1.{volume}.{snap}"  # member.volume.site.remote volume.snap
        rows += [(f"{EQL}.5.1.7.17.1.6.{index}", "2", str(status))]
        rows += [(f"{EQL}.5.1.7.17.1.7.{index}", "65", str(int(now - hours * 3600)))]
    return rows


@pytest.fixture(scope="module")
def replicating(tmp_path_factory):
    """EQLVOLUME-MIB eqliscsiVolumeReplOperStatus of volumes 1, 2, 3 to partner site 1 "dr-site": farEndDown,
    paused, completed ("repl"); all completed ("repl-ok")."""
    root = tmp_path_factory.mktemp("replication")
    array = fleet.equallogic_array("repl", "eql-repl", replication={1: 4, 2: 7, 3: 6})
    array.extra += replicas(time.time())
    array.write(root / "data")
    fleet.equallogic_array("repl-ok", "eql-repl", replication={1: 6, 2: 6, 3: 6}).write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-replication")
    yield port
    process.stop()


def test_replication_to_a_partner_is_a_part_named_by_volume_and_partner_and_alerts_like_one(
    replicating, clean_backends, admin_user
):
    """A row of eqliscsiVolumeReplicationStatusTable is indexed member.volume.site: the volume is named by its first
    two index parts (its row in the volume table), the partner by the third; farEndDown is failed, paused degraded."""
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState
    from monitor.core import aio
    from monitor.devices.profiles import registry

    target = SnmpTarget("127.0.0.1", replicating, community="repl", timeout=3)
    polled = aio.run(poll_device(target, "r", None, profile=registry()["dell-equallogic"], engine="fast"))
    rows: dict[tuple, dict] = {}  # each series' fields, its replication status and its lag together
    for sample in (s for s in polled.samples if s.measurement == "replication"):
        rows.setdefault((sample.tags["volume"], sample.tags["partner"]), {}).update(sample.fields)
    assert set(rows) == {(f"vmfs-datastore-{v}", "dr-site") for v in (1, 2, 3)}
    assert [rows[(f"vmfs-datastore-{v}", "dr-site")]["status"] for v in (1, 2, 3)] == [4, 7, 6]
    assert rows[("vmfs-datastore-2", "dr-site")]["remaining_bytes"] == 2048 * 2**20  # MB, as the MIB counts

    array = Device.objects.create(name="eql-repl", host="127.0.0.1", port=replicating, community="repl", timeout_s=3)
    run_polls([array.pk])  # discovery: the profile is found
    defaults.enable(array, "array_health", admin_user)
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    firing = dict(AlertState.objects.filter(state="firing").values_list("instance", "value"))
    assert {k: v for k, v in firing.items() if k.startswith("Replication")} == {
        "Replication vmfs-datastore-1 dr-site": 4.0,  # failed: the partner group cannot be reached
        "Replication vmfs-datastore-2 dr-site": 2.0,  # degraded: paused, no replica made
    }
    assert AlertState.objects.filter(state="ok", instance="Replication vmfs-datastore-3 dr-site").exists()
    Device.objects.filter(pk=array.pk).update(community="repl-ok")
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    assert not AlertState.objects.filter(instance__startswith="Replication").exclude(state="ok").exists()


def test_how_far_each_replication_is_behind_is_the_age_of_its_newest_complete_replica(
    replicating, clean_backends, admin_user, client
):
    """eqliscsiRemoteReplTimeStamp of each replica a volume keeps at its partner: the newest one that is complete
    (AdminStatus none(0)) says how far behind the partner is; the built-in lag alert (36 h) fires for volume 2 only."""
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState
    from monitor.core import aio
    from monitor.devices.profiles import registry

    target = SnmpTarget("127.0.0.1", replicating, community="repl", timeout=3)
    polled = aio.run(poll_device(target, "r", None, profile=registry()["dell-equallogic"], engine="fast"))
    lags = [(s.tags["volume"], s.fields["lag_s"]) for s in polled.samples if "lag_s" in s.fields]
    assert sorted(v for v, _ in lags) == [f"vmfs-datastore-{v}" for v in (1, 2, 3)]  # one a volume and partner
    for volume, lag in lags:
        hours = {"vmfs-datastore-1": 30, "vmfs-datastore-2": 40, "vmfs-datastore-3": 2}[volume]
        assert hours * 3600 <= lag < hours * 3600 + 600  # the fixture's start to this poll: well under 10 minutes

    array = Device.objects.create(name="eql-repl", host="127.0.0.1", port=replicating, community="repl", timeout_s=3)
    run_polls([array.pk])
    defaults.enable(array, "replication_lag", admin_user)
    assert all(o.startswith("ok") for o in run_polls([array.pk]).values())
    firing = set(
        AlertState.objects.filter(state="firing", rule__builtin="replication_lag").values_list("instance", flat=True)
    )
    assert firing == {"vmfs-datastore-2 dr-site"}
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{array.pk}/").content.decode()
    assert "1 d 16 h behind" in page and "1 d 6 h behind" in page and "2 h 0" in page
    panel = page.split('<section id="array-health">')[1].split("</section>")[0]
    first = panel.split("<details")[0]  # what wants looking at, before the folded ok parts
    lagging = re.findall(r'data-concern="lagging">.*?<td>Replication</td>\s*<td>([^<]*)</td>', first, re.S)
    assert lagging == ["vmfs-datastore-2 dr-site"]  # past the built-in 36 h; the 30-h one is not (yet)


def test_smart_tripped_is_a_warning_only_ssds_have_a_remaining_life_and_controllers_batteries_are_read(agent):
    """EqualLogic's eqlDiskHealth and, on the disks eqlDiskTypeEnum calls an SSD, eqlDiskStatusLifetime: a spinning
    disk's 0 is not a worn-out SSD, so the life rule sees the two SSDs only."""
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.alerts.rules import METRICS, observe
    from monitor.core import aio
    from monitor.devices.profiles import registry
    from monitor.storage.health import readings

    profile = registry()["dell-equallogic"]
    target = SnmpTarget("127.0.0.1", agent, community="worn", timeout=3.0, retries=1)
    result = aio.run(poll_device(target, "worn", None, profile=profile, engine="fast"))
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    smart = {part: seen for part, seen in found.items() if part.startswith("Disk SMART")}
    assert smart == {
        "Disk SMART eql-member-1 0": ("ok", "smart-ok"),
        "Disk SMART eql-member-1 1": ("ok", "smart-ok"),
        "Disk SMART eql-member-1 2": ("warning", "smart-tripped"),
        "Disk SMART eql-member-1 3": ("ok", "smart-status-not-available"),  # off-line or failed: its status says which
    }
    assert found["Disk eql-member-1 3"] == ("failed", "failed")
    controllers = {part: seen for part, seen in found.items() if part.startswith("Controller")}
    assert controllers == {
        "Controller battery eql-member-1 1": ("degraded", "end-of-life"),  # the cache no longer protected
        "Controller NVRAM battery eql-member-1 1": ("ok", "good"),
        "Controller role eql-member-1 1": ("ok", "primary"),
        "Controller battery eql-member-1 2": ("ok", "good-battery-is-charging"),
        "Controller NVRAM battery eql-member-1 2": ("ok", "not-present"),  # an older module has none
        "Controller role eql-member-1 2": ("ok", "secondary"),
    }
    life = {s.tags["disk"]: s.fields["remaining_life_pct"] for s in result.samples if "remaining_life_pct" in s.fields}
    assert life == {"eql-member-1 1": 12, "eql-member-1 2": 97}
    assert all("disk_type" not in s.fields for s in result.samples)  # read to choose the rows, not kept
    seen = {o.instance: o.value for o in observe(METRICS["disk_life"], result.samples, "", profile)}
    assert seen == {"eql-member-1 1": 12.0, "eql-member-1 2": 97.0}


def test_two_members_disks_and_sensors_in_the_same_slot_are_two_parts_not_one(agent):
    """A group reports every member's rows: member 2's failed disk 0 is not hidden by member 1's on-line disk 0, and
    each member's "Backplane sensor 0" is its own temperature target and graph."""
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.alerts.rules import METRICS, observe
    from monitor.core import aio
    from monitor.devices.profiles import registry
    from monitor.storage.health import readings

    profile = registry()["dell-equallogic"]
    target = SnmpTarget("127.0.0.1", agent, community="pair", timeout=3.0, retries=1)
    result = aio.run(poll_device(target, "pair", None, profile=profile, engine="fast"))
    disks = {part: state for part, state, _ in readings(profile, result.samples) if part.startswith("Disk ")}
    assert disks == {"Disk eql-member-1 0": "ok", "Disk eql-member-2 0": "failed"}
    seen = {o.instance: o.value for o in observe(METRICS["temperature"], result.samples, "", profile)}
    assert seen == {"eql-member-1 Backplane sensor 0": 30.0, "eql-member-2 Backplane sensor 0": 45.0}
    from monitor.devices.inventory import ensure_graphs
    from monitor.models import Graph

    device = Device.objects.create(name="eql-pair", host="127.0.0.1", port=agent, community="pair")
    ensure_graphs(device, profile, result.samples)
    graphs = set(Graph.objects.filter(device=device, template="temperature").values_list("instance", flat=True))
    assert graphs == {"eql-member-1 Backplane sensor 0", "eql-member-2 Backplane sensor 0"}  # a graph each


def test_a_failover_is_an_event_though_both_control_modules_stay_ok_and_the_built_in_rule_mails_it(agent, admin_user):
    """eqlControllerPrimaryOrSecondary says `word_events`: slot 1 going from primary to secondary (and slot 2 the other
    way) is one event each on the timeline, though their state stays ok (and nothing else of the array changed)."""
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.alerts import defaults
    from monitor.alerts.models import AlertState
    from monitor.alerts.models import Event as AlertEvent
    from monitor.core import aio
    from monitor.devices.profiles import registry
    from monitor.storage import partstates

    profile = registry()["dell-equallogic"]
    device = Device.objects.create(name="eql-worn", host="127.0.0.1", port=agent, community="worn")
    admin_user.email = "ops@example.com"
    admin_user.save()
    rule = defaults.enable(device, "controller_failover", admin_user)

    def poll(community: str):
        target = SnmpTarget("127.0.0.1", agent, community=community, timeout=3.0, retries=1)
        return aio.run(poll_device(target, community, None, profile=profile, engine="fast")).samples

    partstates.record(device, profile, poll("worn"))
    events = partstates.record(device, profile, poll("failover"))
    assert sorted(e.text for e in events) == [
        "Controller role eql-member-1 1: ok (primary) → ok (secondary)",
        "Controller role eql-member-1 2: ok (secondary) → ok (primary)",
    ]
    assert all(e.severity == 5 for e in events)  # a notice: nothing is broken
    assert AlertState.objects.get(rule=rule, device=device).state == "firing"  # one alert for the array
    fired = AlertEvent.objects.get(rule=rule, kind="fire")
    assert fired.mail == "queued" and fired.detail.startswith("Controller role eql-member-1 ")
