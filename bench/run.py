"""Run every benchmark scenario on this machine and write docs/performance.md (`make bench`)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench import history, report, report_s8
from bench.common import REPO, InfluxdRunning, git_revision, start_backends, start_fleet
from bench.previous import PREVIOUS
from bench.stack import bench_environment
from collectors.snmptypes import SnmpTarget

SCENARIOS = ("s1", "s2", "s3", "s4", "s5", "s6", "s7")


def telegraf_binary() -> str | None:
    result = subprocess.run(["bash", str(REPO / "bench" / "ensure-telegraf.sh")], capture_output=True, text=True)
    if result.returncode != 0:
        print(f"Telegraf could not be built; scenario 1 runs without it:\n{result.stderr[-1500:]}", file=sys.stderr)
        return None
    return result.stdout.strip().splitlines()[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--only", default=",".join(SCENARIOS), help="comma-separated scenarios (s1..s9; s8 and s9 only here)"
    )
    parser.add_argument("--work", default=str(REPO / "var" / "bench"), help="bench data, logs and snmpsim caches")
    parser.add_argument("--fleet", type=int, default=1000, help="largest simulated fleet (switches)")
    parser.add_argument("--agents", type=int, default=4, help="snmpsim processes serving the fleet")
    parser.add_argument("--render-only", action="store_true", help="rewrite docs/performance.md from results.json")
    parser.add_argument(
        "--previous",
        default=PREVIOUS,
        help="scenario 5 also runs this revision's own scenario 5, in the same run, for the ratios ('' to skip)",
    )
    sustained_arguments(parser)
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    asked = set(wanted)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    os.environ.update(bench_environment(work / "django"))
    results_file = work / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    if args.render_only:
        write_report(results, ran=set(SCENARIOS))
        return 0
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "revision": git_revision(),
        "cpus": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "command": "make bench"
        if wanted == set(SCENARIOS)
        else f".venv/bin/python bench/run.py --only {args.only}" + (sustained_flags(args) if "s8" in wanted else ""),
    }

    def save(name: str, value: dict) -> None:
        results[name] = value
        results.setdefault("runs", {})[name] = meta  # which run each scenario's figures come from
        results_file.write_text(json.dumps(results, indent=1))
        print(f"{name}: {json.dumps(value)}", flush=True)

    if "s9" in wanted:  # the event receivers: no fleet, no InfluxDB (not in make bench: run it alone)
        from bench import s9_events

        wanted.discard("s9")
        save("s9", s9_events.run(work / "s9"))
        path = REPO / "docs" / "performance.md"
        write_keeping_history(path, s9_events.splice(path.read_text(), s9_events.render(results["s9"])))
        print("wrote scenario 9's section of docs/performance.md")
        if not wanted:
            return 0
    if "s8" in wanted:  # services of its own, fresh, in a process of its own
        wanted.discard("s8")
        save("s8", sustained(args, work, results.get("s8", {})))
        if not wanted:
            write_report(results, ran={"s8"})
            return 0
    redis, process, influx, redis_url = start_backends(work / "run")
    influxd = InfluxdRunning(process, work / "run", influx.url)
    fleet = replay = None
    try:
        if "s3" in wanted:
            from bench import s3_ingest

            save("s3", s3_ingest.run(influx, work))
        sizes = tuple(n for n in (10, 100, 1000) if n <= args.fleet)
        fleet = start_fleet(work / "fleet", max(sizes), args.agents)
        if "s1" in wanted:
            from bench import s1_varbind

            port, name = fleet.devices[0]
            target = SnmpTarget("127.0.0.1", port, community=name, timeout=5.0, retries=1, max_repetitions=25)
            save("s1", s1_varbind.run(target, telegraf_binary(), work))
        env = None
        if wanted & {"s2", "s4", "s5", "s6", "s7"}:
            from bench import stack

            env = stack.configure(work / "django", redis_url, influx)
        if wanted & {"s2", "s7"}:
            replay = replay_agent(fleet, work)
        if "s2" in wanted:
            from bench import s2_fleet

            figures = s2_fleet.run(fleet, sizes=sizes, engines=("fast", "pysnmp"), replay=replay)
            replay_port = replay.port if replay is not None else None
            figures["product"] = s2_fleet.run_product_fresh(
                fleet.devices, sizes, replay_port, work / "django", redis_url, influx
            )
            save("s2", figures)
        if env is not None and wanted & {"s4", "s5", "s6", "s7"}:
            if "s7" in wanted:
                from bench import s7_worker_scale

                save("s7", s7_worker_scale.run(env, influx, fleet, work, replay))
            if "s4" in wanted:
                from bench import s4_freshness

                save("s4", s4_freshness.run(env, influx, fleet, work))
            if "s6" in wanted:
                from bench import s6_faults

                save("s6", s6_faults.run(env, influx, fleet, work))
            if "s5" in wanted:
                from bench import s5_graphs

                save("s5", s5_graphs.run(influx, work, env, previous=args.previous, influxd=influxd))
    finally:
        if replay is not None:
            replay.stop()
        if fleet is not None:
            fleet.stop()
        influxd.stop()
        redis.stop()
    write_report(results, ran=asked)
    return 0


def write_report(results: dict, ran: set[str]) -> None:
    """docs/performance.md from results.json; when results.json lacks scenarios the document shows (a fresh
    checkout), only scenario 8's section of the document is replaced, and only when this run ran it (the section
    may hold figures written beside those of its last run), so the others' figures are kept."""
    path = REPO / "docs" / "performance.md"
    if path.exists() and not all(name in results for name in SCENARIOS):
        if "s8" in results and "s8" in ran:
            write_keeping_history(path, report_s8.splice(path.read_text(), report_s8.render(results["s8"])))
            print("wrote scenario 8's section of docs/performance.md (results.json lacks the other scenarios)")
        else:  # rendering the whole document from a partial run would drop the other scenarios' figures
            print("docs/performance.md left as it is: results.json lacks some scenarios (their figures are in it)")
        return
    write_keeping_history(path, report.render(results))
    print("wrote docs/performance.md")


def write_keeping_history(path: Path, text: str) -> None:
    """Write docs/performance.md, first appending each section it replaces to bench/results/HISTORY.md: the page
    keeps the latest figures, the history keeps every earlier run."""
    if path.exists():
        when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        kept = history.keep(path.read_text(), text, f"on {when} at {git_revision()}")
        if kept:
            print(f"kept {kept} replaced section(s) of docs/performance.md in bench/results/HISTORY.md")
    path.write_text(text)


def sustained_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of scenario 8 (bench/s8_sustained.py)."""
    group = parser.add_argument_group("scenario 8 (sustained, not in make bench)")
    group.add_argument("--switches", type=int, default=2000, help="simulated switches")
    group.add_argument("--minutes", type=float, default=30, help="measured minutes (after the first polls)")
    group.add_argument("--find", action="store_true", help="find the largest passing size, then confirm it")
    group.add_argument("--find-minutes", type=float, default=12, help="measured minutes of each --find try")
    group.add_argument("--s8-processes", type=int, default=8, help="Celery worker pool processes")
    group.add_argument("--s8-agents", type=int, default=0, help="agent processes (0: one per 1,500 switches)")
    group.add_argument("--database", choices=("postgres", "sqlite"), default="postgres")
    group.add_argument("--rollup-schema", choices=("auto", "window-fields", "stat-tag"), default="auto")
    group.add_argument("--telegraf-minutes", type=float, default=10, help="Telegraf anchor's measured minutes")
    group.add_argument("--no-telegraf", action="store_true", help="skip the Telegraf anchor")
    group.add_argument("--history-switches", type=int, default=20, help="switches given history (pages open them)")
    group.add_argument("--history-days", type=float, default=1.0, help="days of history (0: none)")


def sustained_flags(args: argparse.Namespace) -> str:
    """Scenario 8's flags as given, for the provenance line."""
    size = f" --find --find-minutes {args.find_minutes:g}" if args.find else f" --switches {args.switches}"
    return size + f" --minutes {args.minutes:g}" + (" --no-telegraf" if args.no_telegraf else "")


def sustained(args: argparse.Namespace, work: Path, previous: dict) -> dict:
    """Scenario 8 at --switches (or --find), merged into the runs recorded before (keyed by size and minutes)."""
    from bench import s8_sustained

    options = {
        "processes": args.s8_processes,
        "agents": args.s8_agents,
        "database": args.database,
        "schema": args.rollup_schema,
        "telegraf": None if args.no_telegraf else telegraf_binary(),
        "telegraf_minutes": args.telegraf_minutes,
        "history_switches": args.history_switches,
        "history_days": args.history_days,
    }
    section = {**previous, "runs": dict(previous.get("runs", {}))}
    if args.find:
        found = s8_sustained.find(work, args.minutes, try_minutes=args.find_minutes, **options)
        done = [*found["tries"], *([found["confirmed"]] if found["confirmed"] else [])]
        tried = [r["switches"] for r in found["tries"]]
        section["find"] = {key: found[key] for key in ("largest_passing", "largest_polling")} | {"tried": tried}
    else:
        done = [s8_sustained.measure(work, args.switches, args.minutes, **options)]
    for result in done:
        section["runs"][f"{result['switches']}x{result['minutes']:g}"] = result
    return section


def replay_agent(fleet, work: Path):
    """Record one snmpsim switch's answers (discovery and polls) and start the agent that replays them at once."""
    from bench.replayagent import ReplayAgent, record
    from collectors.profiles import BUILTIN_DIR, load_profiles

    profiles = load_profiles([BUILTIN_DIR])
    port, community = fleet.devices[0]
    return ReplayAgent(record(port, community, profiles["dell-powerconnect-62xx"], profiles), work / "replay")


def _cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
