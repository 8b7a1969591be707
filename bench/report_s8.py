"""Scenario 8's section of docs/performance.md: the sustained whole-pipeline runs and the anchors' rows."""

from __future__ import annotations

import re

from bench.s8_published import PUBLISHED

HEADING = "## 8. Sustained: the whole pipeline on one machine"
RERUN = (
    "Re-run: `.venv/bin/python bench/run.py --only s8 --switches 2000 --minutes 30` (one size; about 40 minutes "
    "with Telegraf's 10-minute anchor and the compaction pass), or `--only s8 --find` (500, 1,000, 2,000, 3,000, "
    "4,000 switches for 12 minutes each until one fails, then the largest that passed for `--minutes`). Not part "
    "of `make bench`. Options: `--s8-processes` (worker pool, 8), `--s8-agents` (agent processes, one per 1,500 "
    "switches), `--database sqlite`, `--rollup-schema stat-tag` (the Celery rollup job's points), `--no-telegraf`."
)


def _f(value, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _ms(value) -> str:
    return "n/a" if value is None or value != value else f"{value * 1e3:,.0f}"


def _mb(value) -> str:
    return "n/a" if value is None else f"{value / 1e6:,.1f}"


def runs(section: dict) -> list[dict]:
    """Every run recorded, smallest fleet first (the confirmation of --find included)."""
    found = dict(section.get("runs", {}))
    return sorted(found.values(), key=lambda r: (r["switches"], r["minutes"]))


def _outcome(v: dict) -> str:
    parts = [name for name in ("ticks", "rollups", "pages") if not v.get(name)]
    if v.get("pass"):
        return "**pass**"
    return "fail: " + ", ".join(parts) + ("" if v.get("rollups_checked", True) else " (no rollup window due)")


def _tier(t: dict) -> str:
    early = t.get("not_yet_due_complete", 0)
    pending = t.get("not_yet_due_incomplete", 0)
    text = f"{t['due']} / {t['late']} / {t['missing']}"
    if early or pending:
        text += f" (+{early} complete before due" + (f", {pending} incomplete, not yet due" if pending else "") + ")"
    return text


def render(section: dict) -> str:
    """The section: what runs, the table per criterion, resources, storage, anchors, how to re-run."""
    rows = runs(section)
    out = [
        HEADING + "\n",
        "N simulated 52-port switches (bench/simagent.py: the PowerConnect 6248 records of the snmpsim fleet, "
        "answered at once; each community is a switch with its own traffic level, daily swing, port phases, "
        "error-prone ports and boot time, so octet, packet, error and discard counters move) polled every 60 s, "
        "with everything production runs on this machine at once: Redis, InfluxDB 2.7, PostgreSQL, one Celery "
        "worker (prefork, fast engine) and beat, the rollups, and gunicorn (4 sync workers) serving device pages to "
        "a user who opens one every 5 s (alternately 1 day and 1 year: the page's HTML, then every graph's data as "
        "static/js/graphs.js asks for it: the first screen's 6 graphs alone, then the rest over 3 connections, 20 "
        "graphs a request; the batch endpoint `/api/series?graph=..` when the server has it, else one request per "
        "graph). Measured once every switch had its first poll and one interval more. "
        "Criteria: every tick of every switch polled (its `poller` point); every 5-minute and 1-hour rollup "
        "window of every interface's in_bps "
        "and every switch's uptime written within one window of its end; first screen (6 graphs) p95 ≤ 300 ms and "
        "every graph p95 ≤ 1,000 ms from the page request, at 1 day and 1 year.\n",
        "| switches | minutes | measured | ticks expected / missed / failed / skipped | poll lateness p95 (s) "
        "| rollup schema | 5-min windows due / late / missing | 1-hour windows due / late / missing | verdict |",
        "|---:|---:|---|---|---:|---|---|---|---|",
    ]
    for r in rows:
        t, roll = r["ticks"], r["rollups"]
        out.append(
            f"| {_f(r['switches'])} | {_f(r['minutes'], 0)} | {r.get('date', '?')} at {r.get('revision', '?')} | "
            f"{_f(t['expected'])} / {t['missed']} / {t['failed']} / "
            f"{t['skipped']} | {_f(t['lateness_p95_s'], 2)} | {roll['schema']} | {_tier(roll['tiers']['5m'])} | "
            f"{_tier(roll['tiers']['1h'])} | {_outcome(r['verdict'])} |"
        )
    out += [
        "\n**Device pages** (ms from the page request, p50 / p95; with p95: until the legends' 95th percentiles, "
        "which the batch endpoint sends in a second round of requests, are in too):\n",
        "| switches | data requests | graphs / page | 1d first screen | 1d every graph | 1d with p95 | 1y first screen "
        "| 1y every graph | 1y with p95 | views | failed |",
        "|---:|---|---:|---|---|---|---|---|---|---:|---:|",
    ]
    for r in rows:
        p = r["pages"]
        mode = "batch endpoint" if p.get("batch_endpoint") else "one per graph"
        cells = [
            f"{_ms(p.get(f'{rng}_{what}_p50_s'))} / {_ms(p.get(f'{rng}_{what}_p95_s'))}"
            for rng in ("1d", "1y")
            for what in ("first_screen", "every_graph", "p95")
        ]
        out.append(
            f"| {_f(r['switches'])} | {mode} | {p.get('1d_graphs_per_page')} | {' | '.join(cells)} | "
            f"{p['views']} | {p['failure_count']} |"
        )
    found = section.get("find")
    if found:
        out.append(
            f"\n`--find` tried {', '.join(_f(n) for n in found['tried'])} switches: the largest that passed every "
            f"criterion: {_f(found['largest_passing']) if found['largest_passing'] else 'none'}; the largest whose "
            f"ticks and rollups held: {_f(found.get('largest_polling')) if found.get('largest_polling') else 'none'}."
        )
    out += _resources(rows) + _storage(rows) + _anchors(rows)
    errors = [f"{r['switches']}: {'; '.join(r['device_errors'])}" for r in rows if r.get("device_errors")]
    if errors:
        out.append("\nDevice errors at the end of a run (count x last error): " + " — ".join(errors) + "\n")
    out.append("\n" + RERUN + "\n")
    return "\n".join(out)


def _resources(rows: list[dict]) -> list[str]:
    names = []
    for r in rows:
        names += [n for n in r["resources"] if n not in names and n != "all"]
    out = [
        "\n**Resources** over the measured window: share of one core (CPU user+system of the process tree, from "
        "/proc) / largest PSS in MB (memory shared between a worker's processes counted once). The simulated "
        "switches' agents are the bench's, not the product's.\n",
        "| switches | " + " | ".join(names) + " | all |",
        "|---:|" + "---:|" * (len(names) + 1),
    ]
    for r in rows:
        res = r["resources"]
        cells = [
            f"{_f(res[n]['cpu_cores'], 2)} / {_f(res[n]['pss_mb_max'], 0)}" if n in res else "n/a"
            for n in [*names, "all"]
        ]
        out.append(f"| {_f(r['switches'])} | " + " | ".join(cells) + " |")
    heaps = [
        f"{_f(r['switches'])} switches: heap in use at most {_f(m['heap_inuse_mb_max'], 0)} MB, kept idle at most "
        f"{_f(m['heap_retained_mb_max'], 0)} MB; at the RSS peak ({_f(m['at_rss_peak']['rss_mb'], 0)} MB) "
        f"{_f(m['at_rss_peak']['heap_inuse_mb'], 0)} MB in use (GOMEMLIMIT {m.get('gomemlimit', 'none')})"
        for r in rows
        if (m := r.get("influxdb_memory", {})).get("at_rss_peak")
    ]
    if heaps:
        out.append("\nInfluxDB's Go heap (its /metrics, every 10 s): " + "; ".join(heaps) + ".")
    return out


def _storage(rows: list[dict]) -> list[str]:
    out = [
        "\n**InfluxDB series and disk.** Series per bucket (influxdb.cardinality) and bytes after a compaction pass "
        "(InfluxDB restarted with short cold durations, so the WAL is snapshotted and the shards fully compacted, "
        "as they are hours after their last write): TSM files and WAL per bucket; the series files and index "
        "(allocated blocks) of all buckets apart. Per switch and day: a day of history of the page switches "
        "(bench/s8_history.py: their series, one point a minute) in buckets of its own, rolled up by the product's "
        "own backfill, over its switches and days. Marked ~ where there is no history tier (older code): the "
        "run's own bucket over its switches and polling span, extrapolated to a day; a run holds minutes of "
        "data, so fixed per-series costs dominate and these are upper bounds.\n",
        "| switches | series raw / 5m / 1h | MB raw (with history) / 5m / 1h | index and series files, MB "
        "| bytes / switch / day raw / 5m / 1h |",
        "|---:|---|---|---:|---|",
    ]
    for r in rows:
        storage = r.get("storage_compacted") or r.get("storage") or {}
        buckets = storage.get("buckets", {})
        size = {name: b.get("tsm_bytes", 0) + b.get("wal_bytes", 0) for name, b in buckets.items()}.get
        tiers = ("monitor", "monitor_5m", "monitor_1h")
        series = " / ".join(_f(buckets.get(b, {}).get("series")) for b in tiers)
        history = r.get("history") or {}
        days = r.get("polling_s", 0) / 86400
        per_day = []
        for tier, bucket in (("", "monitor"), ("_5m", "monitor_5m"), ("_1h", "monitor_1h")):
            measured = size("bench_history" + tier, 0)
            span = (history.get("rollups") or {}).get("days") if tier else history.get("days")
            if measured and span:
                per_day.append(_f(measured / history["switches"] / span, 0))
            else:
                per_day.append(f"~{_f(size(bucket, 0) / r['switches'] / days, 0)}" if days else "n/a")
        out.append(
            f"| {_f(r['switches'])} | {series} | {' / '.join(_mb(size(b, 0)) for b in tiers)} | "
            f"{_mb(sum(b.get('index_bytes', 0) for b in buckets.values()))} | {' / '.join(per_day)} |"
        )
    return out


def _anchors(rows: list[dict]) -> list[str]:
    out = [
        "\n**Anchors.** Telegraf is measured here: its inputs.snmp polls the same simulated switches (one input "
        "per switch, the same interface columns, sysUpTime and the memory and CPU scalars) every 60 s into the "
        "same InfluxDB, after the product's processes are stopped; it computes no rates and writes no rollups. "
        "Cacti and LibreNMS cannot be installed on this machine (no PHP stack): their rows are published figures, "
        "not measured here.\n",
        "| anchor | switches | switch-polls written / due | CPU / switch-poll (ms) | CPU (cores) | InfluxDB CPU "
        "(cores) | series | source |",
        "|---|---:|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        tel = r.get("telegraf")
        if tel:
            out.append(
                f"| Telegraf + InfluxDB (measured) | {_f(tel['switches'])} | {_f(tel['polls_written'])} / "
                f"{_f(tel['polls_expected'])} | {_f(tel['cpu_per_poll_ms'], 2)} | {_f(tel['cpu_cores'], 2)} | "
                f"{_f(tel['influxdb_cpu_cores'], 2)} | {_f(tel['series'])} | this run, {_f(tel['minutes'], 0)} min |"
            )
        res = r["resources"]
        if "celery worker" in res:
            worker = res["celery worker"]["cpu_cores"]
            out.append(
                f"| this product, worker + beat (measured) | {_f(r['switches'])} | "
                f"{_f(r['ticks']['polled'])} / {_f(r['ticks']['expected'])} | "
                f"{_f(worker * 60 / r['switches'] * 1e3, 2)} | {_f(worker, 2)} | "
                f"{_f(res.get('influxdb', {}).get('cpu_cores'), 2)} | "
                f"{_f(r.get('storage', {}).get('buckets', {}).get('monitor', {}).get('series'))} | this run |"
            )
    out += ["\n| anchor (published, not measured here) | figure | source |", "|---|---|---|"]
    out += [f"| {row['tool']} | {row['figure']} | {row['source']} |" for row in PUBLISHED]
    return out


def splice(document: str, section: str) -> str:
    """`document` with its scenario 8 section replaced by `section` (or put before the findings)."""
    pattern = re.compile(re.escape(HEADING) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(document):
        return pattern.sub(lambda _: section.rstrip("\n") + "\n", document, count=1)
    marker = "\n## Findings"
    if marker in document:
        return document.replace(marker, "\n" + section.rstrip("\n") + "\n" + marker, 1)
    return document.rstrip("\n") + "\n\n" + section
