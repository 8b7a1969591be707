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
from bench import report
from bench.common import REPO, git_revision, start_backends, start_fleet
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
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios (s1..s6)")
    parser.add_argument("--work", default=str(REPO / "var" / "bench"), help="bench data, logs and snmpsim caches")
    parser.add_argument("--fleet", type=int, default=1000, help="largest simulated fleet (switches)")
    parser.add_argument("--agents", type=int, default=4, help="snmpsim processes serving the fleet")
    parser.add_argument("--render-only", action="store_true", help="rewrite docs/performance.md from results.json")
    args = parser.parse_args()
    wanted = set(args.only.split(","))
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    os.environ.update(bench_environment(work / "django"))
    results_file = work / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    if args.render_only:
        (REPO / "docs" / "performance.md").write_text(report.render(results))
        return 0
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "revision": git_revision(),
        "cpus": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "python": platform.python_version(),
        "command": "make bench" if wanted == set(SCENARIOS) else f".venv/bin/python bench/run.py --only {args.only}",
    }

    def save(name: str, value: dict) -> None:
        results[name] = value
        results.setdefault("runs", {})[name] = meta  # which run each scenario's figures come from
        results_file.write_text(json.dumps(results, indent=1))
        print(f"{name}: {json.dumps(value)}", flush=True)

    redis, influxd, influx, redis_url = start_backends(work / "run")
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

                save("s5", s5_graphs.run(influx, work))
    finally:
        if replay is not None:
            replay.stop()
        if fleet is not None:
            fleet.stop()
        influxd.stop()
        redis.stop()
    (REPO / "docs" / "performance.md").write_text(report.render(results))
    print("wrote docs/performance.md")
    return 0


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
