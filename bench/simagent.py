"""Thousands of simulated 52-port switches on one UDP port whose counters move with time; the community picks one.

snmpsim needs about 100 ms of CPU per switch poll, and bench/replayagent.py answers at once but its counters never
move (every rate is 0: zeros compress to nothing and graphs are flat). This agent serves the records of
monitor/devstack/fleet.py's PowerConnect 6248 (48 gigabit ports and 4 uplinks with octets, unicast and broadcast
packets, errors and discards) to GET, GETNEXT and GETBULK from any manager (the product's engines, Telegraf),
at most `max_varbinds` a answer as snmpsim does. Each community is a switch of its own: traffic level, phase of
the daily swing, per-port phases, counter offsets, which ports see errors and discards, boot time and sysName.

A counter is offset + the integral of its rate, in closed form:
    rate(t) = r * level * (1 + DAILY * sin(2 pi t / 86400 + phase_device) + a * sin(2 pi t / p + phase_port))
where r, a and p are the record's (fleet.py) and a <= 0.4, so rates stay positive and below line rate. What
answers a request (which records, in which order) is planned once per distinct request and cached; an answer
only computes its counters, sysUpTime and sysName.

    python -m bench.simagent PORT [MAX_VARBINDS]
"""

from __future__ import annotations

import math
import socket
import sys
import time
import zlib
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from pathlib import Path

from collectors.ber import decode_oid, encode_oid, encode_tlv, remember, tlv_bounds
from monitor.devstack.fleet import powerconnect_6248
from monitor.devstack.processes import Process, free_udp_port

DAY_S = 86400.0
DAILY = 0.45  # depth of the daily swing of every switch's traffic
W_DAY = 2 * math.pi / DAY_S
GET, GETNEXT, GETBULK, RESPONSE = 0xA0, 0xA1, 0xA5, 0xA2
END_OF_MIB, NO_SUCH_OBJECT = b"\x82\x00", b"\x80\x00"
SYS_NAME = (1, 3, 6, 1, 2, 1, 1, 5, 0)
STARTED = time.time()


def unsigned_tlv(tag: int, number: int) -> bytes:
    """An unsigned BER value (Counter32/64, Gauge32, TimeTicks): a leading zero byte when the top bit is set."""
    return encode_tlv(tag, number.to_bytes((number.bit_length() + 8) // 8, "big"))


@dataclass(frozen=True)
class Switch:
    """One simulated switch, derived from its community: the same community is the same switch in every run."""

    seed: int
    level: float  # traffic scale, 0.2 .. 1.6
    phase: float  # phase of the daily swing
    boot: float  # epoch seconds of its last boot
    name: bytes

    @classmethod
    def of(cls, community: bytes) -> Switch:
        seed = zlib.crc32(community)
        level = 0.2 + 1.4 * ((seed >> 8) & 0xFFFF) / 0xFFFF
        boot = STARTED - 3600 - (seed % (200 * 86400))
        return cls(seed, level, 2 * math.pi * (seed & 0xFF) / 256, boot, community)


class Dynamic:
    """A record whose value is computed per answer."""

    def value_tlv(self, switch: Switch, now: float) -> bytes:
        raise NotImplementedError


class Uptime(Dynamic):
    def value_tlv(self, switch: Switch, now: float) -> bytes:
        return unsigned_tlv(0x43, int((now - switch.boot) * 100) & 0xFFFFFFFF)


class SysName(Dynamic):
    def value_tlv(self, switch: Switch, now: float) -> bytes:
        return encode_tlv(0x04, switch.name)


class Counter(Dynamic):
    """A Counter32/64 record of fleet.py (`r=..,a=..,p=..,o=..,b=..,k=<port>-<direction>[-<what>]`)."""

    __slots__ = ("amplitude_s", "errors", "key", "mask", "omega", "port_key", "rate", "tag")

    def __init__(self, tag: int, params: dict[str, str]):
        self.tag, key = tag, params.get("k", "")
        self.key = key.encode()
        self.port_key = "-".join(key.split("-")[:2]).encode()  # octets and packets of a port and direction agree
        self.errors = "errors" in key or "discards" in key
        self.rate = float(params.get("r", 0))
        period = float(params.get("p", 0) or 3600)
        amplitude = min(0.4, 0.8 * float(params.get("a", 0)))
        self.omega = 2 * math.pi / period
        self.amplitude_s = amplitude / self.omega
        self.mask = 2 ** int(params.get("b", 64)) - 1

    def value_tlv(self, switch: Switch, now: float) -> bytes:
        seed = switch.seed
        mixed = zlib.crc32(self.key, seed)
        if self.errors:  # about one port in ten sees errors (or discards), 0.005 to 0.5 a second
            rate = 0.005 + (mixed >> 16) % 100 / 200 if mixed % 10 == 0 else 0.0
        else:
            rate = self.rate * switch.level
        port_phase = (zlib.crc32(self.port_key, seed) & 0xFFFF) * (2 * math.pi / 65536)
        moved = (
            now
            - DAILY / W_DAY * math.cos(W_DAY * now + switch.phase)
            - self.amplitude_s * math.cos(self.omega * now + port_phase)
        )
        offset = (mixed * 0x9E3779B1) & (self.mask >> 8)
        return unsigned_tlv(self.tag, (offset + int(rate * moved)) & self.mask)


STATIC_TAGS = {"2": 0x02, "4": 0x04, "6": 0x06, "64": 0x40, "65": 0x41, "66": 0x42, "67": 0x43, "70": 0x46}


def _static_tlv(tag: str, value: str) -> bytes:
    if tag == "4x":  # an OCTET STRING written in hex (MAC addresses, LLDP chassis ids)
        return encode_tlv(0x04, bytes.fromhex(value))
    ber = STATIC_TAGS[tag]
    if ber == 0x04:
        return encode_tlv(0x04, value.encode())
    if ber == 0x06:
        return encode_oid(tuple(int(x) for x in value.strip(".").split(".")))
    if ber == 0x40:
        return encode_tlv(0x40, bytes(int(x) for x in value.split(".")))
    number = int(value)
    if ber == 0x02:
        return encode_tlv(0x02, number.to_bytes(max(1, (number.bit_length() + 8) // 8), "big", signed=True))
    return unsigned_tlv(ber, number)


class Mib:
    """The switch's records in OID order: (OID, encoded OID, full varbind or Dynamic)."""

    def __init__(self, records: list[tuple[str, str, str]]):
        rows = []
        for oid_text, tag, value in records:
            oid = tuple(int(x) for x in oid_text.split("."))
            base, _, variation = tag.partition(":")
            params = dict(part.split("=", 1) for part in value.split(",") if "=" in part) if variation else {}
            if oid == SYS_NAME:
                entry: bytes | Dynamic = SysName()
            elif "u" in params:
                entry = Uptime()
            elif base in ("65", "70") and variation:
                entry = Counter(STATIC_TAGS[base], params)
            else:
                raw = params.get("g", value) if variation else value
                entry = encode_tlv(0x30, encode_oid(oid) + _static_tlv(base, raw))
            rows.append((oid, encode_oid(oid), entry))
        rows.sort(key=lambda row: row[0])
        self.oids = [row[0] for row in rows]
        self.encoded = [row[1] for row in rows]
        self.entries = [row[2] for row in rows]

    def exact(self, oid: tuple[int, ...]) -> int | None:
        at = bisect_left(self.oids, oid)
        return at if at < len(self.oids) and self.oids[at] == oid else None

    def after(self, oid: tuple[int, ...]) -> int | None:
        at = bisect_right(self.oids, oid)
        return at if at < len(self.oids) else None


def plan(mib: Mib, pdu: int, v1: bool, a: int, b: int, asked: list[tuple[int, ...]], most: int) -> tuple:
    """(error status, error index, varbinds): each varbind full bytes or (encoded OID, Dynamic)."""
    out: list = []

    def add(index: int | None, oid: tuple[int, ...], missing: bytes) -> None:
        if index is None:
            out.append(encode_tlv(0x30, encode_oid(oid) + missing))
        else:
            entry = mib.entries[index]
            out.append(entry if isinstance(entry, bytes) else (mib.encoded[index], entry))

    if pdu != GETBULK or v1:  # GET, GETNEXT (and a v1 GETBULK, which v1 does not have, read as GETNEXT)
        for n, oid in enumerate(asked):
            index = mib.exact(oid) if pdu == GET else mib.after(oid)
            if index is None and v1:  # SNMPv1: noSuchName, the request's varbinds sent back
                return 2, n + 1, [encode_tlv(0x30, encode_oid(o) + b"\x05\x00") for o in asked]
            add(index, oid, NO_SUCH_OBJECT if pdu == GET else END_OF_MIB)
        return 0, 0, out
    fixed, repeated = asked[: max(0, a)], asked[max(0, a) :]
    for oid in fixed:
        add(mib.after(oid), oid, END_OF_MIB)
    cursors, ended = list(repeated), [False] * len(repeated)
    for _ in range(max(0, b)):
        if all(ended) or len(out) >= most:
            break
        for n, oid in enumerate(cursors):  # a column past the end of the MIB answers endOfMibView again
            index = None if ended[n] else mib.after(oid)
            add(index, oid, END_OF_MIB)
            if index is None:
                ended[n] = True
            else:
                cursors[n] = mib.oids[index]
    return 0, 0, out[:most]


def answer(mib: Mib, plans: dict, switches: dict, data: bytes, most: int, now: float) -> bytes | None:
    """The Response to one request datagram (None for what is not a v1/v2c GET, GETNEXT or GETBULK)."""
    _, pos, end = tlv_bounds(data, 0, len(data))
    _, vstart, vend = tlv_bounds(data, pos, end)
    _, cstart, cend = tlv_bounds(data, vend, end)
    pdu, pstart, pend = tlv_bounds(data, cend, end)
    version = data[vstart:vend]
    if pdu not in (GET, GETNEXT, GETBULK) or version not in (b"\x00", b"\x01"):
        return None
    _, _, id_end = tlv_bounds(data, pstart, pend)
    key = bytes((pdu,)) + version + data[id_end:pend]
    planned = plans.get(key)
    if planned is None:
        planned = remember(plans, key, _plan_request(mib, pdu, version == b"\x00", data, id_end, pend, most), 4096)
    status, index, varbinds = planned
    community = data[cstart:cend]
    switch = switches.get(community) or remember(switches, community, Switch.of(community), 100_000)
    parts = [vb if vb.__class__ is bytes else encode_tlv(0x30, vb[0] + vb[1].value_tlv(switch, now)) for vb in varbinds]
    body = data[pstart:id_end] + bytes((2, 1, status, 2, 1, index)) + encode_tlv(0x30, b"".join(parts))
    return encode_tlv(0x30, data[pos:cend] + encode_tlv(RESPONSE, body))


def _plan_request(mib: Mib, pdu: int, v1: bool, data: bytes, pos: int, end: int, most: int) -> tuple:
    numbers = []
    for _ in range(2):
        _, start, pos = tlv_bounds(data, pos, end)
        numbers.append(int.from_bytes(data[start:pos], "big", signed=True))
    _, pos, stop = tlv_bounds(data, pos, end)
    asked = []
    while pos < stop:
        _, start, after = tlv_bounds(data, pos, stop)
        _, ostart, oend = tlv_bounds(data, start, after)
        asked.append(decode_oid(data[ostart:oend]))
        pos = after
    return plan(mib, pdu, v1, numbers[0], numbers[1], asked, most)


def serve(port: int, most: int = 64) -> None:
    """Answer on 127.0.0.1:port until killed."""
    mib = Mib(powerconnect_6248("template", name="template").records())
    plans: dict = {}
    switches: dict = {}
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    sock.bind(("127.0.0.1", port))
    print(f"serving {len(mib.oids)} records per switch on 127.0.0.1:{port}", flush=True)
    clock = time.time
    while True:
        data, addr = sock.recvfrom(65535)
        try:
            reply = answer(mib, plans, switches, data, most, clock())
        except (ValueError, IndexError):  # BerError is a ValueError: a malformed request gets no answer
            continue
        if reply is not None:
            sock.sendto(reply, addr)


class SimAgents:
    """`count` agent processes on loopback ports; switch n is community `s<n>` on port n % count."""

    def __init__(self, count: int, work: Path, most: int = 64):
        repo = Path(__file__).resolve().parents[1]
        self.ports = [free_udp_port() for _ in range(count)]
        self.processes = [
            Process(
                f"simagent-{n}",
                [sys.executable, "-m", "bench.simagent", str(port), str(most)],
                work / f"simagent-{n}.log",
                cwd=repo,
            )
            for n, port in enumerate(self.ports)
        ]
        deadline = time.time() + 30
        for process in self.processes:
            while "serving" not in process.log_tail(5):
                if time.time() > deadline or not process.alive:
                    self.stop()
                    raise process.fail("the simulated switches' agent did not start")
                time.sleep(0.1)

    def switches(self, count: int, host: str = "127.0.0.1") -> list[tuple[str, int, str]]:
        """(host, port, community) of the first `count` switches, spread over the agents."""
        return [(host, self.ports[n % len(self.ports)], f"s{n}") for n in range(count)]

    @property
    def pids(self) -> list[int]:
        return [process.popen.pid for process in self.processes]

    def stop(self) -> None:
        for process in self.processes:
            process.stop()


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 64)
