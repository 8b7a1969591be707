"""What arrays' health tables cost a poll (issue 43): SNMP requests and time of one poll of a simulated array (snmpsim
on loopback) with its shipped profile and without its health tables; a Dell SC whose alert table holds 0, 100 and
1,000 alerts (the array keeps cleared ones, and every poll walks them all). Writes
bench/results/array-requests-<UTC time>.json. Run: `.venv/bin/python bench/array_requests.py [polls]`."""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from pathlib import Path

import django

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
django.setup()

from bench.pollcount import measure, write_results  # noqa: E402
from monitor.devices.profiles import registry  # noqa: E402
from monitor.devstack import fleet, services  # noqa: E402
from monitor.devstack.processes import free_udp_port  # noqa: E402

SC = "1.3.6.1.4.1.674.11000.2000.500.1.2"
EQL = "1.3.6.1.4.1.12740"
MEMBER = "1.1841966935"
# The EqualLogic tables added for health since the volume tables: disks, SMART, SSD life, control modules, replicas
EQL_HEALTH = ("disks", "ssd_life", "controllers", "replica_age")
SC_ALERT_TABLE = ("alerts",)


def equallogic() -> fleet.SimDevice:
    """The demo's array with 24 disks (half SSDs) and its two control modules."""
    array = fleet.equallogic_array("eql", "eql-bench")
    for n in range(1, 25):
        array.extra += [
            (f"{EQL}.3.1.1.1.11.{MEMBER}.{n}", "4", str(n - 1)),
            (f"{EQL}.3.1.1.1.8.{MEMBER}.{n}", "2", "1"),
            (f"{EQL}.3.1.1.1.6.{MEMBER}.{n}", "2", "953869"),
            (f"{EQL}.3.1.1.1.12.{MEMBER}.{n}", "2", "4" if n % 2 else "2"),
            (f"{EQL}.3.1.1.1.17.{MEMBER}.{n}", "2", "1"),
            (f"{EQL}.3.1.2.1.9.{MEMBER}.{n}", "65", "97"),
        ]
    for slot in (1, 2):
        array.extra += [(f"{EQL}.4.1.1.1.{c}.{MEMBER}.{slot}", "2", "1") for c in (5, 9, 32)]
    return array


def storage_center(alerts: int, hosts: int = 0) -> fleet.SimDevice:
    """A Dell SC with two controllers, `alerts` rows in scAlertTable (half of each controller's, all cleared) and
    `hosts` in scServerTable (each on all its four paths)."""
    rows = [(f"{SC}.6.0", "2", "3")]
    for n in range(1, hosts + 1):
        rows += [(f"{SC}.27.1.3.{n}", "2", "1"), (f"{SC}.27.1.4.{n}", "4", f"esx-{n:04d}")]
        rows += [(f"{SC}.27.1.5.{n}", "2", "1"), (f"{SC}.27.1.6.{n}", "66", "4")]
    for ctlr in (1, 2):
        rows += [(f"{SC}.13.1.3.{ctlr}", "2", "1"), (f"{SC}.13.1.4.{ctlr}", "4", f"SN 6000{ctlr}")]
    for n in range(1, alerts + 1):
        index = f"{1 + n % 2}.{n}"
        rows += [(f"{SC}.46.1.2.{index}", "66", str(n)), (f"{SC}.46.1.3.{index}", "2", "4")]
        rows += [(f"{SC}.46.1.8.{index}", "4", f"Alert number {n} was raised and cleared")]
        rows += [(f"{SC}.46.1.10.{index}", "2", "1"), (f"{SC}.46.1.11.{index}", "2", "2")]
    name = f"sc{alerts}" + (f"h{hosts}" if hosts else "")
    return fleet.SimDevice(name, "FreeBSD", "1.3.6.1.4.1.8072.3.2.8", name, [], rows)


def without(profile, names: tuple[str, ...]):
    return dataclasses.replace(profile, tables=tuple(t for t in profile.tables if t.name not in names))


def main(polls: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="array-bench-"))
    devices = [equallogic(), *(storage_center(n) for n in (0, 100, 1000)), storage_center(0, 500)]
    for device in devices:
        device.write(root / "data")
    port = free_udp_port()
    agent = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-array-bench")
    eql, sc = registry()["dell-equallogic"], registry()["dell-storage-sc"]
    cases = {
        "EqualLogic without its health tables": ("eql", without(eql, EQL_HEALTH)),
        "EqualLogic, shipped profile": ("eql", eql),
        "Dell SC without its alert table": ("sc0", without(sc, SC_ALERT_TABLE)),
        "Dell SC, 0 alerts": ("sc0", sc),
        "Dell SC, 100 alerts": ("sc100", sc),
        "Dell SC, 1,000 alerts": ("sc1000", sc),
        "Dell SC without its hosts table, 500 hosts": ("sc0h500", without(sc, ("servers",))),
        "Dell SC, 500 hosts": ("sc0h500", sc),
    }
    try:
        figures = measure(port, cases, polls, timeout=5)
    finally:
        agent.stop()
    write_results("array-requests", polls, figures)
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
