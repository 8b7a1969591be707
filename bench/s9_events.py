"""Scenario 9: the event receivers under a burst. `manage.py receive_traps` and `receive_syslog` run as the
processes they are in production; 5,000 SNMP traps (10 devices) and 20,000 syslog lines (20 devices) arrive in
10 s on loopback, then one device floods 10,000 lines at once. Counted: what was stored, what was dropped and why
(the receivers' own counters, kernel drops included), the receivers' CPU, and that both still answer afterwards."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from bench.common import REPO

TRAPS, TRAP_DEVICES = 5000, 10
LINES, LINE_DEVICES = 20000, 20
FLOOD = 10000
SECONDS = 10.0


def _setup_django(work: Path) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def _devices() -> tuple[list[str], list[str]]:
    from monitor.events.models import Event, Receiver
    from monitor.models import Device

    Device.objects.filter(name__startswith="s9-").delete()
    Event.objects.all().delete()
    Receiver.objects.all().delete()
    traps = [f"127.0.9.{n + 1}" for n in range(TRAP_DEVICES)]
    lines = [f"127.0.10.{n + 1}" for n in range(LINE_DEVICES)]
    for n, host in enumerate(traps):
        Device.objects.create(name=f"s9-trap-{n}", host=host, community="s9-bench")
    for n, host in enumerate([*lines, "127.0.11.1"]):
        Device.objects.create(name=f"s9-syslog-{n}", host=host, community="s9-bench")
    return traps, lines


def _trap_bytes() -> bytes:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.settimeout(10)
        oid = "1.3.6.1.2.1.2.2.1"
        subprocess.run(
            ["snmptrap", "-v", "2c", "-c", "s9-bench", f"127.0.0.1:{sock.getsockname()[1]}", "", "1.3.6.1.6.3.1.1.5.3",
             f"{oid}.1.5", "i", "5", f"{oid}.7.5", "i", "1", f"{oid}.8.5", "i", "2"],
            check=True, timeout=20,
        )  # fmt: skip
        return sock.recvfrom(65535)[0]


def _send(sources: list[str], port: int, payloads, count: int, seconds: float) -> float:
    """`count` datagrams spread evenly over `seconds` across the source addresses; returns the seconds taken."""
    sockets = []
    for source in sources:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.bind((source, 0))
        sockets.append(sock)
    began = time.perf_counter()
    for n in range(count):
        due = began + seconds * n / count
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        sockets[n % len(sockets)].sendto(payloads(n), ("127.0.0.1", port))
    taken = time.perf_counter() - began
    for sock in sockets:
        sock.close()
    return taken


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _counts(name_prefix: str) -> dict[str, int]:
    from monitor.events.models import ReceiverCount

    found: dict[str, int] = {}
    for reason, count in ReceiverCount.objects.filter(receiver__name__startswith=name_prefix).values_list(
        "reason", "count"
    ):
        found[reason] = found.get(reason, 0) + count
    return found


def _settle(prefix: str, sent: int, timeout: float = 120.0) -> tuple[dict[str, int], float]:
    """Wait until every sent message is accounted for (stored or dropped by reason) or the counts stop moving."""
    began = time.monotonic()
    last, still = None, 0
    while time.monotonic() - began < timeout:
        counts = _counts(prefix)
        if sum(counts.values()) >= sent:
            return counts, time.monotonic() - began
        still = still + 1 if counts == last else 0
        if still >= 10:  # 5 s without a change
            break
        last = counts
        time.sleep(0.5)
    return _counts(prefix), time.monotonic() - began


def _answers(trap_port: int, syslog_port: int, trap: bytes) -> dict[str, float | None]:
    """After the burst: one trap and one line from quiet devices; seconds until each is stored."""
    from monitor.events.models import Event
    from monitor.models import Device

    quiet = Device.objects.create(name="s9-quiet", host="127.0.12.1", community="s9-bench")
    time.sleep(float(os.environ.get("EVENTS_REFRESH_S", "2")) + 1)  # the receivers re-read the devices
    out = {}
    for key, port, payload in (("trap_s", trap_port, trap), ("syslog_s", syslog_port, b"<14>after the burst")):
        began = time.monotonic()
        _send(["127.0.12.1"], port, lambda n, p=payload: p, 1, 0.0)
        while time.monotonic() - began < 30:
            if Event.objects.filter(device=quiet, source="trap" if key == "trap_s" else "syslog").exists():
                break
            time.sleep(0.05)
        found = Event.objects.filter(device=quiet, source="trap" if key == "trap_s" else "syslog").exists()
        out[key] = round(time.monotonic() - began, 2) if found else None
    return out


def run(work: Path) -> dict:
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "EVENTS_REFRESH_S": "2"}
    os.environ["EVENTS_REFRESH_S"] = "2"
    _setup_django(work)
    trap_sources, line_sources = _devices()
    trap = _trap_bytes()
    from monitor.devstack.processes import free_udp_port

    trap_port, syslog_port = free_udp_port(), free_udp_port()
    logs = work / "s9-logs"
    logs.mkdir(exist_ok=True)
    procs = {}
    for kind, port in (("traps", trap_port), ("syslog", syslog_port)):
        argv = [sys.executable, "manage.py", f"receive_{kind}", "--bind", "127.0.0.1", "--port", str(port),
                "--name", f"s9-{kind}"]  # fmt: skip
        with open(logs / f"{kind}.log", "wb") as log:
            procs[kind] = subprocess.Popen(argv, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    time.sleep(4)  # started, devices read
    cpu0 = {kind: _cpu_s(p.pid) for kind, p in procs.items()}
    line = b"<190>Oct  1 12:00:01 switch TRAPMGR[123]: Link Down: 1/g5 %06d"
    taken = {}

    def burst(kind: str, sources: list[str], port: int, payloads, count: int) -> threading.Thread:
        return threading.Thread(target=lambda: taken.__setitem__(kind, _send(sources, port, payloads, count, SECONDS)))

    threads = [
        burst("traps", trap_sources, trap_port, lambda n: trap, TRAPS),
        burst("syslog", line_sources, syslog_port, lambda n: line % n, LINES),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    trap_counts, trap_settle = _settle("s9-traps", TRAPS)
    line_counts, line_settle = _settle("s9-syslog", LINES)
    cpu1 = {kind: _cpu_s(p.pid) for kind, p in procs.items()}
    flood_taken = _send(["127.0.11.1"], syslog_port, lambda n: line % n, FLOOD, 0.0)
    flood_counts, _ = _settle("s9-syslog", LINES + FLOOD)
    flood = {k: v - line_counts.get(k, 0) for k, v in flood_counts.items() if v - line_counts.get(k, 0)}
    after = _answers(trap_port, syslog_port, trap)
    alive = {kind: p.poll() is None for kind, p in procs.items()}
    for p in procs.values():
        p.terminate()
        p.wait(20)

    def side(sent: int, counts: dict[str, int], seconds: float, settle: float, cpu: float) -> dict:
        accounted = sum(counts.values())
        return {
            "sent": sent,
            "send_seconds": round(seconds, 2),
            "stored": counts.get("stored", 0),
            "dropped": {k: v for k, v in sorted(counts.items()) if k != "stored"},
            "unaccounted": max(sent - accounted, 0),
            "settle_seconds": round(settle, 1),
            "cpu_seconds": round(cpu, 2),
        }

    return {
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "traps": side(TRAPS, trap_counts, taken["traps"], trap_settle, cpu1["traps"] - cpu0["traps"]),
        "syslog": side(LINES, line_counts, taken["syslog"], line_settle, cpu1["syslog"] - cpu0["syslog"]),
        "flood": {"sent": FLOOD, "send_seconds": round(flood_taken, 2), "outcome": dict(sorted(flood.items()))},
        "after": after,
        "alive": alive,
        "rate_limit": {
            "per_s": float(os.environ.get("EVENTS_SOURCE_RATE", 500)),
            "burst": int(os.environ.get("EVENTS_SOURCE_BURST", 5000)),
        },
    }


def render(result: dict) -> str:
    """The section of docs/performance.md."""
    rows = []
    for kind, label in (
        ("traps", "SNMP traps (v2c linkDown, 10 devices)"),
        ("syslog", "syslog lines (UDP, 20 devices)"),
    ):
        r = result[kind]
        dropped = ", ".join(f"{k} {v:,}" for k, v in r["dropped"].items()) or "none"
        rows.append(
            f"| {label} | {r['sent']:,} in {r['send_seconds']} s | {r['stored']:,} | {dropped} | {r['unaccounted']:,} "
            f"| {r['settle_seconds']} s | {r['cpu_seconds']} s |"
        )
    flood = result["flood"]
    outcome = ", ".join(f"{k} {v:,}" for k, v in flood["outcome"].items())
    after, limit = result["after"], result["rate_limit"]
    return "\n".join(
        [
            "## 9. Event receivers under a burst",
            "",
            "`manage.py receive_traps` and `manage.py receive_syslog` as separate processes (SQLite, the writer's",
            "batches of up to 1,000 rows), senders on loopback from distinct source addresses (one per device), evenly",
            "paced over 10 s; then one device sends 10,000 lines as fast as a socket can. `bench/run.py --only s9`",
            f"(measured {result.get('date', '')}, 2 cores shared with other work).",
            "",
            "| burst | sent | stored | dropped, by reason | unaccounted | all counted after | receiver CPU |",
            "|---|---|---|---|---|---|---|",
            *rows,
            "",
            f"The flood from one device ({flood['sent']:,} lines in {flood['send_seconds']} s): {outcome}.",
            f"The per-source bound ({limit['per_s']:g}/s, burst {limit['burst']:,}) keeps one device from filling",
            "the queue the others share; what it drops is counted, and nothing stored before is removed.",
            f"Afterwards both still answer: a trap from a quiet device was stored {after['trap_s']} s after it was",
            f"sent, a syslog line {after['syslog_s']} s after (still running: "
            f"{', '.join(k for k, up in result['alive'].items() if up) or 'neither'}).",
            "",
            '"unaccounted" is what neither the receiver nor the kernel\'s drop counter saw (0 means every message is',
            "either stored or counted by reason); kernel drops (socket buffer full) are counted as `socket_overflow`.",
        ]
    )


HEADING = "## 9. Event receivers under a burst"


def splice(document: str, section: str) -> str:
    """`document` with scenario 9's section replaced by `section` (or put before the findings)."""
    import re

    pattern = re.compile(re.escape(HEADING) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(document):
        return pattern.sub(lambda _: section.rstrip("\n") + "\n", document, count=1)
    marker = "\n## Findings"
    if marker in document:
        return document.replace(marker, "\n" + section.rstrip("\n") + "\n" + marker, 1)
    return document.rstrip("\n") + "\n\n" + section
