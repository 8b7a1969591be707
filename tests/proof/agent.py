"""One loopback SNMP agent serving many scenario devices (one community each), every answer at its device's clock.

Each device serves sysUpTime, and for each counter of its scenario: a port32 counter as an ifTable row (ifDescr,
ifSpeed when its speed is known, ifInOctets as Counter32, ifOutOctets at 0); a port64 counter as an ifXTable row
too (ifName, ifHighSpeed when known, ifHCInOctets as Counter64 and ifHCOutOctets at 0, the low 32 bits in
ifInOctets as real agents serve them); a string counter as a row of a profile table (its name, and its octets as
an OCTET STRING of digits). A device whose current poll is unanswered stays silent."""

from __future__ import annotations

import re

from pysnmp.proto import api

from collectors.profiles import Metric, Profile, Table, Tag
from tests.model.scenario import Counter, Scenario
from tests.snmpfake import FakeAgent, Mib

V2 = api.v2c
SYS = (1, 3, 6, 1, 2, 1, 1)
IF_ENTRY = (1, 3, 6, 1, 2, 1, 2, 2, 1)
IFX_ENTRY = (1, 3, 6, 1, 2, 1, 31, 1, 1, 1)
STRING_TABLE = "1.3.6.1.4.1.9999.44.1.1"  # a profile table: .2 the row's name, .3 its octets as text
STRING_ENTRY = tuple(int(part) for part in STRING_TABLE.split("."))
STRING_MEASUREMENT, STRING_FIELD, STRING_TEMPLATE = "disk_io", "read_bps", "disk_throughput"
PORT_FIELD, PORT_TEMPLATE = "in_bps", "traffic"


def profile_of(scenario: Scenario) -> Profile:
    """The profile a device of this scenario is polled with: its interfaces (no optional counter groups), and the
    text counters' table when it has string counters."""
    strings = any(c.kind == "string" for c in scenario.counters)
    table = Table(
        "proof_text",
        STRING_MEASUREMENT,
        (Metric(STRING_FIELD, (f"{STRING_TABLE}.3",), "counter", "bytes/s", parse=re.compile(r"(\d+)")),),
        (Tag("disk", column=f"{STRING_TABLE}.2"),),
    )
    return Profile(
        "proof",
        "proof.yaml",
        interfaces=any(c.kind != "string" for c in scenario.counters),
        interface_counters=(),
        tables=(table,) if strings else (),
    )


def rows(scenario: Scenario) -> list[tuple[int, Counter]]:
    """(index, counter): ports numbered from 1 in scenario order, string counters likewise in their table."""
    ports = [c for c in scenario.counters if c.kind != "string"]
    texts = [c for c in scenario.counters if c.kind == "string"]
    return [(i, c) for i, c in enumerate(ports, 1)] + [(i, c) for i, c in enumerate(texts, 1)]


def objects(scenario: Scenario, t: float) -> dict:
    """Every object the device serves at `t`."""
    out: dict = {
        (*SYS, 1, 0): V2.OctetString(f"proof device {scenario.key}"),
        (*SYS, 2, 0): V2.ObjectIdentifier("1.3.6.1.4.1.9999.44"),
        (*SYS, 3, 0): V2.TimeTicks(scenario.uptime_ticks(t)),
    }
    for index, counter in rows(scenario):
        value = scenario.octets(counter, t)
        if counter.kind == "string":
            out[(*STRING_ENTRY, 2, index)] = V2.OctetString(counter.name)
            out[(*STRING_ENTRY, 3, index)] = V2.OctetString(str(value))
            continue
        out[(*IF_ENTRY, 2, index)] = V2.OctetString(counter.name)
        out[(*IF_ENTRY, 8, index)] = V2.Integer(1)
        out[(*IF_ENTRY, 10, index)] = V2.Counter32(value % 2**32)
        out[(*IF_ENTRY, 16, index)] = V2.Counter32(0)  # nothing goes out: only in_bps is compared
        if counter.kind == "port32":
            if counter.speed_bps:
                out[(*IF_ENTRY, 5, index)] = V2.Gauge32(min(int(counter.speed_bps), 2**32 - 1))
        else:
            out[(*IFX_ENTRY, 1, index)] = V2.OctetString(counter.name)
            out[(*IFX_ENTRY, 6, index)] = V2.Counter64(value)
            out[(*IFX_ENTRY, 10, index)] = V2.Counter64(0)
            if counter.speed_bps:
                out[(*IFX_ENTRY, 15, index)] = V2.Gauge32(int(counter.speed_bps // 1_000_000))
    return out


class ScenarioAgent:
    """Serves each scenario as community `community(key)`; `at(key, t, answered)` sets its clock for the next poll."""

    def __init__(self, scenarios: list[Scenario]):
        self.scenarios = {self.community(s.key): s for s in scenarios}
        self.clock: dict[str, tuple[float, bool]] = {}
        self.fake = FakeAgent(self._answer)
        self.port = self.fake.port

    @staticmethod
    def community(key: str) -> str:
        return f"proof{key}"

    def at(self, key: str, t: float, answered: bool) -> None:
        self.clock[self.community(key)] = (t, answered)

    def _answer(self, request, raw: bytes) -> list[bytes]:
        community = str(V2.apiMessage.get_community(request))
        scenario, (t, answered) = self.scenarios.get(community), self.clock.get(community, (0.0, False))
        if scenario is None or not answered:
            return []
        return Mib(objects(scenario, t))(request, raw)

    def close(self) -> None:
        self.fake.close()
