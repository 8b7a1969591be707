"""Transceiver optics (digital diagnostics): each port's optical receive and transmit power, and the module's
temperature, from the standard MIBs, read with the poll where a profile asks (`interfaces: counters: [optics]`).

Sources:
- ENTITY-SENSOR-MIB (RFC 3433) entPhySensorTable (1.3.6.1.2.1.99.1.1.1: .1 type, .2 scale, .3 precision, .4 value,
  .5 oper status), indexed by entPhysicalIndex. A value is value x 10^(3 x (scale - 9)) x 10^-precision (scale:
  yocto(1) .. units(9) .. yotta(17)). Power is dBm(14), or watts(6) on some agents (Arista's EOS: milliwatts),
  turned into dBm; celsius(8) is the module's temperature. A sensor whose oper status is not ok(1) is left out (no
  reading, not a wrong one); a power of 0 W (no light at all: a dark fibre, a far end gone) reads as -40 dBm, the
  floor of SFF-8472's 0.1 µW resolution, so a "below" rule sees it.
- ENTITY-MIB (RFC 6933) entPhysicalDescr (.2), entPhysicalContainedIn (.4) and entPhysicalName (.7) under
  1.3.6.1.2.1.47.1.1.1.1, and entAliasMappingIdentifier (1.3.6.1.2.1.47.1.3.2.1.2: the ifIndex OID a physical
  entity is): a sensor's port is the first entity up its containment that maps to an interface, or whose name or
  description has the port's name as a word ("DOM RX Power Sensor for Ethernet11/1").
- CISCO-ENTITY-SENSOR-MIB entSensorValueTable (1.3.6.1.4.1.9.9.91.1.1.1.1, the same five columns, codes and index),
  read where the standard table has no dBm sensor; and its entSensorThresholdTable (1.3.6.1.4.1.9.9.91.1.2.1.1:
  .2 severity, .3 relation, .4 value, indexed by sensor and threshold), the module's own alarm levels: the least
  severe "less than" level of a power sensor is its low warning, the least severe "greater than" level of a
  temperature its high warning.
Receive or transmit is said by the sensor's name or description (rx, receive; tx, transmit); a lane by "lane N".
Which port, lane and reading each sensor is (the plan) is kept in the device's state and worked out again daily, or
when the sensors or the ports change: a poll walks only the sensor columns.
"""

from __future__ import annotations

import math
import re
import zlib
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
REPLAN_S = 86400  # the entity tables are walked again at least daily (and whenever the sensors or ports change)
DARK_DBM = -40.0  # no light: the floor SFF-8472's 0.1 µW resolution gives
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
    exponent, so 419 tenths are 41.9, not 41.900000000000006); a scale or precision outside the MIB's ranges (1..17,
    -8..9) is held to them, so an agent's odd value costs its reading, never the poll."""
    exponent = 3 * (min(max(scale, 1), 17) - 9) - min(max(precision, -8), 9)
    return raw * 10.0**exponent if exponent >= 0 else raw / 10.0**-exponent


def _int(value: SnmpValue | None) -> int | None:
    return int(value.value) if value is not None and value.kind in ("int", "gauge") else None


async def read_optics(
    session: Session, ports: dict[int, str], known: dict | None = None, now: float = 0.0
) -> tuple[list[Reading], dict]:
    """(the optic readings of the ports `ports` (ifIndex -> name), the plan that placed them). Only the sensor
    columns are walked each poll; which port, lane and reading each sensor is, and the modules' own levels, come
    from `known` (the plan of an earlier poll) while the sensors, the ports and the day are the same, else from the
    entity tables walked again. ([], {}) when the device serves no optic sensor."""
    found = await session.walk(COLUMNS + CISCO_COLUMNS, MAX_SENSORS)  # one request where neither is served
    table, sensors = _chosen(found)
    if table is None:
        return [], {}
    kinds = {i[0]: _int(v) for i, v in sensors[TYPE].items() if len(i) == 1}
    mark = {"table": table, "sensors": sorted(kinds), "ports": zlib.crc32(repr(sorted(ports.items())).encode())}
    plan = known if known and all(known.get(k) == v for k, v in mark.items()) else None
    if plan is None or not now - REPLAN_S < plan.get("at", 0) <= now:
        plan = mark | {"at": now, "map": await _plan(session, table, sensors, kinds, ports)}
    readings = []
    for key, (port, lane, field, warning) in plan["map"].items():
        index = (int(key),)
        raw, status = _int(sensors[VALUE].get(index)), _int(sensors[STATUS].get(index))
        if raw is None or status != OK:
            continue
        scale, precision = _int(sensors[SCALE].get(index)) or 9, _int(sensors[PRECISION].get(index)) or 0
        readings.append(Reading(port, lane, field, _scaled(kinds[int(key)], raw, scale, precision)))
        if warning is not None:
            readings.append(Reading(port, lane, WARNINGS[field], warning))
    return readings, plan


def _chosen(found: dict) -> tuple[str | None, dict]:
    """Which table serves the optics: ENTITY-SENSOR-MIB where it has a dBm sensor, else CISCO-ENTITY-SENSOR-MIB
    where that has a power sensor, else ENTITY-SENSOR-MIB where it has one in watts (Arista's); None: neither."""
    standard = {column: found[column] for column in COLUMNS}
    cisco = {ours: found[theirs] for ours, theirs in zip(COLUMNS, CISCO_COLUMNS, strict=True)}

    def kinds(table: dict) -> set:
        return {_int(v) for i, v in table[TYPE].items() if len(i) == 1}

    if DBM in kinds(standard):
        return "standard", standard
    if kinds(cisco) & {DBM, WATTS}:
        return "cisco", cisco
    return ("standard", standard) if WATTS in kinds(standard) else (None, {})


async def _plan(session: Session, table: str, sensors: dict, kinds: dict, ports: dict[int, str]) -> dict:
    """{sensor index: [port, lane, field, the module's own warning level or None]} of the sensors that are a port's
    module's, from the entity tables (and, in Cisco's table, its thresholds)."""
    entities = await session.walk([DESCR, CONTAINED_IN, NAME], MAX_SENSORS * 4)
    alias = await session.walk([ALIAS], MAX_SENSORS * 4)
    levels = await session.walk([SEVERITY, RELATION, LEVEL], MAX_SENSORS * 8) if table == "cisco" else {}
    port_of = _ports(entities, alias[ALIAS], ports)
    plan = {}
    for index, kind in kinds.items():
        port = port_of(index)
        if port is None or kind not in (WATTS, DBM, CELSIUS):
            continue
        said = " ".join(_text(entities[c].get((index,))) for c in (NAME, DESCR))
        field = "temperature_c" if kind == CELSIUS else "rx_power_dbm" if RX.search(said) else ""
        field = field or ("tx_power_dbm" if kind != CELSIUS and TX.search(said) else "")
        if not field:
            continue
        scale = _int(sensors[SCALE].get((index,))) or 9
        precision = _int(sensors[PRECISION].get((index,))) or 0
        warning = _warning(levels, index, field == "temperature_c", kind, scale, precision) if levels else None
        plan[str(index)] = [port, _lane(said), field, warning]
    return plan


def _scaled(kind: int, raw: int, scale: int, precision: int) -> float:
    """A raw sensor value as its reading: dBm for power (from watts where served so), the floor of -40 dBm (0.1 µW,
    the resolution SFF-8472 gives a module's power) for no light at all, which 0 W would make -inf."""
    value = sensor_value(raw, scale, precision)
    if kind == WATTS:
        value = 10 * math.log10(value * 1000) if value > 0 else DARK_DBM
    if kind in (WATTS, DBM):
        return max(value, DARK_DBM) if math.isfinite(value) else DARK_DBM
    return value


def _warning(levels: dict, sensor: int, high: bool, kind: int, scale: int, precision: int) -> float | None:
    """The module's own warning level of a sensor: its least severe threshold below (a power) or above (a
    temperature) which the reading is out of range; None where it has none."""
    found = []
    for index, relation in levels[RELATION].items():
        if len(index) != 2 or index[0] != sensor or _int(relation) not in (GREATER if high else LESS):
            continue
        raw, severity = _int(levels[LEVEL].get(index)), _int(levels[SEVERITY].get(index))
        if raw is not None:
            value = _scaled(kind, raw, scale, precision)
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
    names = {p for p in ports.values() if not p.isdigit() and " " not in p}

    def named(index: int) -> str | None:
        for column in (NAME, DESCR):
            for word in _text(entities[column].get((index,))).split():
                if word in names:
                    return word
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
