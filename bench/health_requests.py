"""What reading a Linux server's watched processes and file systems (UCD-SNMP-MIB prTable and dskTable, issue 43)
adds to a poll: SNMP requests and time of one poll of a real Net-SNMP agent (Debian's snmpd on loopback) with the
net-snmp-host profile, without those two tables, with them and nothing configured, and with two `proc` and two
`disk` lines. Writes bench/results/health-requests-<UTC time>.json.
Run: `.venv/bin/python bench/health_requests.py [polls]`."""

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

from bench.pollcount import median_poll, write_results  # noqa: E402
from collectors.snmptypes import SnmpTarget  # noqa: E402
from monitor.devices.profiles import registry  # noqa: E402
from monitor.devstack.processes import free_udp_port  # noqa: E402
from tests.snmpdkit import COMMUNITY, start_snmpd  # noqa: E402

WATCHED = ("watched_processes", "watched_disks")
LINES = ("proc snmpd", "proc no-such-daemon-4242", "disk / 10%", "disk /dev/shm 1")


def main(polls: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="health-bench-"))
    profile = registry()["net-snmp-host"]
    without = dataclasses.replace(profile, tables=tuple(t for t in profile.tables if t.name not in WATCHED))
    cases = {
        "without the two tables": ((), without),
        "nothing configured": ((), profile),
        "2 proc, 2 disk": (LINES, profile),
    }
    figures = {}
    for n, (label, (lines, chosen)) in enumerate(cases.items()):
        port = free_udp_port()
        agent = start_snmpd(root / f"snmpd-{n}", port, *lines)
        try:
            target = SnmpTarget("127.0.0.1", port, community=COMMUNITY, timeout=3)
            figures[label] = median_poll(target, chosen, polls)
        finally:
            agent.stop()
        print(f"{label:24} {figures[label]['requests']:>4} requests {figures[label]['poll_ms']:>7} ms")
    write_results("health-requests", polls, figures)
    return figures


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
