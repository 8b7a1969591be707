"""What reading transceiver optics adds to a poll: SNMP requests and time of one poll of a simulated PowerConnect
6248 (52 ports) without optics, with optics asked of a switch that serves no sensor, and with optics on a switch
whose two SFP+ uplinks serve ENTITY-SENSOR-MIB; the median of N polls each, each poll given the state of the one
before (so the sensors' plan, worked out by the first, is kept). Writes
bench/results/optics-requests-<UTC time>.json. Run: `.venv/bin/python bench/optics_requests.py [polls]`."""

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
from collectors.poll import OPTICS  # noqa: E402
from monitor.devices.profiles import registry  # noqa: E402
from monitor.devstack import fleet, services  # noqa: E402
from monitor.devstack.optics import Optic, contained  # noqa: E402
from monitor.devstack.processes import free_udp_port  # noqa: E402


def main(polls: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="optics-bench-"))
    sfps = [Optic(49, "1/xg1", -2.8, -2.1, 36.5), Optic(50, "1/xg2", -7.9, -2.3, 41.0)]
    fleet.powerconnect_6248("plain", "sw", busy=False).write(root / "data")
    fleet.powerconnect_6248("sfp", "sw", busy=False, extra=contained(sfps)).write(root / "data")
    port = free_udp_port()
    agent = services.start_snmpsim(root / "data", port, root / "log", name="snmpsim-optics-bench")
    profile = registry()["dell-powerconnect-62xx"]
    without = dataclasses.replace(
        profile, interface_counters=tuple(g for g in profile.interface_counters if g != OPTICS)
    )
    cases = {
        "no optics asked": ("plain", without),
        "asked, none served": ("plain", profile),
        "two SFP+": ("sfp", profile),
    }
    try:
        figures = measure(port, cases, polls, timeout=3)
    finally:
        agent.stop()
    write_results("optics-requests", polls, figures)
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
