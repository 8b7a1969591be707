"""Roll up raw history written before the pollers kept rollups (after an upgrade, or after importing data)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from monitor.core import services
from monitor.models import Device
from monitor.timeseries import backfill, tiers
from monitor.timeseries.client import connect


class Command(BaseCommand):
    help = (
        "Create the rollup buckets, roll up the last N days of raw samples of every device (whole hours, up to the "
        "start of the current one, which the pollers write), then apply every retention setting (raw too)."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--days", type=int, default=14, help="How far back to roll up (default 14).")

    def handle(self, *args, days: int, **options) -> None:
        if not 1 <= days <= 3660:
            raise CommandError("--days must be between 1 and 3660")
        end = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
        devices = {str(pk): interval for pk, interval in Device.objects.values_list("pk", "poll_interval_s")}
        started = time.monotonic()
        with connect(settings.MONITOR_ROLLUP_TIMEOUT_S * 1000) as influx:
            tiers.ensure_buckets(influx, settings.INFLUXDB_ORG, include_raw=False)
            report = backfill.backfill(
                influx, services.influx_writer(), settings.INFLUXDB_BUCKET, devices, end - timedelta(days=days), end
            )
            # Only now, with the history rolled up, may the raw bucket start expiring samples.
            tiers.ensure_buckets(influx, settings.INFLUXDB_ORG)
        self.stdout.write(
            f"rolled up {days} days of {report.devices} devices ({report.values:,} raw values) in "
            f"{time.monotonic() - started:.1f} s: {report.lines_5m:,} 5-minute and {report.lines_1h:,} hourly points"
        )
        if report.failed_writes:
            raise CommandError(f"{report.failed_writes} writes were not taken by InfluxDB (spooled or refused)")
