"""Compute the 5-minute and 1-hour rollups for past data (after an upgrade, or after loading history)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from monitor import rollups


class Command(BaseCommand):
    help = "Create the rollup buckets, roll up the last N days, then apply every retention setting (raw too)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=14, help="How far back to roll up (default 14).")

    def handle(self, *args, days: int, **options) -> None:
        if not 1 <= days <= 3660:
            raise CommandError("--days must be between 1 and 3660")
        now = datetime.now(timezone.utc)
        with rollups.batch_client() as client:
            rollups.ensure_buckets(client, settings.INFLUXDB_ORG, include_raw=False)
            chunks = rollups.backfill(client, now - timedelta(days=days), now)
            # Only now, with the history rolled up, may the raw bucket start expiring samples.
            rollups.ensure_buckets(client, settings.INFLUXDB_ORG)
        self.stdout.write(
            f"rolled up {days} days in {chunks} chunks into {', '.join(t.bucket for t in rollups.tiers()[1:])}"
        )
