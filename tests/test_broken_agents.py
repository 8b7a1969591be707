"""Broken agents: wrong types, missing objects, empty tables, huge and binary strings. Clear per-metric errors."""

import pytest

from collectors.discovery import discover
from collectors.poll import poll_device
from collectors.snmptypes import SnmpTarget
from monitor.core import aio
from monitor.devices.profiles import registry
from monitor.devstack import services
from monitor.devstack.processes import free_udp_port
from monitor.models import Device
from monitor.polling.run import run_poll

FASTPATH = "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4"
GARBAGE_HEX = (b"\x00\xff<script>alert(1)</script>\x1b[31m\xfe").hex()


def system(descr_tag: str, descr: str, object_id: str = "1.3.6.1.4.1.674.10895.3011") -> list[str]:
    return [
        f"1.3.6.1.2.1.1.1.0|{descr_tag}|{descr}",
        f"1.3.6.1.2.1.1.2.0|6|{object_id}",
        "1.3.6.1.2.1.1.3.0|67|123456",
        "1.3.6.1.2.1.1.5.0|4|broken",
    ]


RECORDINGS = {
    # Counters delivered as strings, a speed as a string, the CPU string as an integer, memory as text.
    "wrongtypes": [
        *system("4", "PowerConnect 6248, 3.3.7.3, VxWorks 6.5"),
        "1.3.6.1.2.1.2.2.1.8.1|2|1",
        "1.3.6.1.2.1.2.2.1.8.2|2|1",
        "1.3.6.1.2.1.31.1.1.1.1.1|4|1/g1",
        "1.3.6.1.2.1.31.1.1.1.1.2|4|1/g2",
        "1.3.6.1.2.1.31.1.1.1.6.1|4|not a counter",
        "1.3.6.1.2.1.31.1.1.1.6.2|70|1000",
        "1.3.6.1.2.1.31.1.1.1.10.1|4|nope",
        "1.3.6.1.2.1.31.1.1.1.10.2|70|2000",
        "1.3.6.1.2.1.31.1.1.1.15.1|4|fast",
        "1.3.6.1.2.1.31.1.1.1.15.2|66|1000",
        f"{FASTPATH}.1.0|4|lots",
        f"{FASTPATH}.2.0|2|262144",
        f"{FASTPATH}.4.0|2|7",
    ],
    # Binary garbage with markup in sysDescr and an alias.
    "garbage": [
        *system("4x", GARBAGE_HEX, "1.3.6.1.4.1.9999.7"),
        "1.3.6.1.2.1.2.2.1.2.1|4|eth0",
        "1.3.6.1.2.1.2.2.1.8.1|2|1",
        "1.3.6.1.2.1.2.2.1.10.1|65|10",
        "1.3.6.1.2.1.2.2.1.16.1|65|10",
        f"1.3.6.1.2.1.31.1.1.1.18.1|4x|{GARBAGE_HEX}",
    ],
    # A sysDescr as large as a UDP datagram allows (~60 KB), and nothing else useful.
    "huge": [
        *system("4", "x" * 60000, "1.3.6.1.4.1.9999.8"),
        "1.3.6.1.2.1.2.2.1.2.1|4|eth0",
        "1.3.6.1.2.1.2.2.1.8.1|2|1",
    ],
    # A PowerConnect whose sensor and port tables are all empty.
    "empty": system("4", "PowerConnect 6224, 3.3.18.1, VxWorks 6.5", "1.3.6.1.4.1.674.10895.3010"),
}


@pytest.fixture(scope="module")
def broken_agent(tmp_path_factory):
    data = tmp_path_factory.mktemp("broken")
    for community, lines in RECORDINGS.items():
        rows = sorted(lines, key=lambda line: tuple(int(x) for x in line.split("|")[0].split(".")))
        (data / f"{community}.snmprec").write_text("\n".join(rows) + "\n")
    port = free_udp_port()
    process = services.start_snmpsim(data, port, data.parent / "log", name="snmpsim-broken")
    yield port
    process.stop()


def target(port: int, community: str) -> SnmpTarget:
    return SnmpTarget("127.0.0.1", port, community=community, timeout=3.0, retries=1)


def test_wrong_types_give_per_metric_errors_and_the_rest_is_still_read(broken_agent):
    t = target(broken_agent, "wrongtypes")
    found = aio.run(discover(t, registry()))
    assert found.profile == "dell-powerconnect-62xx"
    profile = registry()[found.profile]
    first = aio.run(poll_device(t, "w", None, profile=profile))
    result = aio.run(poll_device(t, "w", first.state, profile=profile))
    errors = "\n".join(result.errors)
    assert "cpu_util: expected a string to parse, got a number" in errors
    assert "mem_free_bytes: expected a number, got the string 'lots'" in errors
    values = {name: value for name, _tags, value, _unit in result.values}
    assert values["mem_total_bytes"] == 262144 * 1024  # the good neighbour of a bad value is still read
    ports = {p.name: p for p in result.ports}
    assert ports["1/g1"].speed_bps == 0 and ports["1/g2"].speed_bps == 1_000_000_000
    assert not ports["1/g1"].hc_counters  # a string where a Counter64 belongs is not a counter
    port2 = next(s for s in result.samples if s.measurement == "interface" and s.tags["port"] == "1/g2")
    assert port2.fields["in_bps"] == 0.0  # static counters: a real, zero rate


def test_binary_garbage_is_kept_as_printable_text_and_escaped_on_pages(
    broken_agent, client, admin_user, clean_backends
):
    device = Device.objects.create(
        name="garbage", host="127.0.0.1", port=broken_agent, community="garbage", timeout_s=3.0
    )
    assert run_poll(device.pk) == "ok"
    device.refresh_from_db()
    assert "<script>" in device.sys_descr and "\x00" not in device.sys_descr and "\x1b" not in device.sys_descr
    alias = device.interfaces.get().alias
    assert "<script>alert(1)</script>" in alias and all(ch.isprintable() for ch in alias)
    client.force_login(admin_user)
    page = client.get(f"/admin/monitor/device/{device.pk}/change/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_64_kb_sysdescr_is_capped_and_an_empty_device_is_still_polled(broken_agent, clean_backends):
    found = aio.run(discover(target(broken_agent, "huge"), registry()))
    assert len(found.identity.sys_descr) == 1024
    device = Device.objects.create(name="empty", host="127.0.0.1", port=broken_agent, community="empty", timeout_s=3.0)
    assert run_poll(device.pk) == "ok"
    device.refresh_from_db()
    assert device.profile == "dell-powerconnect-62xx"
    assert device.last_error == "" and device.consecutive_failures == 0
    assert device.interfaces.count() == 0


pytestmark = pytest.mark.django_db
