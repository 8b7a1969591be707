"""A real Net-SNMP agent (Debian's snmpd) on a loopback port, with a configuration of its own: read-only community
`netsnmp` for 127.0.0.1, nothing else (no system configuration read, no traps sent)."""

from __future__ import annotations

import shutil
from pathlib import Path

from monitor.devstack import services
from monitor.devstack.processes import Process

COMMUNITY = "netsnmp"


def snmpd_binary() -> str:
    found = shutil.which("snmpd") or ("/usr/sbin/snmpd" if Path("/usr/sbin/snmpd").exists() else None)
    if found is None:
        raise RuntimeError("snmpd is not installed: run `make deps` (scripts/install-system-deps.sh)")
    return found


def start_snmpd(root: Path, port: int, *lines: str) -> Process:
    """The agent, with `lines` added to its configuration (`proc tgtd`, `disk / 10%`)."""
    root.mkdir(parents=True, exist_ok=True)
    conf = root / "snmpd.conf"
    conf.write_text("".join(f"{line}\n" for line in (f"agentAddress udp:127.0.0.1:{port}",
                                                      f"rocommunity {COMMUNITY} 127.0.0.1", *lines)))  # fmt: skip
    argv = [snmpd_binary(), "-f", "-C", "-c", str(conf), "-Lf", str(root / "snmpd.log"), "-p", str(root / "pid")]
    process = Process("snmpd", argv, root / "snmpd.out", env={"MIBS": ""})  # no MIB texts: numbers are enough
    services._wait_snmp(process, port)
    return process
