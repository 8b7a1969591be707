"""Scenario 8's Telegraf anchor: Telegraf's inputs.snmp polls the same simulated switches every 60 s into InfluxDB.

One [[inputs.snmp]] per switch (a community each, as Telegraf users configure a fleet: generated config), the
same interface columns the product reads (names, aliases, speeds, status, 64-bit octets, errors, discards,
unicast and broadcast packets) plus sysUpTime and the switch's memory and CPU scalars, into a bucket of its own
through outputs.influxdb_v2. Telegraf computes no rates and writes no rollups: raw counters only.
"""

from __future__ import annotations

import time
from pathlib import Path

from bench import stack
from bench.s8_resources import tree_cpu, tree_memory
from monitor.devstack.processes import Process

COLUMNS = {
    "ifName": "1.3.6.1.2.1.31.1.1.1.1",
    "ifAlias": "1.3.6.1.2.1.31.1.1.1.18",
    "ifHighSpeed": "1.3.6.1.2.1.31.1.1.1.15",
    "ifOperStatus": "1.3.6.1.2.1.2.2.1.8",
    "ifHCInOctets": "1.3.6.1.2.1.31.1.1.1.6",
    "ifHCOutOctets": "1.3.6.1.2.1.31.1.1.1.10",
    "ifInErrors": "1.3.6.1.2.1.2.2.1.14",
    "ifOutErrors": "1.3.6.1.2.1.2.2.1.20",
    "ifInDiscards": "1.3.6.1.2.1.2.2.1.13",
    "ifOutDiscards": "1.3.6.1.2.1.2.2.1.19",
    "ifHCInUcastPkts": "1.3.6.1.2.1.31.1.1.1.7",
    "ifHCOutUcastPkts": "1.3.6.1.2.1.31.1.1.1.11",
    "ifHCInBroadcastPkts": "1.3.6.1.2.1.31.1.1.1.9",
    "ifHCOutBroadcastPkts": "1.3.6.1.2.1.31.1.1.1.13",
}
SCALARS = {
    "uptime": "1.3.6.1.2.1.1.3.0",
    "mem_free_kb": "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.1.0",
    "mem_total_kb": "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.2.0",
    "cpu": "1.3.6.1.4.1.674.10895.5000.2.6132.1.1.1.1.4.4.0",
}
BUCKET = "telegraf"


def config(switches: list[tuple[str, int, str]], influx, interval_s: int = 60) -> str:
    """Telegraf's configuration: the agent, one input per switch, the InfluxDB output."""
    agent = (
        f'[agent]\n  interval = "{interval_s}s"\n  round_interval = true\n  flush_interval = "10s"\n'
        "  omit_hostname = true\n  metric_batch_size = 5000\n  metric_buffer_limit = 1000000\n\n"
        f'[[outputs.influxdb_v2]]\n  urls = ["{influx.url}"]\n  token = "{influx.token}"\n'
        f'  organization = "{influx.org}"\n  bucket = "{BUCKET}"\n\n'
    )
    scalars = "".join(f'  [[inputs.snmp.field]]\n    name = "{n}"\n    oid = ".{o}"\n' for n, o in SCALARS.items())
    table = '  [[inputs.snmp.table]]\n    name = "interface"\n' + "".join(
        f'    [[inputs.snmp.table.field]]\n      name = "{n}"\n      oid = ".{o}"\n'
        + ("      is_tag = true\n" if n == "ifName" else "")
        for n, o in COLUMNS.items()
    )
    inputs = "".join(
        f'[[inputs.snmp]]\n  agents = ["udp://{host}:{port}"]\n  version = 2\n  community = "{community}"\n'
        f'  timeout = "2s"\n  retries = 1\n  max_repetitions = 25\n  path = []\n'
        f'  [inputs.snmp.tags]\n    switch = "{community}"\n{scalars}{table}\n'
        for host, port, community in switches
    )
    return agent + inputs


def _create_bucket(influx) -> None:
    import json
    import urllib.request

    org = urllib.request.Request(
        f"{influx.url}/api/v2/orgs?org={influx.org}", headers={"Authorization": f"Token {influx.token}"}
    )
    with urllib.request.urlopen(org, timeout=30) as response:
        org_id = json.load(response)["orgs"][0]["id"]
    body = json.dumps({"orgID": org_id, "name": BUCKET, "retentionRules": []}).encode()
    request = urllib.request.Request(
        f"{influx.url}/api/v2/buckets",
        data=body,
        headers={"Authorization": f"Token {influx.token}", "Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=30).close()


def run(
    binary: str, switches: list[tuple[str, int, str]], influx, influxd_pid: int, work: Path, minutes: float
) -> dict:
    """Telegraf polling `switches` every 60 s: after two warm-up minutes, its CPU and InfluxDB's over `minutes`, and
    how many of the switch-polls due in that time reached InfluxDB (one `snmp` point per switch and poll)."""
    _create_bucket(influx)
    conf = work / "telegraf-s8.conf"
    conf.write_text(config(switches, influx))
    process = Process("telegraf", [binary, "--config", str(conf)], work / "log" / "telegraf-s8.log")
    try:
        time.sleep(150)  # first gathers at the next round minute, then one more
        start = (int(time.time()) // 60 + 1) * 60
        time.sleep(max(0.0, start - time.time()))
        cpu0, influx0 = tree_cpu(process.popen.pid), tree_cpu(influxd_pid)
        time.sleep(minutes * 60)
        cpu, influx_cpu = tree_cpu(process.popen.pid) - cpu0, tree_cpu(influxd_pid) - influx0
        rss, _ = tree_memory(process.popen.pid)
        time.sleep(20)  # the last gathers flushed (flush_interval 10 s)
        stop = start + minutes * 60
    finally:
        process.stop()
    log = process.log_path.read_text(errors="replace")
    flux = (
        f'from(bucket:"{BUCKET}") |> range(start:{start}, stop:{int(stop)})'
        ' |> filter(fn:(r) => r._measurement == "snmp" and r._field == "uptime")'
        ' |> keep(columns:["_time","switch"]) |> group()'
    )
    polls = {(row["switch"], row["_time"][:16]) for row in stack.flux_rows(influx, flux)}
    expected = len(switches) * int(minutes)
    series = stack.flux_rows(
        influx, f'import "influxdata/influxdb"\ninfluxdb.cardinality(bucket: "{BUCKET}", start: -1d)'
    )
    return {
        "switches": len(switches),
        "minutes": minutes,
        "polls_expected": expected,
        "polls_written": len(polls),
        "cpu_cores": cpu / (minutes * 60),
        "cpu_per_poll_ms": cpu / max(len(polls), 1) * 1e3,
        "rss_mb": rss,
        "influxdb_cpu_cores": influx_cpu / (minutes * 60),
        "series": int(series[0]["_value"]) if series else 0,
        "took_longer_warnings": log.count("took longer than expected") + log.count("did not complete within"),
        "errors": [line[-160:] for line in log.splitlines() if " E! " in line][:3],
    }
