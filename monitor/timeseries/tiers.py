"""The three resolutions of the data (raw, 5-minute, 1-hour), their buckets, and which one serves a window."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from django.conf import settings
from influxdb_client import BucketRetentionRules, InfluxDBClient

from monitor.timeseries import retention

log = logging.getLogger(__name__)
# A tier is read no further back than its configured retention and this (a bucket kept forever, as the raw one is
# until `rollup_backfill` has rolled its history up, is not read raw for a year); a range starting a day earlier is
# served as long as the bucket still holds it (the 1y preset, 366 days, from the 5-minute tier).
READ_SLACK = timedelta(days=1)
SHARD_S = {"raw": 0, "5m": 30 * 86400, "1h": 90 * 86400}  # long ranges read few shards (0: InfluxDB's default)


@dataclass(frozen=True)
class Tier:
    """One resolution of the data: its bucket, its step (0 = raw samples at the poll interval), its retention."""

    name: str
    bucket: str
    step_s: int
    retention_days: int

    def holds(self, start: datetime, now: datetime) -> bool:
        """Whether the tier serves a range from `start` at `now`: its bucket still keeps every sample from there, as
        InfluxDB keeps it (from the start of the shard group that holds `now` less the bucket's own retention, and
        since a raised retention: retention.py), and it lies within the tier's configured retention and READ_SLACK."""
        floor = self.floor(now)
        return floor is None or start >= floor

    def floor(self, now: datetime) -> datetime | None:
        """The oldest moment from which the tier serves ranges at `now` (`holds`); None: any."""
        floors = [retention.kept(self.bucket, self.retention_days).floor(now.timestamp())]
        if self.retention_days:
            floors.append((now - timedelta(days=self.retention_days) - READ_SLACK).timestamp())
        held = [floor for floor in floors if floor is not None]
        return datetime.fromtimestamp(max(held), timezone.utc) if held else None


def tiers(base: str | None = None) -> list[Tier]:
    """Finest first: raw, 5m, 1h (bucket names derive from INFLUXDB_BUCKET)."""
    base = base or settings.INFLUXDB_BUCKET
    return [
        Tier("raw", base, 0, settings.MONITOR_RAW_RETENTION_DAYS),
        Tier("5m", f"{base}_5m", 300, settings.MONITOR_ROLLUP_5M_RETENTION_DAYS),
        Tier("1h", f"{base}_1h", 3600, settings.MONITOR_ROLLUP_1H_RETENTION_DAYS),
    ]


def rollup_buckets(base: str | None = None) -> dict[str, str]:
    """{tier name: bucket} of the rollup tiers, for the writer."""
    return {tier.name: tier.bucket for tier in tiers(base) if tier.step_s}


def finest_holding(start: datetime, now: datetime | None = None) -> Tier:
    """The finest tier that holds the window's start: where percentiles are read (raw samples, else 5-minute
    means, else hourly means)."""
    now = now or datetime.now(timezone.utc)
    for tier in tiers():
        if tier.holds(start, now):
            return tier
    return tiers()[-1]


# A chart may get up to this much coarser a step than its points ask for when that lets it read a rollup tier:
# a day drawn on 296 points (592 px) reads 288 cached 5-minute windows instead of 1,440 raw samples a series.
# Windows keep their minimum and maximum, so no peak is lost; the chart has 3 % fewer points.
SNAP = 1.1


def chart_tier(
    start: datetime, end: datetime, points: int, raw_step_s: int, now: datetime | None = None, raw_first: bool = True
) -> Tier:
    """The coarsest tier still as fine as one point per pixel (a year from hourly windows, a day or a month from
    5-minute ones), among those that hold the window. With `raw_first`, raw samples while raw retention holds the
    window, whatever the step (aggregates, which resample each member's samples)."""
    now = now or datetime.now(timezone.utc)
    raw, *rollups = tiers()
    if raw_first and raw.holds(start, now):
        return raw
    every = math.ceil((end - start).total_seconds() / max(points, 1))
    held = [tier for tier in rollups if tier.holds(start, now)] or [rollups[-1]]
    fine_enough = [tier for tier in held if tier.step_s <= every * SNAP]
    if fine_enough:
        return fine_enough[-1]
    return raw if raw.holds(start, now) else held[0]


def ensure_buckets(client: InfluxDBClient, org: str, base: str | None = None, include_raw: bool = True) -> None:
    """Create the rollup buckets, and set every tier's retention and shard length; data is kept (a PATCH). A
    retention raised notes in the bucket since when it is complete (what had expired does not come back)."""
    api = client.buckets_api()
    for tier in tiers(base):
        if tier.step_s == 0 and not include_raw:
            continue
        rule = BucketRetentionRules(type="expire", every_seconds=tier.retention_days * 86400)
        if SHARD_S[tier.name] and tier.retention_days != 0:
            rule.shard_group_duration_seconds = min(SHARD_S[tier.name], tier.retention_days * 86400)
        bucket = api.find_bucket_by_name(tier.bucket)
        if bucket is None:
            api.create_bucket(bucket_name=tier.bucket, retention_rules=[rule], org=org)
            continue
        have = [(r.every_seconds, r.shard_group_duration_seconds) for r in bucket.retention_rules or []]
        if (
            not have
            or have[0][0] != rule.every_seconds
            or (rule.shard_group_duration_seconds and have[0][1] != rule.shard_group_duration_seconds)
        ):
            if have and have[0][0] and (rule.every_seconds == 0 or rule.every_seconds > have[0][0]):
                retention.note_raised(bucket)
            bucket.retention_rules = [rule]
            api.update_bucket(bucket)
            log.info("retention of %s set to %s days", tier.bucket, tier.retention_days)
    retention.forget()
