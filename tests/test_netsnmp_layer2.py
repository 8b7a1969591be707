"""The layer-2 read against a real Net-SNMP agent (Debian's snmpd on loopback), checked against what the kernel
itself says: each interface's MAC (/sys/class/net) and the neighbour cache (/proc/net/arp), which snmpd serves as
IP-MIB's ipNetToPhysicalTable."""

from __future__ import annotations

from pathlib import Path

import pytest

from collectors.sessions import open_session
from collectors.snmptypes import SnmpTarget
from collectors.topology import read_l2
from monitor.core import aio
from monitor.devstack.processes import free_udp_port
from tests.snmpdkit import COMMUNITY, start_snmpd


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    port = free_udp_port()
    process = start_snmpd(tmp_path_factory.mktemp("snmpd"), port)
    yield port
    process.stop()


def kernel_macs() -> dict[str, str]:
    """{interface: MAC} of the interfaces with a hardware address, as the kernel has them."""
    found = {}
    for link in Path("/sys/class/net").iterdir():
        mac = (link / "address").read_text().strip().lower()
        if mac and mac != "00:00:00:00:00:00":
            found[link.name] = mac
    return found


def kernel_neighbours() -> set[tuple[str, str]]:
    """(IPv4 address, MAC) of the complete entries of the kernel's ARP cache (flags 0x2)."""
    rows = Path("/proc/net/arp").read_text().splitlines()[1:]
    return {(r.split()[0], r.split()[3].lower()) for r in rows if int(r.split()[2], 16) & 0x2}


@pytest.mark.parametrize("engine", ["fast", "pysnmp"])
def test_a_net_snmp_agents_ports_macs_and_arp_cache_are_the_kernels(agent, engine):
    before = kernel_neighbours()
    session = open_session(SnmpTarget("127.0.0.1", agent, community=COMMUNITY, timeout=5), engine)
    view = aio.run(read_l2(session, fdb=True, lldp=True, arp=True))
    after = kernel_neighbours()
    assert view.errors == [] and view.arp_errors == []
    macs = {port.name: port.mac for port in view.ports.values() if port.mac}
    assert macs == kernel_macs() and macs  # every interface with a MAC, by its ifName, and no other
    served = {(entry.ip, entry.mac) for entry in view.arp if ":" not in entry.ip}
    assert before & after <= served  # what the cache held all along, the agent served
    assert served <= before | after  # and nothing it did not hold
    assert view.fdb == [] and view.neighbours == []  # a host: no forwarding table, no LLDP
