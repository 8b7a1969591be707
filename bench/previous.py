"""The previous design measured in the same run: a revision's own scenario 5, from its own source tree (git
archive), against the same InfluxDB build on the same machine, so ratios compare like with like."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bench.common import REPO

PREVIOUS = "b871672"  # the last revision before the time series were rebuilt (rollups by a beat job)


def scenario_5(revision: str, work: Path, timeout_s: int = 3600) -> dict:
    """Run `bench/run.py --only s5` of `revision` in a tree of its own; its results (or why there are none)."""
    tree = work / f"previous-{revision}"
    if not (tree / "bench" / "run.py").exists():
        tree.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    _browser_libraries(tree)
    own = tree / "var" / "bench"
    results = own / "results.json"
    results.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "MONITOR", "DATABASE", "INFLUXDB"))}
    command = [sys.executable, "bench/run.py", "--only", "s5", "--fleet", "10", "--agents", "1", "--work", str(own)]
    command += ["--previous", ""]  # its own run must not start one more previous revision (it has no .git)
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout_s)
    if done.returncode != 0 or not results.exists():
        return {"revision": revision, "error": (done.stderr or done.stdout)[-800:]}
    return {"revision": revision, **json.loads(results.read_text())["s5"]}


def _browser_libraries(tree: Path) -> None:
    """The npm packages the revision's pages load (git archive has no node_modules): this checkout's when the
    revision locks the same versions, else its own `npm ci`. Without them its charts never draw and its page times
    out (as `--previous 1032ba7` did on 28 November 2026)."""
    if (tree / "node_modules").exists() or not (tree / "package.json").exists():
        return
    lock = tree / "package-lock.json"
    if (
        lock.exists()
        and (REPO / "node_modules").is_dir()
        and lock.read_bytes() == (REPO / "package-lock.json").read_bytes()
    ):
        (tree / "node_modules").symlink_to(REPO / "node_modules", target_is_directory=True)
    else:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=tree, check=True, capture_output=True)
