"""A Linux storage server's health as its own agent watches it (issue 43): a real Net-SNMP agent (Debian's snmpd)
told to watch two processes and two file systems (`proc` and `disk` lines, as an Openfiler or a Linux iSCSI target's
admin writes them) is polled through the product's own poll path; the daemon that does not run is failed, the file
system under its configured free space a warning, and what the agent says of each is checked against the machine."""

from __future__ import annotations

import os

import pytest

from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack.processes import free_udp_port
from tests.snmpdkit import COMMUNITY, start_snmpd

MISSING = "no-such-daemon-4242"  # nothing runs by this name


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    port = free_udp_port()
    lines = ("proc snmpd", f"proc {MISSING}", "disk / 100%", "disk /dev/shm 1")  # / cannot be 100 % free
    process = start_snmpd(tmp_path_factory.mktemp("snmpd-health"), port, *lines)
    yield port
    process.stop()


@pytest.mark.parametrize("engine", ["pysnmp", "fast"])
def test_a_watched_daemon_not_running_is_failed_and_a_full_file_system_a_warning(agent, engine):
    from monitor.storage.health import readings

    profile = registry()["net-snmp-host"]
    target = SnmpTarget("127.0.0.1", agent, community=COMMUNITY, timeout=3.0, retries=1)
    result = aio.run(poll_device(target, "nas", None, profile=profile, engine=engine))
    found = {part: (state, word) for part, state, word in readings(profile, result.samples)}
    assert found["Process snmpd"] == ("ok", "running")
    assert found[f"Process {MISSING}"] == ("failed", "error")
    assert found["File system /"] == ("warning", "error")  # less free than the 100 % it was told to keep
    assert found["File system /dev/shm"] == ("ok", "noError")
    sensors = {(s.tags["kind"], s.tags["name"]): s.fields for s in result.samples if s.measurement == "sensor"}
    assert sensors[("process", MISSING)]["count"] == 0 and sensors[("process", "snmpd")]["count"] >= 1
    used_pct = sensors[("filesystem", "/")]["value"]
    # dskPercent, "percentage of space used on disk": used blocks of all blocks, as statvfs gives them (a point and a
    # half for its rounding and for what the running suite writes meanwhile)
    stat = os.statvfs("/")
    assert abs(used_pct - 100 * (stat.f_blocks - stat.f_bfree) / stat.f_blocks) <= 1.5
