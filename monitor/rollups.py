"""Downsampling: 5-minute and 1-hour min/mean/max rollups in their own buckets, kept by a Celery job."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from celery import shared_task
from django.conf import settings
from influxdb_client import BucketRetentionRules, InfluxDBClient

from monitor import flux

log = logging.getLogger(__name__)
STATS = ("min", "mean", "max")
LOOKBACK = timedelta(minutes=15)  # samples are written within seconds of their time; older ones are marked late
LATE_KEY = "monitor:rollups:late"  # sorted set: oldest time of each batch of late samples (spool replays)
PROGRESS = b"progress"  # the member of LATE_KEY where an unfinished run of late rollups got to
RUNNING_KEY, RUNNING_TTL_S = "monitor:rollups:running", 3600  # one run at a time; renewed after each chunk


@dataclass(frozen=True)
class Tier:
    """One resolution of the data: its bucket, its step (0 = raw samples) and how long it is kept."""

    name: str
    bucket: str
    step_s: int
    retention_days: int

    def covers(self, start: datetime, now: datetime) -> bool:
        return self.retention_days == 0 or start >= now - timedelta(days=self.retention_days)


def tiers(base: str | None = None) -> list[Tier]:
    """Finest first: raw, 5m, 1h (bucket names derive from INFLUXDB_BUCKET)."""
    base = base or settings.INFLUXDB_BUCKET
    return [
        Tier("raw", base, 0, settings.MONITOR_RAW_RETENTION_DAYS),
        Tier("5m", f"{base}_5m", 300, settings.MONITOR_ROLLUP_5M_RETENTION_DAYS),
        Tier("1h", f"{base}_1h", 3600, settings.MONITOR_ROLLUP_1H_RETENTION_DAYS),
    ]


def pick_tier(start: datetime, now: datetime | None = None) -> Tier:
    """The finest tier whose retention still holds the window's start."""
    now = now or datetime.now(timezone.utc)
    for tier in tiers():
        if tier.covers(start, now):
            return tier
    return tiers()[-1]


def ensure_buckets(client: InfluxDBClient, org: str, base: str | None = None, include_raw: bool = True) -> None:
    """Create the rollup buckets, and set every tier's retention; existing data is kept (a PATCH, not a re-create)."""
    api = client.buckets_api()
    for tier in tiers(base):
        if tier.step_s == 0 and not include_raw:
            continue
        rules = [BucketRetentionRules(type="expire", every_seconds=tier.retention_days * 86400)]
        bucket = api.find_bucket_by_name(tier.bucket)
        if bucket is None:
            api.create_bucket(bucket_name=tier.bucket, retention_rules=rules, org=org)
        elif [r.every_seconds for r in bucket.retention_rules or []] != [rules[0].every_seconds]:
            bucket.retention_rules = rules
            api.update_bucket(bucket)
            log.info("retention of %s set to %s days", tier.bucket, tier.retention_days)


_FROM_RAW = """data = from(bucket: params.src)
  |> range(start: params.start, stop: params.stop)
  |> filter(fn: (r) => r._measurement != "poller" and types.isNumeric(v: r._value))
  |> toFloat()
"""
_FROM_ROLLUP = """data = from(bucket: params.src)
  |> range(start: params.start, stop: params.stop)
"""


def rollup_script(from_raw: bool) -> str:
    """Flux that writes min/mean/max per step into params.dst, tagged stat=min|mean|max."""
    parts = [_FROM_RAW if from_raw else _FROM_ROLLUP]
    for stat in STATS:
        source = "data" if from_raw else f'data |> filter(fn: (r) => r.stat == "{stat}") |> drop(columns: ["stat"])'
        parts.append(
            f'{source}\n  |> aggregateWindow(every: params.every, fn: {stat}, createEmpty: false, timeSrc: "_start")'
            f'\n  |> set(key: "stat", value: "{stat}")\n  |> to(bucket: params.dst, org: params.org)\n'
        )
    return "".join(parts)


def rollup(client: InfluxDBClient, start: datetime, stop: datetime) -> None:
    """Compute both rollup tiers for [start, stop); windows are aligned, so re-running overwrites the same points."""
    raw, five, hour = tiers()
    for source, target in ((raw, five), (five, hour)):
        params = {
            "src": source.bucket,
            "dst": target.bucket,
            "org": settings.INFLUXDB_ORG,
            "start": _floor(start, target.step_s),
            "stop": stop,
            "every": timedelta(seconds=target.step_s),
        }
        imports = ("types",) if source.step_s == 0 else ()
        client.query_api().query(flux.bind(rollup_script(source.step_s == 0), params, imports))


def batch_client() -> InfluxDBClient:
    """A client of its own for rollups, which read hours to days of every series at once: MONITOR_ROLLUP_TIMEOUT_S,
    not a page's timeout. Use it in a `with` block (it is closed there)."""
    from monitor.queries import connect

    return connect(settings.MONITOR_ROLLUP_TIMEOUT_S * 1000)


def backfill(
    client: InfluxDBClient,
    start: datetime,
    stop: datetime,
    chunk: timedelta = timedelta(days=1),
    on_chunk: Callable[[datetime], None] | None = None,
) -> int:
    """Roll up a range in chunks of at most `chunk` (one query per tier each; rollup() aligns each tier's windows,
    so a window cut by a chunk's end is redone whole by the next); `on_chunk` hears where each chunk ended.
    Returns the chunk count."""
    cursor, count = start, 0
    while cursor < stop:
        upper = min(cursor + chunk, stop)
        rollup(client, cursor, upper)
        cursor, count = upper, count + 1
        if on_chunk is not None:
            on_chunk(cursor)
    return count


def _floor(moment: datetime, step_s: int) -> datetime:
    epoch = int(moment.timestamp())
    return datetime.fromtimestamp(epoch - epoch % step_s, timezone.utc)


def mark_late(redis, oldest: float) -> None:
    """Note that samples from `oldest` (epoch seconds) on were written late, so the next rollup run redoes them."""
    try:
        redis.zadd(LATE_KEY, {f"{oldest:.3f}:{uuid.uuid4().hex[:8]}": oldest})
    except Exception as exc:  # Redis away: the late samples stay raw-only until a backfill; the write itself stood
        log.warning("late samples from %s not marked for the rollups: %s", oldest, type(exc).__name__)


@shared_task(name="monitor.rollups.rollup_recent", ignore_result=True)
def rollup_recent() -> int:
    """Every 5 minutes: roll up the last 15 minutes, and from the oldest late sample on when some were written
    late (a spool replayed after an InfluxDB outage); one run at a time. Returns the chunks rolled up."""
    from monitor import locks, services

    redis = services.redis_client()
    if not locks.acquire(redis, RUNNING_KEY, RUNNING_TTL_S):
        log.info("rollups: the previous run is still going")
        return 0
    try:
        with batch_client() as client:
            ensure_buckets(client, settings.INFLUXDB_ORG, include_raw=False)  # raw: by rollup_backfill, never here
            return _recent_and_late(client, redis)
    finally:
        locks.release(redis, RUNNING_KEY)


def _recent_and_late(client: InfluxDBClient, redis) -> int:
    now = datetime.now(timezone.utc)
    read = redis.zrange(LATE_KEY, 0, -1, withscores=True)
    marks = [member for member, _ in read]
    start = now - LOOKBACK
    if read:
        start = min(start, datetime.fromtimestamp(min(score for _, score in read), timezone.utc))

    def done_until(moment: datetime) -> None:
        """After each chunk: the marks read become one mark where this run got to (a run that dies resumes there)."""
        redis.expire(RUNNING_KEY, RUNNING_TTL_S)
        if marks and moment < now:
            pipe = redis.pipeline()
            pipe.zadd(LATE_KEY, {PROGRESS: moment.timestamp()})
            if marks != [PROGRESS]:
                pipe.zrem(LATE_KEY, *[m for m in marks if m != PROGRESS])
            pipe.execute()
            marks[:] = [PROGRESS]

    chunks = backfill(client, start, now, on_chunk=done_until)
    if marks:  # exactly the marks read (or this run's progress): one added while it ran is kept for the next run
        redis.zrem(LATE_KEY, *marks)
    return chunks
