"""The demo's simulated switch speaks up: every few minutes a linkDown/linkUp pair (Net-SNMP's snmptrap, so no
third module imports pysnmp) and a few syslog lines (a UDP socket) to the demo's receivers, so markers appear on
its graphs. Devices of the demo share 127.0.0.1: traps carry the switch's community, syslog lines its sysName."""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import threading
import time

log = logging.getLogger(__name__)
LINK_DOWN, LINK_UP = "1.3.6.1.6.3.1.1.5.3", "1.3.6.1.6.3.1.1.5.4"
IF_TABLE = "1.3.6.1.2.1.2.2.1"
LINES = (
    (4, "TRAPMGR", "Link Down: {port}"),
    (5, "TRAPMGR", "Link Up: {port}"),
    (6, "SNMP", "Authentication of user admin from 192.0.2.10 succeeded"),
    (4, "STP", "Topology change on VLAN 10: port {port} moved to forwarding"),
)


def trap(port: int, community: str, if_index: int, down: bool) -> bool:
    """One v2c linkDown or linkUp trap for an ifIndex; False when snmptrap is missing or fails."""
    if shutil.which("snmptrap") is None:
        return False
    oid = LINK_DOWN if down else LINK_UP
    args = ["snmptrap", "-v", "2c", "-c", community, f"127.0.0.1:{port}", "", oid,
            f"{IF_TABLE}.1.{if_index}", "i", str(if_index), f"{IF_TABLE}.7.{if_index}", "i", "1",
            f"{IF_TABLE}.8.{if_index}", "i", "2" if down else "1"]  # fmt: skip
    return subprocess.run(args, capture_output=True, timeout=10).returncode == 0


def syslog(port: int, hostname: str, severity: int, app: str, text: str, facility: int = 23) -> None:
    """One line over UDP in a PowerConnect's format ('<189> JAN 26 16:14:45 host COMPONENT[thread]: file.c(line)
    seq %% text', local7), but with the sysName as host: a real switch writes its IP and stack unit, which cannot
    tell apart the demo's devices that all share 127.0.0.1."""
    stamp = time.strftime("%b %d %H:%M:%S").upper()
    line = f"<{facility * 8 + severity}> {stamp} {hostname} {app}[230001]: demo.c(1) 1 %% {text}"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(line.encode(), ("127.0.0.1", port))


def one_round(trap_port: int, syslog_port: int, community: str, hostname: str, n: int) -> None:
    """A port goes down and comes back 20 s later; the switch logs it, and something else."""
    if_index = 5 + 7 * (n % 6)  # 1/g5, 1/g12, ... (ports the simulated switch has)
    name = f"1/g{if_index}"
    trap(trap_port, community, if_index, down=True)
    syslog(syslog_port, hostname, *LINES[0][:2], LINES[0][2].format(port=name))
    time.sleep(20)
    trap(trap_port, community, if_index, down=False)
    for severity, app, text in LINES[1:]:
        syslog(syslog_port, hostname, severity, app, text.format(port=name))


def start(trap_port: int, syslog_port: int, community: str, hostname: str, every_s: float = 240.0) -> threading.Event:
    """Send a round every `every_s` seconds (the first after a minute) until the returned event is set."""
    stop = threading.Event()
    if shutil.which("snmptrap") is None:
        log.warning("snmptrap is not installed (Debian package snmp): the demo sends syslog lines only")

    def run() -> None:
        n = 0
        while not stop.wait(60.0 if n == 0 else every_s):
            try:
                one_round(trap_port, syslog_port, community, hostname, n)
            except Exception as exc:  # the demo goes on without its events
                log.warning("demo events not sent: %s", exc)
            n += 1

    threading.Thread(target=run, name="demo-events", daemon=True).start()
    return stop
