"""The daily layer-2 read's cost per switch: N simulated PowerConnect 6248s (52 ports, 200 learned MACs, LLDP
neighbours, VLAN tables) served by snmpsim on loopback, each read as monitor/storage/paths.py reads a switch
(read_l2 with forwarding tables, LLDP, the ARP cache and the port inventory's columns), 16 at a time. Prints the
wall time, this process's CPU per switch (what a worker pays), and writes
bench/results/topology-reads-<UTC time>.json. Run: `.venv/bin/python bench/topology_reads.py [switches]`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import django

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
django.setup()

from collectors.sessions import open_session  # noqa: E402
from collectors.snmptypes import SnmpTarget  # noqa: E402
from collectors.topology import read_l2  # noqa: E402
from monitor.devstack import fleet, services  # noqa: E402
from monitor.devstack.processes import free_udp_port  # noqa: E402
from monitor.storage.paths import CONCURRENCY  # noqa: E402

HOSTS = 200


def switch(n: int) -> fleet.SimDevice:
    """The demo's switch model with 200 hosts learned across its ports, the first of them speaking LLDP."""
    hosts = [
        fleet.Attached(
            1 + i % 48,
            f"02:10:{n // 256:02x}:{n % 256:02x}:{i // 256:02x}:{i % 256:02x}",
            f"host-{n}-{i}" if i < 4 else "",
            "eth0" if i < 4 else "",
        )
        for i in range(HOSTS)
    ]
    return fleet.powerconnect_6248(community=f"sw{n}", name=f"sw{n}", busy=False, attached=hosts)


async def read_all(port: int, count: int) -> list[dict]:
    limit = asyncio.Semaphore(CONCURRENCY)

    async def one(n: int) -> dict:
        async with limit:
            session = open_session(SnmpTarget("127.0.0.1", port, community=f"sw{n}", timeout=10, retries=1), "fast")
            began = time.perf_counter()
            view = await read_l2(session, fdb=True, lldp=True, arp=True)
            return {"s": time.perf_counter() - began, "errors": view.errors + view.facts_errors, "fdb": len(view.fdb),
                    "ports": len(view.facts), "neighbours": len(view.neighbours)}  # fmt: skip

    return list(await asyncio.gather(*(one(n) for n in range(count))))


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    work = Path(tempfile.mkdtemp(prefix="topology-reads-"))
    for n in range(count):
        switch(n).write(work / "data")
    port = free_udp_port()
    agent = services.start_snmpsim(work / "data", port, work / "log", name="snmpsim-topology-bench")
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        found = asyncio.run(read_all(port, count))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        agent.stop()
    failed = [f for f in found if f["errors"]]
    each = sorted(f["s"] for f in found)
    out = {
        "switches": count,
        "concurrency": CONCURRENCY,
        "wall_s": round(wall, 2),
        "cpu_ms_per_switch": round(1000 * cpu / count, 1),
        "read_s_p50": round(each[len(each) // 2], 2),
        "read_s_max": round(each[-1], 2),
        "fdb_entries": found[0]["fdb"],
        "ports_with_facts": found[0]["ports"],
        "lldp_neighbours": found[0]["neighbours"],
        "failed": len(failed),
        "at": datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
    }
    (REPO / "bench" / "results" / f"topology-reads-{out['at']}.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
