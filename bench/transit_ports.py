"""The daily layer-2 read's ports towards other switches (monitor/storage/pathfind.py transit_ports) at fleet size:
N switches of 48 ports, each with 200 forwarding entries drawn among every switch's port MACs, timed against the
plain definition (each switch's view against the union of every other switch's identities), whose answer it must
equal. Run: `.venv/bin/python bench/transit_ports.py` (figures in docs/topology.md)."""

from __future__ import annotations

import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
django.setup()

from collectors.topology import FdbEntry, L2Port, L2View  # noqa: E402
from monitor.storage.pathfind import transit_ports  # noqa: E402
from monitor.topology.edges import identity  # noqa: E402


def view(n: int, fleet: int, rng: random.Random) -> L2View:
    ports = {i: L2Port(i, f"1/g{i}", f"02:00:{n // 256:02x}:{n % 256:02x}:00:{i:02x}") for i in range(1, 49)}
    fdb = []
    for _ in range(200):
        other = rng.randrange(fleet)
        mac = f"02:00:{other // 256:02x}:{other % 256:02x}:00:{rng.randrange(1, 49):02x}"
        fdb.append(FdbEntry(mac, f"1/g{rng.randrange(1, 49)}"))
    return L2View(ports=ports, fdb=fdb, chassis_id=f"02:01:00:00:{n // 256:02x}:{n % 256:02x}", sys_name=f"sw{n}")


def plain(switches: dict[str, L2View]) -> dict[str, set[str]]:
    """The definition, N x N: a port is transit when it learned, or its LLDP neighbour is, another switch."""
    identities = {name: identity(v) for name, v in switches.items()}
    transit: dict[str, set[str]] = defaultdict(set)
    for name, v in switches.items():
        others = set().union(*(ids for other, ids in identities.items() if other != name))
        transit[name] |= {n.local_port for n in v.neighbours if {n.chassis_id, n.sys_name, n.port_id} & others}
        transit[name] |= {e.port for e in v.fdb if e.mac in others}
    return transit


def main() -> None:
    for fleet in (400, 2000):
        rng = random.Random(fleet)
        switches = {str(n): view(n, fleet, rng) for n in range(fleet)}
        start = time.perf_counter()
        found = transit_ports(switches, {})
        took = time.perf_counter() - start
        start = time.perf_counter()
        same = {k: v for k, v in found.items() if v} == {k: v for k, v in plain(switches).items() if v}
        print(f"{fleet} switches: {took:.2f} s ({time.perf_counter() - start:.2f} s by the plain definition), "
              f"{sum(map(len, found.values()))} transit ports, same answer: {same}")  # fmt: skip
        assert same


if __name__ == "__main__":
    main()
