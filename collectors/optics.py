"""Transceiver optics (digital diagnostics): each port's optical receive and transmit power, and the module's
temperature, from the standard MIBs, read with the poll where a profile asks (`interfaces: counters: [optics]`).

Sources:
- ENTITY-SENSOR-MIB (RFC 3433) entPhySensorTable (1.3.6.1.2.1.99.1.1.1: .1 type, .2 scale, .3 precision, .4 value,
  .5 oper status), indexed by entPhysicalIndex. A value is value x 10^(3 x (scale - 9)) x 10^-precision (scale:
  yocto(1) .. units(9) .. yotta(17)). Power is dBm(14), or watts(6) on some agents (Arista's EOS: milliwatts),
  turned into dBm; celsius(8) is the module's temperature. A sensor whose oper status is not ok(1), or a power of
  0 W (an unlit optic), is left out: no reading, not a wrong one.
- ENTITY-MIB (RFC 6933) entPhysicalDescr (.2), entPhysicalContainedIn (.4) and entPhysicalName (.7) under
  1.3.6.1.2.1.47.1.1.1.1, and entAliasMappingIdentifier (1.3.6.1.2.1.47.1.3.2.1.2: the ifIndex OID a physical
  entity is): a sensor's port is the first entity up its containment that maps to an interface, or whose name or
  description has the port's name as a word ("DOM RX Power Sensor for Ethernet11/1").
- CISCO-ENTITY-SENSOR-MIB entSensorValueTable (1.3.6.1.4.1.9.9.91.1.1.1.1, the same five columns, codes and index),
  read where the standard table has no power sensor; and its entSensorThresholdTable (1.3.6.1.4.1.9.9.91.1.2.1.1:
  .2 severity, .3 relation, .4 value, indexed by sensor and threshold), the module's own alarm levels: the least
  severe "less than" level of a power sensor is its low warning, the least severe "greater than" level of a
  temperature its high warning.
Receive or transmit is said by the sensor's name or description (rx, receive; tx, transmit); a lane by "lane N".
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from collectors.sessions import Session
from collectors.snmptypes import SnmpValue

SENSOR = "1.3.6.1.2.1.99.1.1.1"
COLUMNS = [f"{SENSOR}.{n}" for n in (1, 2, 3, 4, 5)]
TYPE, SCALE, PRECISION, VALUE, STATUS = COLUMNS
ENTITY = "1.3.6.1.2.1.47.1.1.1.1"
DESCR, CONTAINED_IN, NAME = f"{ENTITY}.2", f"{ENTITY}.4", f"{ENTITY}.7"
ALIAS = "1.3.6.1.2.1.47.1.3.2.1.2"
CISCO = "1.3.6.1.4.1.9.9.91.1.1.1.1"
CISCO_COLUMNS = [f"{CISCO}.{n}" for n in (1, 2, 3, 4, 5)]
THRESHOLD = "1.3.6.1.4.1.9.9.91.1.2.1.1"
SEVERITY, RELATION, LEVEL = (f"{THRESHOLD}.{n}" for n in (2, 3, 4))
LESS, GREATER = {1, 2}, {3, 4}  # lessThan, lessOrEqual; greaterThan, greaterOrEqual
IF_INDEX_OID = "1.3.6.1.2.1.2.2.1.1."
WATTS, CELSIUS, DBM, OK = 6, 8, 14, 1
MAX_SENSORS = 5000
MAX_DEPTH = 8  # containment hops from a sensor to its port
RX = re.compile(r"\b(rx|receive[rd]?)\b|rx[ _-]?power", re.I)
TX = re.compile(r"\b(tx|transmit(ter|ted)?)\b|tx[ _-]?power", re.I)
LANE = re.compile(r"\blane\s*(\d{1,2})\b", re.I)


@dataclass(frozen=True)
class Reading:
    """One optic sensor's reading: its port, lane ("" for a single-lane module), field and value."""

    port: str
    lane: str
    field: str  # rx_power_dbm, tx_power_dbm or temperature_c; or the module's own level: rx_low_warning_dbm...
    value: float


WARNINGS = {
    "rx_power_dbm": "rx_low_warning_dbm",
    "tx_power_dbm": "tx_low_warning_dbm",
    "temperature_c": "temperature_high_warning_c",
}


def sensor_value(raw: int, scale: int, precision: int) -> float:
    """ENTITY-SENSOR-MIB's encoding: value x 10^(3 x (scale - 9)) x 10^-precision (a division for a negative
    exponent, so 419 tenths are 41.9, not 41.900000000000006)."""
    exponent = 3 * (scale - 9) - precision
    return raw * 10.0**exponent if exponent >= 0 else raw / 10.0**-exponent


def _int(value: SnmpValue | None) -> int | None:
    return int(value.value) if value is not None and value.kind in ("int", "gauge") else None


async def read_optics(session: Session, ports: dict[int, str]) -> list[Reading]:
    """The optic readings of the ports `ports` (ifIndex -> name); [] when the device serves no optic sensor."""
    found = await session.walk(COLUMNS + CISCO_COLUMNS, MAX_SENSORS)  # one request where neither is served
    sensors = {column: found[column] for column in COLUMNS}
    kinds = {i: _int(v) for i, v in sensors[TYPE].items() if len(i) == 1}
    levels: dict = {}
    if not any(kind in (WATTS, DBM) for kind in kinds.values()):
        sensors = {ours: found[theirs] for ours, theirs in zip(COLUMNS, CISCO_COLUMNS, strict=True)}
        kinds = {i: _int(v) for i, v in sensors[TYPE].items() if len(i) == 1}
        if not any(kind in (WATTS, DBM) for kind in kinds.values()):
            return []  # no power sensor: the device's temperatures are not a module's
        levels = await session.walk([SEVERITY, RELATION, LEVEL], MAX_SENSORS * 8)
    entities = await session.walk([DESCR, CONTAINED_IN, NAME], MAX_SENSORS * 4)
    alias = await session.walk([ALIAS], MAX_SENSORS * 4)
    port_of = _ports(entities, alias[ALIAS], ports)
    readings = []
    for index, kind in kinds.items():
        raw, status = _int(sensors[VALUE].get(index)), _int(sensors[STATUS].get(index))
        port = port_of(index[0])
        if raw is None or status != OK or port is None or kind not in (WATTS, DBM, CELSIUS):
            continue
        scaled = _scaler(kind, _int(sensors[SCALE].get(index)) or 9, _int(sensors[PRECISION].get(index)) or 0)
        said = " ".join(_text(entities[c].get(index)) for c in (NAME, DESCR))
        field = "temperature_c" if kind == CELSIUS else "rx_power_dbm" if RX.search(said) else ""
        field = field or ("tx_power_dbm" if kind != CELSIUS and TX.search(said) else "")
        value = scaled(raw)
        if field and value is not None:
            readings.append(Reading(port, _lane(said), field, value))
        warning = _warning(levels, index[0], field == "temperature_c", scaled) if field and levels else None
        if warning is not None:
            readings.append(Reading(port, _lane(said), WARNINGS[field], warning))
    return readings


def _scaler(kind: int, scale: int, precision: int):
    """A function: a raw sensor value -> its reading (dBm for power, from watts where served so), None for no light
    (0 W would be -inf dBm: an unlit optic has no reading, not a wrong one)."""

    def scaled(raw: int) -> float | None:
        value = sensor_value(raw, scale, precision)
        if kind == WATTS:
            if value <= 0:
                return None
            value = 10 * math.log10(value * 1000)
        return value if math.isfinite(value) else None

    return scaled


def _warning(levels: dict, sensor: int, high: bool, scaled) -> float | None:
    """The module's own warning level of a sensor: its least severe threshold below (a power) or above (a
    temperature) which the reading is out of range; None where it has none."""
    found = []
    for index, relation in levels[RELATION].items():
        if len(index) != 2 or index[0] != sensor or _int(relation) not in (GREATER if high else LESS):
            continue
        raw, severity = _int(levels[LEVEL].get(index)), _int(levels[SEVERITY].get(index))
        value = scaled(raw) if raw is not None else None
        if value is not None:
            found.append((severity or 0, -value if high else value))
    if not found:
        return None
    severity, value = min(found, key=lambda f: (f[0], -f[1]))  # least severe; of those, the first crossed
    return -value if high else value


def _text(value: SnmpValue | None) -> str:
    return value.printable() if value is not None else ""


def _lane(said: str) -> str:
    found = LANE.search(said)
    return found.group(1) if found else ""


def _ports(entities: dict, aliases: dict, ports: dict[int, str]):
    """A function: entPhysicalIndex -> the port it belongs to (None: none)."""
    mapped: dict[int, str] = {}
    for index, value in aliases.items():
        text = str(value.value) if value.kind == "oid" else ""
        if index and text.lstrip(".").startswith(IF_INDEX_OID):
            if_index = text.lstrip(".")[len(IF_INDEX_OID) :]
            if if_index.isdigit() and int(if_index) in ports:
                mapped.setdefault(index[0], ports[int(if_index)])
    # a port is named by a whole word of the text; a bare number ("1", as ProCurve names ports) names none: too many
    # sensors end with one ("Temperature Sensor 1")
    by_length = sorted({p for p in ports.values() if not p.isdigit() and " " not in p}, key=len, reverse=True)

    def named(index: int) -> str | None:
        for column in (NAME, DESCR):
            words = set(_text(entities[column].get((index,))).split())
            for port in by_length:
                if port in words:
                    return port
        return None

    def port_of(index: int) -> str | None:
        for _ in range(MAX_DEPTH):
            found = mapped.get(index) or named(index)
            if found is not None:
                return found
            parent = _int(entities[CONTAINED_IN].get((index,)))
            if not parent or parent == index:
                return None
            index = parent
        return None

    return port_of
