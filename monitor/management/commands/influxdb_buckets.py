"""Create the rollup tiers' buckets (5-minute, hourly, daily) and set their retention and shard length: idempotent,
run by the web service at each start (docker-compose.yml), so a fresh install writes its rollups. The raw bucket's
retention is left alone unless `--raw` is given: an install upgraded with raw history and no rollups yet must run
`rollup_backfill` first (which sets it once the history is rolled up)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from monitor.timeseries import client, tiers


class Command(BaseCommand):
    help = "Create the rollup buckets and set their retention (existing data is kept); --raw: the raw bucket's too."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--raw", action="store_true", help="also set the raw bucket's retention (expires samples)")

    def handle(self, *args, **options) -> None:
        try:
            with client.connect(30_000) as influx:
                tiers.ensure_buckets(influx, settings.INFLUXDB_ORG, include_raw=options["raw"])
        except Exception as exc:  # InfluxDB away or refusing: say so in one line (its message holds no token)
            raise CommandError(f"could not set up the InfluxDB buckets: {type(exc).__name__}: {exc}") from None
        chosen = [tier for tier in tiers.tiers() if tier.step_s or options["raw"]]
        names = ", ".join(f"{tier.bucket} ({tier.retention_days or 'forever'} days)" for tier in chosen)
        self.stdout.write(f"buckets ready: {names}")
