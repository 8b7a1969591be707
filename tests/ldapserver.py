"""A real OpenLDAP server (Debian's slapd) on a loopback port for the sign-in tests: people and groups."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

from monitor.devstack.processes import Process, free_port

SUFFIX = "dc=example,dc=org"
ADMIN_DN, ADMIN_PASSWORD = f"cn=admin,{SUFFIX}", "adm1n-secret"
PEOPLE, GROUPS = f"ou=people,{SUFFIX}", f"ou=groups,{SUFFIX}"
CONFIG = """include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {dir}/slapd.pid
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "{admin}"
rootpw {password}
directory {dir}/data
"""


def person(uid: str, password: str, mail: str) -> str:
    return (
        f"dn: uid={uid},{PEOPLE}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {uid.title()}\nsn: {uid.title()}\n"
        f"givenName: {uid.title()}\nmail: {mail}\nuserPassword: {password}\n\n"
    )


def group(cn: str, members: list[str]) -> str:
    lines = "".join(f"member: uid={m},{PEOPLE}\n" for m in members)
    return f"dn: cn={cn},{GROUPS}\nobjectClass: groupOfNames\ncn: {cn}\n{lines}\n"


class Directory:
    """slapd with an mdb database, started on a free loopback port; `add(ldif)` loads entries."""

    def __init__(self, base: Path, log_dir: Path):
        slapd = shutil.which("slapd") or "/usr/sbin/slapd"
        assert Path(slapd).exists(), "slapd is not installed: run `make deps`"
        self.dir = base
        (base / "data").mkdir(parents=True, exist_ok=True)
        conf = base / "slapd.conf"
        conf.write_text(CONFIG.format(dir=base, suffix=SUFFIX, admin=ADMIN_DN, password=ADMIN_PASSWORD))
        self.port = free_port()
        self.uri = f"ldap://127.0.0.1:{self.port}"
        argv = [slapd, "-f", str(conf), "-h", self.uri + "/", "-d", "0"]
        self.process = Process("slapd", argv, log_dir / f"slapd-{self.port}.log")
        deadline = time.monotonic() + 20
        while not self._listening():
            assert self.process.alive, self.process.log_tail()
            assert time.monotonic() < deadline, "slapd did not start listening"
            time.sleep(0.1)
        self.add(
            f"dn: {SUFFIX}\nobjectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n\n"
            f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people\n\n"
            f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: groups\n\n"
        )

    def _listening(self) -> bool:
        with socket.socket() as sock:
            return sock.connect_ex(("127.0.0.1", self.port)) == 0

    def add(self, ldif: str) -> None:
        subprocess.run(
            ["ldapadd", "-x", "-H", self.uri, "-D", ADMIN_DN, "-w", ADMIN_PASSWORD],
            input=ldif, text=True, check=True, capture_output=True,
        )  # fmt: skip

    def modify(self, ldif: str) -> None:
        """Changes (ldapmodify's LDIF) as the directory's administrator."""
        subprocess.run(
            ["ldapmodify", "-x", "-H", self.uri, "-D", ADMIN_DN, "-w", ADMIN_PASSWORD],
            input=ldif, text=True, check=True, capture_output=True,
        )  # fmt: skip

    def stop(self) -> None:
        self.process.stop()
