"""manage.py import_devices FILE.csv: add many devices, each tested like the admin form; bad rows are named."""

from __future__ import annotations

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from monitor.devices.importing import BadFile, import_devices


class Command(BaseCommand):
    help = (
        "Import devices from a CSV file with a header line: name,host and any of port, version, community, v3_user, "
        "v3_security_level, v3_auth_protocol, v3_auth_key, v3_priv_protocol, v3_priv_key, timeout_s, retries, "
        "max_repetitions, interval, group, enabled, profile, tree (Tree/Header/...). Each row is tested and "
        "discovered first; bad rows are reported with their line number and the good ones imported."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the CSV file ('-' for standard input)")
        parser.add_argument("--skip-test", action="store_true", help="save devices that cannot be reached now")

    def handle(self, *args, **options) -> None:
        source = options["file"]
        try:
            data = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {source}: {exc.strerror}") from None
        try:
            outcomes = import_devices(data, skip_test=options["skip_test"])
        except BadFile as exc:
            raise CommandError(f"{source}: {exc}; nothing imported") from None
        for outcome in outcomes:
            if outcome.imported:
                profile = outcome.device.profile or "discovered at its first poll"
                self.stdout.write(f"line {outcome.line}: imported {outcome.name} ({profile})")
            else:
                self.stdout.write(f"line {outcome.line}: refused {outcome.name!r}: {'; '.join(outcome.errors)}")
        imported = sum(o.imported for o in outcomes)
        refused = len(outcomes) - imported
        self.stdout.write(f"{imported} imported, {refused} refused")
        if refused:
            raise CommandError(f"{refused} row(s) refused (listed above); the other rows were imported")
