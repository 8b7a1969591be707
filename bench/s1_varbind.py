"""Scenario 1: CPU per useful varbind on the full poll path, ours (both engines) against Telegraf and Net-SNMP."""

from __future__ import annotations

import asyncio
import subprocess
import time
from pathlib import Path

from bench.common import IF_COLUMNS, SYS_UPTIME, cpu_of, cpu_self, median
from collectors.counters import Reading, counter_rate
from collectors.lineprotocol import format_samples
from collectors.samples import CounterState, Sample
from collectors.sessions import open_session
from collectors.snmptypes import SnmpTarget

PORTS = 52  # the PowerConnect 6248 recording: 48 gigabit ports and 4 uplinks
USEFUL = 1 + PORTS * len(IF_COLUMNS)  # sysUpTime and six columns per port


async def interface_poll(target: SnmpTarget, engine: str, previous: CounterState | None) -> tuple[CounterState, int]:
    """Request, decode, rate maths and line protocol for sysUpTime and the six IF-MIB columns."""
    session = open_session(target, engine)
    uptime = (await session.get([SYS_UPTIME]))[SYS_UPTIME]
    table = await session.walk(IF_COLUMNS)
    now = time.time()
    names, _aliases, speeds, status, hc_in, hc_out = (table[c] for c in IF_COLUMNS)
    state = CounterState(uptime_ticks=uptime.value, taken_at=now)
    samples = []
    for index, name in names.items():
        port = name.printable() if hasattr(name, "printable") else name.as_text()
        speed = speeds[index].value * 1_000_000
        fields: dict[str, float | int] = {"speed_bps": speed, "oper_up": int(status[index].value == 1)}
        for direction, value in (("in", hc_in[index]), ("out", hc_out[index])):
            key = f"{port}\t{direction}"
            reading = Reading(value.value, 64, now)
            state.counters[key] = (reading.value, 64, now)
            old = previous.counters.get(key) if previous else None
            rate = counter_rate(Reading(*old) if old else None, reading, max_per_second=speed / 8)
            if rate.per_second is not None:
                fields[f"{direction}_bps"] = rate.per_second * 8
        samples.append(Sample("interface", {"device": "1", "port": port}, fields, now))
    samples.append(Sample("system", {"device": "1"}, {"uptime_s": uptime.value / 100}, now))
    lines = format_samples(samples)
    return state, sum(map(len, table.values())) + 1 if lines else 0


def measure_ours(target: SnmpTarget, engine: str, polls: int, runs: int) -> list[float]:
    """CPU seconds per useful varbind, one figure per run (polls one after another on one loop)."""

    async def go() -> list[float]:
        state, _ = await interface_poll(target, engine, None)  # warm-up: engine, socket, first counters
        figures = []
        for _ in range(runs):
            cpu0, varbinds = cpu_self(), 0
            for _ in range(polls):
                state, got = await interface_poll(target, engine, state)
                varbinds += got
            figures.append((cpu_self() - cpu0) / varbinds)
        return figures

    return asyncio.run(go())


def measure_ezsnmp(target: SnmpTarget, polls: int, runs: int) -> list[float]:
    """Net-SNMP's C library through ezsnmp: GET sysUpTime and GETBULK-walk the same six columns."""
    from ezsnmp import Session

    session = Session(
        hostname="127.0.0.1",
        port_number=target.port,
        version="2c",
        community=target.community,
        timeout=2,
        retries=1,
        set_max_repeaters_to_num=target.max_repetitions,
        print_oids_numerically=True,
        print_timeticks_numerically=True,
    )
    figures = []
    for run in range(runs + 1):
        cpu0, varbinds = cpu_self(), 0
        for _ in range(polls):
            varbinds += len(session.get([SYS_UPTIME]))
            for column in IF_COLUMNS:
                varbinds += len(session.bulk_walk([column]))
        if run:  # the first run is a warm-up
            figures.append((cpu_self() - cpu0) / varbinds)
    return figures


TELEGRAF_INPUT = """
[[inputs.snmp]]
  agents = ["udp://127.0.0.1:{port}"]
  version = 2
  community = "{community}"
  timeout = "5s"
  retries = 1
  max_repetitions = {reps}
  path = []
  [[inputs.snmp.field]]
    name = "uptime"
    oid = ".{uptime}"
  [[inputs.snmp.table]]
    name = "interface"
{fields}
"""
TELEGRAF_FIELD = '    [[inputs.snmp.table.field]]\n      name = "c{n}"\n      oid = ".{oid}"\n{tag}'


def telegraf_config(target: SnmpTarget, inputs: int, out: Path) -> str:
    fields = "".join(
        TELEGRAF_FIELD.format(n=n, oid=oid, tag="      is_tag = true\n" if n == 0 else "")
        for n, oid in enumerate(IF_COLUMNS)
    )
    one = TELEGRAF_INPUT.format(
        port=target.port, community=target.community, reps=target.max_repetitions, uptime=SYS_UPTIME, fields=fields
    )
    agent = '[agent]\n  interval = "1s"\n  flush_interval = "1s"\n  omit_hostname = true\n  quiet = true\n'
    agent += "  metric_batch_size = 100000\n  metric_buffer_limit = 1000000\n"
    output = f'[[outputs.file]]\n  files = ["{out}"]\n  data_format = "influx"\n'
    return agent + one * inputs + output


def measure_telegraf(binary: str, target: SnmpTarget, work: Path, runs: int, window_s: float = 8.0) -> list[float]:
    """Telegraf's process CPU per useful varbind over windows of its steady state (polls counted from its output)."""
    out, conf = work / "telegraf.lp", work / "telegraf.conf"
    out.unlink(missing_ok=True)
    conf.write_text(telegraf_config(target, inputs=4, out=out))
    log = (work / "telegraf.log").open("wb")
    process = subprocess.Popen([binary, "--config", str(conf)], stdout=log, stderr=subprocess.STDOUT)
    try:
        time.sleep(5)
        figures = []
        for _ in range(runs):
            cpu0, t0 = cpu_of(process.pid), time.time()
            time.sleep(window_s)
            cpu1, t1 = cpu_of(process.pid), time.time()
            time.sleep(2)  # let the window's metrics be flushed
            polls = sum(
                1
                for line in out.read_text().splitlines()
                if line.startswith("snmp,") and t0 <= int(line.rsplit(" ", 1)[1]) / 1e9 < t1
            )
            figures.append((cpu1 - cpu0) / max(1, polls * USEFUL))
        return figures
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def run(target: SnmpTarget, telegraf: str | None, work: Path, runs: int = 5) -> dict:
    """All peers against the same agent, in this run; figures in µs per useful varbind (medians)."""
    result: dict = {"useful_varbinds_per_poll": USEFUL, "runs": runs}
    result["fast"] = median(measure_ours(target, "fast", polls=20, runs=runs)) * 1e6
    result["pysnmp"] = median(measure_ours(target, "pysnmp", polls=3, runs=runs)) * 1e6
    result["ezsnmp"] = median(measure_ezsnmp(target, polls=20, runs=runs)) * 1e6
    if telegraf:
        result["telegraf"] = median(measure_telegraf(telegraf, target, work, runs=max(3, runs // 2))) * 1e6
    return result
