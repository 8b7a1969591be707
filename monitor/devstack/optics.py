"""A simulated switch's transceivers, as ENTITY-MIB and ENTITY-SENSOR-MIB serve them, in the shapes agents use:
sensors inside a module inside a port entity that ENTITY-MIB's alias table maps to the ifIndex, powers in dBm (in
ENTITY-SENSOR-MIB, or in CISCO-ENTITY-SENSOR-MIB with the modules' alarm thresholds); or sensors named only in their
description, "DOM RX Power Sensor for Ethernet11/1", powers in milliwatts (Arista EOS's shape). Built to RFC 3433,
RFC 6933 and CISCO-ENTITY-SENSOR-MIB, for tests and the demo."""

from __future__ import annotations

from dataclasses import dataclass

ENTITY = "1.3.6.1.2.1.47.1.1.1.1"
ALIAS = "1.3.6.1.2.1.47.1.3.2.1.2"
SENSOR = "1.3.6.1.2.1.99.1.1.1"
CISCO_SENSOR = "1.3.6.1.4.1.9.9.91.1.1.1.1"
CISCO_THRESHOLD = "1.3.6.1.4.1.9.9.91.1.2.1.1"
MINOR, MAJOR = 10, 20  # entSensorThresholdSeverity
LESS_THAN, GREATER_THAN = 1, 3  # entSensorThresholdRelation
# (low alarm, low warning, high warning, high alarm) of a typical 10GBASE-SR module, as its memory holds them
LEVELS = {
    "Temperature": (-5.0, 0.0, 70.0, 75.0),
    "Transmit Power": (-11.3, -7.3, -1.3, 1.7),
    "Receive Power": (-13.9, -9.9, -1.0, 2.0),
}
IF_INDEX = "1.3.6.1.2.1.2.2.1.1"
CHASSIS, PORT_CLASS, MODULE_CLASS, SENSOR_CLASS = 3, 10, 9, 8  # entPhysicalClass
WATTS, CELSIUS, DBM = 6, 8, 14
UNITS, MILLI = 9, 8


@dataclass(frozen=True)
class Optic:
    """One port's module: its ifIndex and port name, light levels (dBm; rx None: unlit) and temperature (°C)."""

    if_index: int
    port: str
    rx_dbm: float | None
    tx_dbm: float
    temperature_c: float


def _entity(index: int, descr: str, parent: int, kind: int, name: str) -> list[tuple[str, str, str]]:
    return [
        (f"{ENTITY}.2.{index}", "4", descr),
        (f"{ENTITY}.4.{index}", "2", str(parent)),
        (f"{ENTITY}.5.{index}", "2", str(kind)),
        (f"{ENTITY}.7.{index}", "4", name),
    ]


def _sensor(
    index: int, kind: int, scale: int, precision: int, raw: int, ok: bool = True, table: str = SENSOR
) -> list[tuple[str, str, str]]:
    return [
        (f"{table}.1.{index}", "2", str(kind)),
        (f"{table}.2.{index}", "2", str(scale)),
        (f"{table}.3.{index}", "2", str(precision)),
        (f"{table}.4.{index}", "2", str(raw)),
        (f"{table}.5.{index}", "2", "1" if ok else "2"),  # ok(1), unavailable(2)
    ]


def _thresholds(index: int, what: str) -> list[tuple[str, str, str]]:
    """The module's four alarm levels of one sensor, in tenths (its precision)."""
    rows = []
    low_alarm, low_warning, high_warning, high_alarm = LEVELS[what]
    for n, (severity, relation, level) in enumerate(
        ((MAJOR, LESS_THAN, low_alarm), (MINOR, LESS_THAN, low_warning), (MINOR, GREATER_THAN, high_warning),
         (MAJOR, GREATER_THAN, high_alarm)), start=1,
    ):  # fmt: skip
        rows += [
            (f"{CISCO_THRESHOLD}.2.{index}.{n}", "2", str(severity)),
            (f"{CISCO_THRESHOLD}.3.{index}.{n}", "2", str(relation)),
            (f"{CISCO_THRESHOLD}.4.{index}.{n}", "2", str(round(level * 10))),
        ]
    return rows


def contained(optics: list[Optic], cisco: bool = False) -> list[tuple[str, str, str]]:
    """Chassis 1 (with its own temperature sensor 2, no port's) holds a port entity per optic, mapped to its ifIndex,
    holding the module, holding three sensors in dBm and °C, tenths: in ENTITY-SENSOR-MIB, or (`cisco`) in
    CISCO-ENTITY-SENSOR-MIB with each sensor's four alarm levels."""
    table = CISCO_SENSOR if cisco else SENSOR
    rows = _entity(1, "Switch chassis", 0, CHASSIS, "Switch 1") + _entity(2, "Inlet temperature", 1, SENSOR_CLASS, "")
    rows += _sensor(2, CELSIUS, UNITS, 0, 31, table=table)
    for optic in optics:
        port, module = 1000 + optic.if_index * 10, 1000 + optic.if_index * 10 + 1
        rows += _entity(port, "Port container", 1, PORT_CLASS, "")  # only the alias table says which port
        rows.append((f"{ALIAS}.{port}.0", "6", f"{IF_INDEX}.{optic.if_index}"))
        rows += _entity(module, "SFP+ 10GBASE-SR", port, MODULE_CLASS, "SFP+ module")
        readings = (
            ("Temperature", CELSIUS, optic.temperature_c), ("Transmit Power", DBM, optic.tx_dbm),
            ("Receive Power", DBM, optic.rx_dbm),
        )  # fmt: skip
        for offset, (what, kind, value) in enumerate(readings, start=1):
            index = 10000 + module + offset
            rows += _entity(index, f"{what} Sensor", module, SENSOR_CLASS, f"{what} Sensor")
            raw = round((-40.0 if value is None else value) * 10)
            rows += _sensor(index, kind, UNITS, 1, raw, ok=value is not None, table=table)
            rows += _thresholds(index, what) if cisco else []
    return rows


def described(optics: list[Optic]) -> list[tuple[str, str, str]]:
    """EOS's shape: no alias table, empty names, the port only in each sensor's description; powers in milliwatts
    (scale milli, precision 4: 10^-4 mW a unit), temperature in tenths of °C; an unlit module's Rx reads 0 W."""
    rows = _entity(1, "Chassis", 0, CHASSIS, "")
    for optic in optics:
        base = 100_000 + optic.if_index * 100
        mw = {"RX": 0.0 if optic.rx_dbm is None else 10 ** (optic.rx_dbm / 10), "TX": 10 ** (optic.tx_dbm / 10)}
        for offset, way in enumerate(("RX", "TX"), start=1):
            rows += _entity(base + offset, f"DOM {way} Power Sensor for {optic.port}", 1, SENSOR_CLASS, "")
            rows += _sensor(base + offset, WATTS, MILLI, 4, round(mw[way] * 10_000))
        rows += _entity(base + 3, f"DOM Temperature Sensor for {optic.port}", 1, SENSOR_CLASS, "")
        rows += _sensor(base + 3, CELSIUS, UNITS, 1, round(optic.temperature_c * 10))
    return rows
