"""A throwaway PostgreSQL for the bench (production's database, docker-compose.yml), on a free loopback port."""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import time
from pathlib import Path

from monitor.devstack.processes import Process, StartError, free_port, wait_tcp


def available() -> bool:
    """True when PostgreSQL's server binaries are installed (initdb and postgres)."""
    return _binary("initdb") is not None and _binary("postgres") is not None


def _binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    return str(versions[-1]) if versions else None


def _as_postgres() -> list[str]:
    """PostgreSQL refuses to run as root: run it as the `postgres` user then."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise StartError("running as root and there is no `postgres` user to run PostgreSQL as") from None
    return ["runuser", "-u", "postgres", "--"]


class Postgres:
    """initdb in `data` (emptied first) and a postmaster on 127.0.0.1; `url` is the DATABASE_URL of its database."""

    def __init__(self, data: Path, log_dir: Path, database: str = "monitor"):
        if data.exists():
            shutil.rmtree(data)
        data.mkdir(parents=True)
        prefix = _as_postgres()
        if prefix:
            user = pwd.getpwnam("postgres")
            os.chown(data, user.pw_uid, user.pw_gid)
        initdb = [*prefix, _binary("initdb"), "-D", str(data), "-A", "trust", "-U", "monitor", "-E", "UTF8"]
        done = subprocess.run([*initdb, "--no-sync"], capture_output=True, text=True)
        if done.returncode != 0:
            raise StartError(f"initdb failed:\n{done.stderr[-2000:]}")
        self.data, self.port = data, free_port()
        argv = [*prefix, _binary("postgres"), "-D", str(data), "-p", str(self.port), "-k", str(data)]
        argv += ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
        self.process = Process("postgres", argv, log_dir / "postgres.log")
        wait_tcp(self.process, self.port, timeout=60)
        self._create(database)
        self.url = f"postgres://monitor@127.0.0.1:{self.port}/{database}"

    def _create(self, database: str) -> None:
        import psycopg

        deadline = time.time() + 30
        while True:
            try:
                with psycopg.connect(f"host=127.0.0.1 port={self.port} user=monitor dbname=postgres") as conn:
                    conn.autocommit = True
                    conn.execute(f'CREATE DATABASE "{database}"')
                return
            except psycopg.OperationalError:
                if time.time() > deadline:
                    raise
                time.sleep(0.5)

    @property
    def pid(self) -> int:
        return self.process.popen.pid

    def stop(self) -> None:
        """A fast shutdown (SIGINT: clients are disconnected, not waited for), then the process group."""
        if self.process.alive:
            try:
                os.killpg(self.process.popen.pid, signal.SIGINT)
                self.process.popen.wait(20)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                pass
        self.process.stop()
