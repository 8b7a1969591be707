#!/usr/bin/env bash
# Known-vulnerability check of every installed Python package (pip-audit), run by CI (.ci/run) and `make audit`.
# Fails when a package has a known vulnerability. A network that reaches no vulnerability service (this
# project's build machines reach PyPI's package index but not its per-version JSON nor OSV) leaves packages
# unaudited: that is said loudly, and fails only with AUDIT_STRICT=1. A site with an OSV mirror sets
# PIP_AUDIT_OSV_URL (its /v1/query address) to use it instead of PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
out=$(mktemp)
cache=$(mktemp -d)
trap 'rm -rf "$out" "$cache"' EXIT
args=(--progress-spinner off --format json --output "$out" --skip-editable --timeout 20 --cache-dir "$cache")
if [ -n "${PIP_AUDIT_OSV_URL:-}" ]; then args+=(--vulnerability-service osv --osv-url "$PIP_AUDIT_OSV_URL"); fi
status=0
"$PY" -m pip_audit "${args[@]}" >/dev/null 2>&1 || status=$?
"$PY" - "$out" "$status" <<'PY'
import json
import os
import sys

path, status = sys.argv[1], int(sys.argv[2])
try:
    report = json.load(open(path, encoding="utf-8"))
except (OSError, ValueError):
    print(f"dependency audit: pip-audit gave no report (exit {status})")
    sys.exit(1)
deps = report.get("dependencies", [])
vulnerable = [d for d in deps if d.get("vulns")]
skipped = [d for d in deps if d.get("skip_reason")]
for dep in vulnerable:
    for vuln in dep["vulns"]:
        fixes = ", ".join(vuln.get("fix_versions") or []) or "no fixed version"
        print(f"VULNERABLE {dep['name']} {dep['version']}: {vuln['id']} (fixed in {fixes})")
audited = len(deps) - len(skipped)
print(f"dependency audit: {len(deps)} packages, {audited} audited, {len(vulnerable)} with known vulnerabilities")
if skipped:
    print(
        f"WARNING: {len(skipped)} packages could not be audited (no vulnerability service reachable: "
        f"{skipped[0].get('skip_reason', '')[:80]}...); set PIP_AUDIT_OSV_URL to an OSV mirror"
    )
if vulnerable or (skipped and os.environ.get("AUDIT_STRICT") == "1"):
    sys.exit(1)
PY
