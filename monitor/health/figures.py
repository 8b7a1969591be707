"""The pollers' health as plain data: per poller group and worker, from the poll path's Redis counters, the device
rows, the back-off counts and the broker's queues; read by the health page, /metrics and the self-sampling task."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from redis.exceptions import RedisError

from collectors.state import OPEN_KEY
from monitor.core import services
from monitor.models import Device
from monitor.polling import backoff, stats

WINDOW_MIN = 5  # figures cover the last five whole minutes and the running one
STALE_INTERVALS = 2  # a device without a good poll for this many intervals is listed, red
SLOWEST = 20
# The figures of a row: counted by the poll path for groups and workers alike, and those of one kind of row.
COUNTED = ("polls_per_min", "p50_s", "p95_s", "failures", "timeouts", "overruns", "write_errors")
GROUP_ONLY = ("devices", "backing_off", "queued", "rollup_lag_s")
WORKER_ONLY = ("spool_bytes", "spool_age_s")
LISTED = 300  # up to this many devices the page lists each one; above, the stale and the slowest only


@dataclass
class Figures:
    """One row of the page: a poller group or a worker over the window."""

    name: str
    devices: int = 0
    polls_per_min: float = 0.0
    p50_s: float | None = None
    p95_s: float | None = None
    failures: int = 0
    timeouts: int = 0
    overruns: int = 0
    resting: int = 0
    write_errors: int = 0
    backing_off: int = 0
    queued: int | None = None
    seen_s: float | None = None  # workers: seconds since their last batch
    oldest_good_s: float | None = None  # groups: the oldest last good poll among devices not listed as stale
    rollup_lag_s: float = 0.0  # groups: how long ago the oldest rollup window still open ended (0: none overdue)
    spool_bytes: int = 0
    spool_age_s: float = 0.0
    buckets: dict[str, int] = field(default_factory=dict)  # poll-duration histogram: upper bound -> polls


@dataclass
class Stale:
    device: Device
    since: datetime | None  # its last good poll, None when never
    reason: str


@dataclass
class Row:
    """A device in the page's full list: how long since its last good poll, and whether that is too long."""

    device: Device
    age_s: float | None
    stale: bool


@dataclass
class Health:
    groups: list[Figures]
    workers: list[Figures]
    stale: list[Stale]
    slowest: list[Device]
    window_s: float
    redis_error: str = ""
    rollup_lag_s: float = 0.0  # every device's, the disabled and deleted ones' too (the sweep closes those)
    rows: list[Row] = field(default_factory=list)  # every device, when there are at most LISTED

    @property
    def problems(self) -> list[str]:
        """What the home page's panel says: nothing when all is well."""
        said = (
            [f"{len(self.stale)} device(s) without a good poll for {STALE_INTERVALS} intervals"] if self.stale else []
        )
        said += [f"group {g.name}: {g.queued} polls waiting in its queue" for g in self.groups if (g.queued or 0) > 0]
        said += [f"worker {w.name}: {w.spool_bytes} bytes spooled" for w in self.workers if w.spool_bytes]
        said += [self.redis_error] if self.redis_error else []
        return said


def percentile(buckets: dict[str, int], q: float) -> float | None:
    """The q-quantile read from a duration histogram: the upper bound of the bucket it falls in."""
    total = sum(buckets.values())
    if not total:
        return None
    rank, seen = q * total, 0
    for bound in stats.BUCKETS:
        seen += buckets.get(stats.bucket_label(bound), 0)
        if seen >= rank:
            return bound if bound != float("inf") else None
    return None


def _fold(rows: dict[str, Figures], name: str, counter: str, count: int) -> None:
    row = rows.setdefault(name, Figures(name))
    if counter.startswith("le_"):
        row.buckets[counter[3:]] = row.buckets.get(counter[3:], 0) + count
    elif counter == "polls":
        row.polls_per_min += count
    elif counter in ("failures", "timeouts", "overruns", "resting", "write_errors"):
        setattr(row, counter, getattr(row, counter) + count)


def counted(redis, now: float) -> tuple[dict[str, Figures], dict[str, Figures], float]:
    """Groups and workers as counted by the poll path over the window; the window's length in seconds."""
    groups: dict[str, Figures] = {}
    workers: dict[str, Figures] = {}
    for minute in stats.minutes(redis, WINDOW_MIN, now):
        for raw, count in minute.items():
            group, worker, counter = stats.parse_field(raw)
            _fold(groups, group, counter, count)
            _fold(workers, worker, counter, count)
    window_s = WINDOW_MIN * 60 + now % 60
    for row in (*groups.values(), *workers.values()):
        row.polls_per_min = round(row.polls_per_min * 60 / window_s, 1)
        row.p50_s, row.p95_s = percentile(row.buckets, 0.5), percentile(row.buckets, 0.95)
    return groups, workers, window_s


def queue_depths(names: list[str]) -> dict[str, int | None]:
    """Messages waiting in each Celery queue (Redis broker lists); None when the broker cannot be asked."""
    import redis as redis_lib

    try:
        broker = redis_lib.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=2, socket_connect_timeout=2)
        pipe = broker.pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        return dict(zip(names, pipe.execute(), strict=True))
    except (RedisError, ValueError):
        return dict.fromkeys(names)


def stale_devices(devices: list[Device], silent: dict[int, int], now: datetime) -> list[Stale]:
    """Enabled devices without a good poll for STALE_INTERVALS intervals, each with the likeliest reason."""
    found = []
    for device in devices:
        since = device.last_success_at
        if since is not None and now - since <= timedelta(seconds=STALE_INTERVALS * device.poll_interval_s):
            continue
        if backoff.unreachable(silent.get(device.pk, 0)):
            reason = f"not answering ({silent[device.pk]} polls in a row): {device.last_error or 'no SNMP response'}"
        elif device.last_error:
            reason = device.last_error
        elif device.last_poll_at is None:
            reason = f"never polled: is a worker serving queue {device.poller_group or 'celery'!r}, and beat running?"
        else:
            reason = "no poll for two intervals: is a worker serving its queue, and beat running?"
        found.append(Stale(device, since, reason[:300]))
    return sorted(found, key=lambda s: (s.since is not None, s.since or now, s.device.name))


def health(now: float | None = None) -> Health:
    """Everything the page shows, gathered in a few round trips (Redis away: the database's part still)."""
    now = time.time() if now is None else now
    devices = list(Device.objects.filter(enabled=True).order_by("name"))
    redis, error = services.redis_client(), ""
    try:
        groups, workers, window_s = counted(redis, now)
        silent = backoff.silent_polls(redis, [d.pk for d in devices])
        seen = stats.workers(redis, now)
        overdue = {stats.text(key): now - end for key, end in redis.zrangebyscore(OPEN_KEY, 0, now, withscores=True)}
    except RedisError as exc:
        groups, workers, window_s, silent, seen, overdue = {}, {}, WINDOW_MIN * 60.0, {}, {}, {}
        error = f"Redis unavailable: poll counters not shown ({type(exc).__name__})"
    default = settings.CELERY_TASK_DEFAULT_QUEUE
    for device in devices:
        row = groups.setdefault(device.poller_group or "default", Figures(device.poller_group or "default"))
        row.devices += 1
        row.backing_off += int(backoff.unreachable(silent.get(device.pk, 0)))
        row.rollup_lag_s = round(max(row.rollup_lag_s, overdue.get(str(device.pk), 0.0)), 1)
    queues = {name: (default if name == "default" else name) for name in groups}
    depths = queue_depths(sorted(set(queues.values())))
    for name, row in groups.items():
        row.queued = depths.get(queues[name])
    for name, gauges in seen.items():
        row = workers.setdefault(name, Figures(name))
        row.seen_s = round(now - gauges.get("seen", now), 1)
        row.spool_bytes, row.spool_age_s = int(gauges.get("spool_bytes", 0)), gauges.get("spool_age_s", 0.0)
    slowest = sorted((d for d in devices if d.last_poll_duration_s is not None), key=lambda d: -d.last_poll_duration_s)
    stale = stale_devices(devices, silent, timezone.now())
    rows = _rows(devices, {s.device.pk for s in stale}, groups)
    return Health(
        groups=sorted(groups.values(), key=lambda g: g.name),
        workers=sorted(workers.values(), key=lambda w: w.name),
        stale=stale,
        slowest=slowest[:SLOWEST],
        window_s=window_s,
        redis_error=error,
        rollup_lag_s=round(max(overdue.values(), default=0.0), 1),
        rows=rows if len(rows) <= LISTED else [],
    )


def _rows(devices: list[Device], stale: set[int], groups: dict[str, Figures]) -> list[Row]:
    """Each device's age since its last good poll; each group's oldest among those not stale."""
    now, rows = timezone.now(), []
    for device in devices:
        age = (now - device.last_success_at).total_seconds() if device.last_success_at else None
        rows.append(Row(device, None if age is None else round(age, 1), device.pk in stale))
        group = groups[device.poller_group or "default"]
        if age is not None and device.pk not in stale:
            group.oldest_good_s = max(group.oldest_good_s or 0.0, round(age, 1))
    return rows
