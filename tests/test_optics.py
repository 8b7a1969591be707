"""Transceiver optics (issue 42's port inventory): each port's receive and transmit power and module temperature, read
from ENTITY-SENSOR-MIB on real snmpsim agents in the two shapes agents serve it (sensors inside a module that
ENTITY-MIB's alias table maps to the port, powers in dBm; sensors named only by a description, powers in
milliwatts), scaled by RFC 3433's scale and precision, graphed per port, and alerted on by a rule that fires when a
receive level drops and clears when it comes back."""

from __future__ import annotations

import bz2
import csv
import io
import math
import re
from pathlib import Path

import pytest
import snmpsim_data
from django.test import Client

from monitor.devstack import fleet, services
from monitor.devstack.optics import Optic, contained, described
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_polls

ARISTA = "1.3.6.1.4.1.30065.1.3011.7050.3741.128"  # no shipped profile of its own: the generic one


def switch(community: str, optics: list[Optic], shape) -> fleet.SimDevice:
    ports = [fleet.SimPort(n, f"Ethernet{n}", speed_bps=10_000_000_000, mac=f"02:00:00:00:77:{n:02x}") for n in (1, 2)]
    ports += [fleet.SimPort(11, "Ethernet11/1", speed_bps=10_000_000_000, mac="02:00:00:00:77:0b")]
    return fleet.SimDevice(community, "Arista Networks EOS version 4.28", ARISTA, "leaf-1", ports, shape(optics))


HEALTHY = [Optic(1, "Ethernet1", -2.5, -1.9, 33.4), Optic(11, "Ethernet11/1", -3.1, -2.2, 35.0)]
DIMMED = [Optic(1, "Ethernet1", -14.2, -1.9, 33.4), Optic(11, "Ethernet11/1", -3.1, -2.2, 35.0)]
UNLIT = [Optic(2, "Ethernet2", None, -2.0, 30.0)]  # a module with no light in: no Rx reading at all


def odd(optics: list[Optic]) -> list[tuple[str, str, str]]:
    """EOS's shape with every sensor's precision 400, far outside the MIB's -8..9: 10^-400 overflows a float."""
    return [(oid, tag, "400" if oid.startswith("1.3.6.1.2.1.99.1.1.1.3.") else v) for oid, tag, v in described(optics)]


@pytest.fixture(scope="module")
def agents(tmp_path_factory):
    root = tmp_path_factory.mktemp("optics")
    for community, optics, shape in (
        ("ios", HEALTHY + UNLIT, contained),
        ("cisco", HEALTHY + UNLIT, lambda optics: contained(optics, cisco=True)),
        ("eos", HEALTHY + UNLIT, described),
        ("eos-dim", DIMMED + UNLIT, described),
        ("cisco-dim", DIMMED + UNLIT, lambda optics: contained(optics, cisco=True)),
        ("eos-dark", [Optic(1, "Ethernet1", None, -1.9, 33.4)], described),  # the far end went dark
        ("odd", HEALTHY, odd),
    ):
        switch(community, optics, shape).write(root / "data")
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-optics")
    yield port
    process.stop()


def polled(port: int, community: str, timeout: float = 3) -> dict[str, dict[str, float]]:
    from collectors.poll import poll_device
    from collectors.snmptypes import SnmpTarget
    from monitor.core import aio
    from monitor.devices.profiles import registry

    target = SnmpTarget("127.0.0.1", port, community=community, timeout=timeout)
    result = aio.run(poll_device(target, "d", None, profile=registry()["generic"], engine="fast"))
    assert not [e for e in result.errors if e.startswith("optics")], result.errors
    return {s.tags["optic"]: s.fields for s in result.samples if s.measurement == "optics"}


@pytest.mark.parametrize("community", ["ios", "cisco", "eos"])
def test_each_ports_light_levels_and_temperature_are_read_in_either_shape(agents, community):
    """Expected values are the planted ones: dBm planted in tenths read back exactly; milliwatts planted as
    10^(dBm/10) at 10^-4 mW read back within the rounding of that last digit."""
    optics = polled(agents, community)
    assert set(optics) == {"Ethernet1", "Ethernet11/1", "Ethernet2"}  # the chassis' own temperature is no port's
    tolerance = 0.05 if community != "eos" else 10 * math.log10(1 + 0.5e-4 / 10 ** (-3.1 / 10))
    for optic in HEALTHY:
        fields = optics[optic.port]
        assert fields["rx_power_dbm"] == pytest.approx(optic.rx_dbm, abs=tolerance)
        assert fields["tx_power_dbm"] == pytest.approx(optic.tx_dbm, abs=tolerance)
        assert fields["temperature_c"] == pytest.approx(optic.temperature_c, abs=0.05)
    if community == "eos":  # no light at all (0 mW): the floor of -40 dBm, never -inf, so a "below" rule sees it
        assert optics["Ethernet2"]["rx_power_dbm"] == -40.0
    else:  # the sensor says it is unavailable: no reading
        assert "rx_power_dbm" not in optics["Ethernet2"]
    assert optics["Ethernet2"]["tx_power_dbm"] == pytest.approx(-2.0, abs=tolerance)
    levels = {k: v for k, v in optics["Ethernet1"].items() if "warning" in k}
    if community == "cisco":  # the least severe level crossed first: minor below -9.9 dBm, not major below -13.9
        assert levels == pytest.approx(
            {"rx_low_warning_dbm": -9.9, "tx_low_warning_dbm": -7.3, "temperature_high_warning_c": 70.0}
        )
    else:
        assert levels == {}  # ENTITY-SENSOR-MIB serves no thresholds


@pytest.mark.django_db
def test_a_receive_level_rule_fires_when_the_light_dims_and_clears_when_it_returns(agents, clean_backends, admin_user):
    from monitor.alerts.models import AlertState, Rule
    from monitor.models import Graph

    leaf = Device.objects.create(name="leaf-1", host="127.0.0.1", port=agents, community="eos", timeout_s=3)
    run_polls([leaf.pk])  # discovery: the generic profile
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    graphs = set(Graph.objects.filter(device=leaf, template="optics").values_list("instance", flat=True))
    assert graphs == {"Ethernet1", "Ethernet11/1", "Ethernet2"}
    for port in ("Ethernet1", "Ethernet11/1"):  # the ports in use (Ethernet2's module has no fibre: -40 dBm)
        Rule.objects.create(
            name="Rx light low", metric="optic_rx", scope="series", device=leaf, instance=port, direction="below",
            fire_level=-12, clear_level=-11, for_polls=1,
        )  # fmt: skip
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    assert not AlertState.objects.filter(state="firing").exists()
    Device.objects.filter(pk=leaf.pk).update(community="eos-dim")  # Ethernet1's far end dims to -14.2 dBm
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    firing = {(s.instance, round(s.value, 1)) for s in AlertState.objects.filter(state="firing")}
    assert firing == {("Ethernet1", -14.2)}

    client = Client()
    client.force_login(admin_user)  # the port inventory shows each port's newest readings
    page = client.get("/ports/", {"device": leaf.pk}).content.decode()
    cells = {
        re.search(r"<td>(Ethernet[0-9/]+)</td>", row).group(1): re.sub(r"<[^>]+>", "", row.split('class="optics">')[1])
        for row in page.split("<tr")[2:]
        if 'class="optics">' in row
    }
    assert cells["Ethernet1"].startswith("Rx -14.2 / Tx -1.9 dBm, 33 °C")
    assert cells["Ethernet2"].startswith("Rx -40.0 / Tx -2.0 dBm, 30 °C")  # no light: the floor
    assert cells["Ethernet11/1"].startswith("Rx -3.1 / Tx -2.2 dBm, 35 °C")
    rows = list(
        csv.DictReader(io.StringIO(client.get("/ports/", {"device": leaf.pk, "format": "csv"}).content.decode()))
    )
    by_port = {row["port"]: (row["rx_dbm"], row["tx_dbm"], row["optic_temperature_c"]) for row in rows}
    assert by_port["Ethernet1"] == ("-14.2", "-1.9", "33.4")  # numbers, not text a spreadsheet is warned of
    assert float(by_port["Ethernet2"][0]) == -40.0
    Device.objects.filter(pk=leaf.pk).update(community="eos")
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    assert not AlertState.objects.filter(state="firing").exists()


@pytest.mark.django_db
def test_a_rule_relative_to_the_modules_own_warning_level_fires_below_it(agents, clean_backends):
    """CISCO-ENTITY-SENSOR-MIB gives each module's levels: "below its own low warning" needs no number typed in."""
    from monitor.alerts.models import AlertState, Rule

    leaf = Device.objects.create(name="leaf-2", host="127.0.0.1", port=agents, community="cisco", timeout_s=3)
    run_polls([leaf.pk])
    Rule.objects.create(
        name="Rx below the module's warning", metric="optic_rx", scope="device", device=leaf, direction="below",
        unit="warning", fire_level=0, clear_level=0.5, for_polls=1,
    )  # fmt: skip
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    assert not AlertState.objects.filter(state="firing").exists()  # -2.5 and -3.1 dBm: above -9.9
    Device.objects.filter(pk=leaf.pk).update(community="cisco-dim")
    assert all(o.startswith("ok") for o in run_polls([leaf.pk]).values())
    firing = {(s.instance, round(s.value, 1)) for s in AlertState.objects.filter(state="firing")}
    assert firing == {("Ethernet1", -14.2)}


RECORDINGS = Path(snmpsim_data.__file__).parent / "data"


def recording(path: Path) -> dict[str, tuple[str, str]]:
    """oid -> (tag, value text), as the recording has it."""
    found = {}
    for line in bz2.decompress(path.read_bytes()).decode(errors="replace").splitlines():
        oid, tag, value = [*line.split("|", 2), "", ""][:3]
        found[oid] = (tag, value)
    return found


def text(found: dict, oid: str) -> str:
    tag, value = found.get(oid, ("4", ""))
    return bytes.fromhex(value).decode(errors="replace") if tag == "4x" else value


def model(found: dict, table: str, port_of) -> dict[str, dict[str, float]]:
    """The readings a recording's own lines give: RFC 3433's arithmetic on each ok power (dBm, or watts as dBm)
    and temperature sensor whose entity text names a port, by `port_of` (a parse of that vendor's naming)."""
    out: dict[str, dict[str, float]] = {}
    for oid, (_, kind) in found.items():
        if not oid.startswith(f"{table}.1."):
            continue
        index = oid[len(table) + 3 :]
        number = lambda column, index=index: int(found.get(f"{table}.{column}.{index}", ("", "0"))[1])  # noqa: E731
        if kind not in ("6", "8", "14") or number(5) != 1:
            continue
        said = text(found, f"1.3.6.1.2.1.47.1.1.1.1.7.{index}") + " " + text(found, f"1.3.6.1.2.1.47.1.1.1.1.2.{index}")
        port = port_of(said)
        if port is None:
            continue
        value = number(4) * 10.0 ** (3 * (number(2) - 9)) / 10.0 ** number(3)
        if kind == "6":
            value = 10 * math.log10(value * 1000)
        field = (
            "temperature_c"
            if kind == "8"
            else "rx_power_dbm"
            if re.search("rx|receive", said, re.I)
            else "tx_power_dbm"
        )
        out.setdefault(port, {})[field] = value
    return out


CASES = {
    "arista-dcs-7150s": (
        "cloud/arista-dcs-7150s-52-cl.snmprec.bz2", "1.3.6.1.2.1.99.1.1.1",
        lambda said: (m.group(1) if (m := re.search(r"Sensor for (Ethernet\S+)", said)) else None),
    ),
    "cisco-c3750": (
        "network/switch/cisco-c3750.snmprec.bz2", "1.3.6.1.4.1.9.9.91.1.1.1.1",
        lambda said: (m.group(1) if (m := re.match(r"(Gi\S+) ", said)) else None),
    ),
    "cisco-10g": (
        "network/appliance/cisco-unknown-01.snmprec.bz2", "1.3.6.1.4.1.9.9.91.1.1.1.1",
        lambda said: (m.group(1) if (m := re.match(r"(Te\S+) ", said)) else None),
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    root = tmp_path_factory.mktemp("optics-recordings")
    (root / "data").mkdir()
    for community, (path, _, _) in CASES.items():
        (root / "data" / f"{community}.snmprec").write_bytes(bz2.decompress((RECORDINGS / path).read_bytes()))
    port = free_udp_port()
    process = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-optics-recordings")
    yield port
    process.stop()


@pytest.mark.parametrize("community", list(CASES))
def test_real_recordings_optics_match_their_own_lines(recorded, community):
    """Real devices' recordings (snmpsim-data): Arista's ENTITY-SENSOR-MIB in milliwatts, named "DOM RX Power Sensor
    for Ethernet5"; Cisco's CISCO-ENTITY-SENSOR-MIB in dBm, named "Gi1/0/1 Receive Power Sensor"."""
    path, table, port_of = CASES[community]
    expected = model(recording(RECORDINGS / path), table, port_of)
    found = polled(recorded, community, timeout=15)  # a big recording: snmpsim answers its walks slowly
    readings = {port: {k: v for k, v in fields.items() if "warning" not in k} for port, fields in found.items()}
    assert set(readings) == set(expected) and len(expected) >= 2
    for port, fields in expected.items():
        assert readings[port] == pytest.approx(fields, abs=1e-9), port


def test_a_real_modules_own_warning_levels_are_read(recorded):
    """cisco-unknown-01's 10G modules keep four levels a sensor (CISCO-ENTITY-SENSOR-MIB entSensorThresholdTable):
    the receive power's low warning is its least severe "less than" level, as the recording's lines give it."""
    found = recording(RECORDINGS / CASES["cisco-10g"][0])
    table, levels = "1.3.6.1.4.1.9.9.91.1.1.1.1", "1.3.6.1.4.1.9.9.91.1.2.1.1"
    names = {text(found, oid): oid.rsplit(".", 1)[1] for oid in found if oid.startswith("1.3.6.1.2.1.47.1.1.1.1.7.")}
    sensor = names["Te3/3 Receive Power Sensor"]
    below = [
        (int(found[f"{levels}.2.{key}"][1]), int(found[f"{levels}.4.{key}"][1]))
        for oid, (_, relation) in found.items()
        if oid.startswith(f"{levels}.3.{sensor}.") and relation in ("1", "2")
        for key in [oid[len(levels) + 3 :]]
    ]
    severity = min(s for s, _ in below)
    precision = int(found[f"{table}.3.{sensor}"][1])
    low_warning = max(v for s, v in below if s == severity) / 10**precision
    te33 = polled(recorded, "cisco-10g", timeout=15)["Te3/3"]
    assert te33["rx_low_warning_dbm"] == pytest.approx(low_warning, abs=1e-9)
    assert te33["rx_power_dbm"] < te33["rx_low_warning_dbm"]  # this module's light was already below it


def test_a_dark_fibre_reads_the_floor_and_an_odd_precision_costs_no_poll(agents):
    """0 mW (no light at all) is -40 dBm, SFF-8472's floor, so a "below" rule fires on the worst case; a precision
    the MIB does not allow is held to its range: the readings are odd, the poll and its ports are whole."""
    assert polled(agents, "eos-dark")["Ethernet1"]["rx_power_dbm"] == -40.0
    odd_readings = polled(agents, "odd")
    assert set(odd_readings) == {"Ethernet1", "Ethernet11/1"}  # held to precision 9: tiny values, but read


def test_the_plan_is_kept_so_a_poll_walks_only_the_sensors(agents):
    """The first poll walks the entity and alias tables to place each sensor; the next, given that plan, walks the
    sensor columns alone and reads the same; a plan of other ports is worked out again."""
    from collectors.optics import read_optics
    from collectors.sessions import open_session
    from collectors.snmptypes import SnmpTarget
    from monitor.core import aio

    ports = {1: "Ethernet1", 2: "Ethernet2", 11: "Ethernet11/1"}

    def read(known):
        session = open_session(SnmpTarget("127.0.0.1", agents, community="cisco", timeout=3), "fast")
        readings, plan = aio.run(read_optics(session, ports, known, 1000.0))
        return sorted(readings, key=lambda r: (r.port, r.lane, r.field)), plan, session.requests

    first, plan, asked = read(None)
    again, same, asked_again = read(plan)
    assert again == first and same == plan and asked_again < asked  # the sensor columns alone: 2 GETBULKs, not 6
    assert read({**plan, "ports": 0})[2] == asked  # other ports: the tables are walked again
    assert read({**plan, "at": 1000.0 - 86401})[2] == asked  # a day old: again
