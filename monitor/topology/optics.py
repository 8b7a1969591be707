"""The ports' newest transceiver readings (collectors/optics.py writes them with each poll) for the port inventory:
receive and transmit power and module temperature, per port and per lane of a multi-lane module."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from monitor.timeseries import top

log = logging.getLogger(__name__)
FIELDS = ["rx_power_dbm", "tx_power_dbm", "temperature_c"]
FRESH = timedelta(minutes=30)  # a reading older than this is not "now": a module pulled since, a device not polled


@dataclass(frozen=True)
class OpticNow:
    """One module's (or lane's) newest readings; None where the module said nothing (an unlit receiver)."""

    lane: str
    rx_dbm: float | None
    tx_dbm: float | None
    temperature_c: float | None


def newest(now: datetime) -> dict[tuple[int, str], list[OpticNow]]:
    """{(device id, port): its modules' newest readings of the last 30 minutes, lanes in order}; {} when the time
    series database does not answer (the inventory is drawn without them, and says so in the log)."""
    try:
        found = top._per_series("optics", FIELDS, "optic", now - FRESH, now, "last", now)
    except Exception as exc:  # the inventory's other columns come from the database, and still show
        log.warning("optics: newest readings not read: %s", type(exc).__name__)
        return {}
    optics: dict[tuple[str, str], dict[str, float]] = {}
    for (device, optic, field), value in found.items():
        optics.setdefault((device, optic), {})[field] = value
    out: dict[tuple[int, str], list[OpticNow]] = {}
    for (device, optic), values in sorted(optics.items()):
        if not device.isdigit():
            continue
        port, _, lane = optic.partition(" lane ")
        reading = OpticNow(lane, *(values.get(f) for f in FIELDS))
        out.setdefault((int(device), port), []).append(reading)
    for readings in out.values():  # lane 2 before lane 10
        readings.sort(key=lambda r: int(r.lane) if r.lane.isdigit() else 0)
    return out
