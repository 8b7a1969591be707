"""An SNMP agent that answers at once with what snmpsim answered before: the poller, not the simulator, is busy.

snmpsim needs far more CPU per answer than our poller (about 60 ms per switch poll against 3-5 ms), so against
it the poller waits most of the time, and a poller that sleeps between answers pays for cold caches and
wake-ups that a busy poller does not. To measure a poller at the load the per-core target speaks of, one
switch's requests and snmpsim's answers are recorded through a proxy (discovery and several polls), and this
agent replays them: the answer to a request with the same PDU (apart from its request id), with the asking
community and request id put in. Counters do not move between replays (rates are 0); a request it has not
recorded gets no answer, so the poll fails and the bench counts it.

    python -m bench.replayagent PAIRS_FILE PORT
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
from pathlib import Path

from bench.delayproxy import DelayProxy
from collectors.batch import BatchJob, poll_many
from collectors.ber import encode_tlv, tlv_bounds
from collectors.profiles import Profile
from collectors.snmptypes import SnmpTarget
from monitor.devstack.processes import Process, free_udp_port


def _split(message: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """(version TLV, community, request id TLV, the rest of the PDU) of a v1/v2c message."""
    _, pos, end = tlv_bounds(message, 0, len(message))
    _, _, version_end = tlv_bounds(message, pos, end)
    _, community_start, community_end = tlv_bounds(message, version_end, end)
    _, pdu_start, pdu_end = tlv_bounds(message, community_end, end)
    _, _, id_end = tlv_bounds(message, pdu_start, pdu_end)
    return (
        message[pos:version_end],
        message[community_start:community_end],
        message[pdu_start:id_end],
        message[id_end:pdu_end],
    )


def record(upstream_port: int, community: str, profile: Profile, profiles: dict[str, Profile], polls: int = 4):
    """Discover and poll one snmpsim switch `polls` times through a recording proxy; the (request, answer) pairs."""
    asked: dict[int, bytes] = {}
    pairs: list[tuple[bytes, bytes]] = []

    def on_request(data: bytes) -> None:
        asked[_request_id(data)] = data

    def on_answer(data: bytes) -> None:
        request = asked.pop(_request_id(data), None)
        if request is not None:
            pairs.append((request, data))

    proxy = DelayProxy(upstream_port, delay=0.0, on_request=on_request, on_answer=on_answer)
    target = SnmpTarget("127.0.0.1", proxy.port, community=community, timeout=10.0, retries=1)

    async def go() -> None:
        state = None
        for n in range(polls):
            jobs = [BatchJob(target, "replay", state, profile, discover=n == 0)]
            (outcome,) = await poll_many(jobs, engine="fast", profiles=profiles)
            if outcome.result is None:
                raise RuntimeError(f"recording poll failed: {outcome.error}")
            state = outcome.result.state
            await asyncio.sleep(1.0)

    try:
        asyncio.run(go())
    finally:
        proxy.stop()
    return pairs


def _request_id(message: bytes) -> int:
    _, _, id_tlv, _ = _split(message)
    return int.from_bytes(id_tlv[2:], "big", signed=True)


class ReplayAgent:
    """The replaying agent as a process of its own on a loopback port."""

    def __init__(self, pairs: list[tuple[bytes, bytes]], work: Path):
        work.mkdir(parents=True, exist_ok=True)
        self.pairs_file = work / "replay-pairs.json"
        self.pairs_file.write_text(json.dumps([[q.hex(), a.hex()] for q, a in pairs]))
        self.port = free_udp_port()
        argv = [sys.executable, "-m", "bench.replayagent", str(self.pairs_file), str(self.port)]
        self.process = Process("replay-agent", argv, work / "replay-agent.log", cwd=Path(__file__).resolve().parents[1])
        deadline = time.time() + 20
        while "replaying" not in self.process.log_tail(5):
            if time.time() > deadline or not self.process.alive:
                raise self.process.fail("the replay agent did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        self.process.stop()


def serve(pairs_file: Path, port: int) -> None:
    answers = {}
    for request, answer in json.loads(pairs_file.read_text()):
        answers[_split(bytes.fromhex(request))[3]] = _split(bytes.fromhex(answer))[3]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.bind(("127.0.0.1", port))
    print(f"replaying {len(answers)} answers on 127.0.0.1:{port}", flush=True)
    while True:
        data, addr = sock.recvfrom(65535)
        try:
            version, community, request_id, rest = _split(data)
        except (ValueError, IndexError):
            continue
        body = answers.get(rest)
        if body is not None:
            pdu = encode_tlv(0xA2, request_id + body)
            sock.sendto(encode_tlv(0x30, version + encode_tlv(0x04, community) + pdu), addr)


if __name__ == "__main__":
    serve(Path(sys.argv[1]), int(sys.argv[2]))
