"""Where the bench's InfluxDB spends its CPU, by what its goroutines were doing: Linux perf samples of influxd
taken a minute at a time beside scenario 8, then sorted into writes, cache snapshots, compactions, garbage
collection, InfluxQL and Flux queries (docs/performance.md, scenario 8).

    .venv/bin/python -m bench.influxd_profile record var/bench/profile &   # beside `bench/run.py --only s8`
    .venv/bin/python -m bench.influxd_profile report var/bench/profile --from 01:15 --to 01:45 [--bins 10]

Needs `perf` (Debian's linux-perf) and the right to profile influxd (root, or kernel.perf_event_paranoid <= 1).
influxd's Go frames carry their package paths, so a sample's whole stack names the work it was part of."""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from collections import Counter, defaultdict
from pathlib import Path

HZ = 49  # samples a second per busy thread: a minute of a busy core is 2,940 samples
# The first rule that matches anywhere in a sample's stack names it (order matters: a snapshot runs in the Compactor).
KINDS = [
    ("gc", re.compile(r"gcBgMarkWorker|runtime\.bgsweep|runtime\.bgscavenge")),
    ("snapshot", re.compile(r"cacheKeyIterator|Cache\)\.Deduplicate|WriteSnapshot|compactCache|Cache\)\.Snapshot")),
    ("compaction", re.compile(r"Compactor|compactTSM|Compaction|tsmKeyIterator")),
    ("write", re.compile(r"handleWrite|WritePoints|ParsePoints|PointsWriter|CreateSeriesList|tsm1\.\(\*WAL\)")),
    ("influxql", re.compile(r"/influxql|StatementExecutor|v1/services/httpd|query\.\(\*")),
    ("flux", re.compile(r"influxdata/flux[/.]|storage/flux|storage/reads|QueryHandler")),
]


def kind_of(stack: str) -> str:
    """What a sample's stack (its frames' symbols, one a line) was part of."""
    return next((name for name, pattern in KINDS if pattern.search(stack)), "other")


def influxd_pid(engine_under: str) -> int | None:
    """The pid of the influxd whose command line names `engine_under` (the bench's run directory)."""
    found = subprocess.run(["pgrep", "-f", f"influxd.*{engine_under}"], capture_output=True, text=True).stdout
    return int(found.split()[0]) if found.split() else None


def record(out: Path, engine_under: str) -> None:
    """Profile the bench's influxd a minute at a time into out/influxd-HHMMSS.data until it is gone for good."""
    out.mkdir(parents=True, exist_ok=True)
    missing_since = time.monotonic()
    while time.monotonic() - missing_since < 600:
        pid = influxd_pid(engine_under)
        if pid is None:
            time.sleep(5)
            continue
        missing_since = time.monotonic()
        target = out / f"influxd-{time.strftime('%H%M%S', time.gmtime())}.data"
        perf = ["perf", "record", "-F", str(HZ), "-g", "-p", str(pid), "-o", str(target), "--", "sleep", "60"]
        subprocess.run(perf, capture_output=True)


def samples(path: Path) -> list[tuple[float, str]]:
    """(time in seconds, kind) of each sample in one perf file."""
    script = subprocess.run(["perf", "script", "-i", str(path), "-F", "time,ip,sym"], capture_output=True, text=True)
    found = []
    for block in script.stdout.split("\n\n"):
        lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
        try:
            at = float(lines[0].rstrip(":").split()[-1])
        except (IndexError, ValueError):
            continue
        found.append((at, kind_of("\n".join(lines[1:]))))
    return found


def report(directory: Path, since: str, until: str, bins_s: int) -> list[str]:
    """Cores of InfluxDB by kind of work: over the files begun in [since, until) (HH:MM, UTC), then per bin."""
    first, after = since.replace(":", ""), until.replace(":", "")
    files = [p for p in sorted(directory.glob("influxd-*.data")) if first <= p.stem[8:12] < after]
    total: Counter[str] = Counter()
    lines = []
    for path in files:
        bins: dict[int, Counter[str]] = defaultdict(Counter)
        found = samples(path)
        for at, kind in found:
            bins[int((at - found[0][0]) // bins_s)][kind] += 1
            total[kind] += 1
        begun = f"{path.stem[8:10]}:{path.stem[10:12]}:{path.stem[12:14]}"
        for index, counts in sorted(bins.items()):
            lines.append(f"{begun} +{index * bins_s:2d}s {_cores(counts, bins_s)}")
    minutes = max(len(files), 1)
    lines.insert(0, f"{len(files)} minutes, {since}-{until} UTC: {_cores(total, 60 * minutes)}")
    return lines


def _cores(counts: Counter[str], seconds: float) -> str:
    cores = sum(counts.values()) / HZ / seconds
    kinds = "  ".join(f"{kind} {count / HZ / seconds:.2f}" for kind, count in counts.most_common())
    return f"{cores:.2f} cores: {kinds}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    taking = commands.add_parser("record", help="profile the bench's influxd a minute at a time")
    taking.add_argument("out", type=Path)
    taking.add_argument("--engine-under", default="var/bench/s8", help="a path in influxd's command line")
    reading = commands.add_parser("report", help="InfluxDB's cores by kind of work")
    reading.add_argument("directory", type=Path)
    reading.add_argument("--from", dest="since", default="00:00", help="HH:MM UTC, the first minute's file")
    reading.add_argument("--to", dest="until", default="24:00", help="HH:MM UTC, after the last minute's file")
    reading.add_argument("--bins", type=int, default=60, help="seconds a line (60: one line a minute)")
    args = parser.parse_args()
    if args.command == "record":
        record(args.out, args.engine_under)
    else:
        print("\n".join(report(args.directory, args.since, args.until, args.bins)))


if __name__ == "__main__":
    main()
