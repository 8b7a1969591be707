"""The CI dependency audit (scripts/audit-deps.sh) fails on a known vulnerability and passes on none.

The vulnerability service is the outermost edge, so it is the one part faked: a loopback OSV server that knows one
advisory. pip-audit itself, the installed packages and the script run for real.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
ADVISORY = {
    "id": "PYSEC-0000-TEST",
    "summary": "planted advisory",
    "affected": [
        {
            "package": {"name": "django", "ecosystem": "PyPI"},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "999.0"}]}],
        }
    ],
}


def osv_server(vulnerable: set[str]) -> tuple[ThreadingHTTPServer, list[str]]:
    """An OSV /v1/query endpoint on loopback that reports ADVISORY for the packages named in `vulnerable`."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            query = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            name = query["package"]["name"]
            asked.append(name)
            body = json.dumps({"vulns": [ADVISORY]} if name in vulnerable else {}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, asked


def run_audit(server: ThreadingHTTPServer, **env: str) -> subprocess.CompletedProcess:
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/query"
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "audit-deps.sh")],
        env={**os.environ, "PIP_AUDIT_OSV_URL": url, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("vulnerable", [{"django"}, set()])
def test_the_audit_fails_on_a_known_vulnerability_and_passes_without(vulnerable):
    server, asked = osv_server(vulnerable)
    try:
        done = run_audit(server)
    finally:
        server.shutdown()
    assert "django" in asked and "celery" in asked, done.stdout + done.stderr
    if vulnerable:
        assert done.returncode == 1, done.stdout
        assert "VULNERABLE django" in done.stdout and "PYSEC-0000-TEST" in done.stdout
        assert "(fixed in 999.0)" in done.stdout
    else:
        assert done.returncode == 0, done.stdout + done.stderr
        assert "0 with known vulnerabilities" in done.stdout
        assert "could not be audited" not in done.stdout
