"""How the pollers are doing, counted in Redis by the poll path itself: per minute, poller group and worker.

Each batch adds its polls, failures, timeouts, overruns, back-off rests, InfluxDB write problems and a
histogram of poll durations to one hash per minute (kept an hour); each worker also says when it was last
seen and what its spool holds. monitor/health reads these for the poller health page and /metrics; the
figures cost one pipelined round trip per batch and need no process of their own.
"""

from __future__ import annotations

import os
import socket
import time
from collections import Counter

from redis.exceptions import RedisError

MINUTE_KEY = "monitor:pollstats:{minute}"
WORKER_KEY = "monitor:pollworker:{worker}"
WORKERS_KEY = "monitor:pollworkers"
KEEP_S = 3600
# Upper bounds (seconds) of the poll-duration histogram, as Prometheus buckets: p50/p95 are read from them.
BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, float("inf"))
COUNTS = ("polls", "failures", "timeouts", "overruns", "resting", "write_errors")
SEP = "\t"


def worker_name() -> str:
    """This worker, as the health page names it: MONITOR_WORKER_NAME, else host name and process group."""
    return os.environ.get("MONITOR_WORKER_NAME") or f"{socket.gethostname()}:{os.getpgrp()}"


def bucket_label(bound: float) -> str:
    return "inf" if bound == float("inf") else f"{bound:g}"


def field(group: str, worker: str, name: str) -> str:
    return SEP.join((group or "default", worker, name))


def parse_field(raw: str) -> tuple[str, str, str]:
    group, worker, name = raw.split(SEP, 2)
    return group, worker, name


class BatchStats:
    """What one batch of polls adds up to, per poller group; written once with `save`."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def poll(self, group: str, duration_s: float | None, failed: bool = False, timed_out: bool = False) -> None:
        """A poll that ran (answered or not)."""
        self.counts[(group, "polls")] += 1
        self.counts[(group, "failures")] += int(failed)
        self.counts[(group, "timeouts")] += int(timed_out)
        if duration_s is not None:
            bound = next(b for b in BUCKETS if duration_s <= b)
            self.counts[(group, f"le_{bucket_label(bound)}")] += 1
            self.counts[(group, "duration_ms")] += round(duration_s * 1000)

    def add(self, group: str, name: str, count: int = 1) -> None:
        """Overruns (the previous poll still ran), back-off rests, write errors."""
        if count:
            self.counts[(group, name)] += count

    def save(self, redis, writer=None, now: float | None = None) -> None:
        """Add the batch to this minute's hash and refresh this worker's row; Redis away loses only figures."""
        now = time.time() if now is None else now
        worker = worker_name()
        key = MINUTE_KEY.format(minute=int(now // 60 * 60))
        try:
            pipe = redis.pipeline(transaction=False)
            for (group, name), count in self.counts.items():
                pipe.hincrby(key, field(group, worker, name), count)
            pipe.expire(key, KEEP_S)
            spool = spool_state(writer, now) if writer is not None else {"spool_bytes": 0, "spool_age_s": 0}
            pipe.hset(WORKER_KEY.format(worker=worker), mapping={"seen": now, **spool})
            pipe.expire(WORKER_KEY.format(worker=worker), KEEP_S)
            pipe.zadd(WORKERS_KEY, {worker: now})
            pipe.zremrangebyscore(WORKERS_KEY, 0, now - KEEP_S)
            pipe.execute()
        except RedisError:
            pass  # the polls are recorded on their rows and in InfluxDB; only the health figures miss a batch


def spool_state(writer, now: float) -> dict[str, float]:
    """Bytes waiting in this worker's spool (collectors.influx.InfluxWriter) and its oldest file's age (0: empty)."""
    size, oldest = writer.spool_summary()
    return {"spool_bytes": size, "spool_age_s": round(now - oldest, 1) if size and oldest is not None else 0}


def minutes(redis, last: int, now: float | None = None) -> list[dict[str, int]]:
    """The raw counters of the last `last` whole minutes and the running one, oldest first."""
    now = time.time() if now is None else now
    current = int(now // 60 * 60)
    keys = [MINUTE_KEY.format(minute=current - 60 * i) for i in range(last, -1, -1)]
    pipe = redis.pipeline(transaction=False)
    for key in keys:
        pipe.hgetall(key)
    return [{text(k): int(v) for k, v in raw.items()} for raw in pipe.execute()]


def workers(redis, now: float | None = None) -> dict[str, dict[str, float]]:
    """Each worker seen in the last hour: when last seen and its spool."""
    now = time.time() if now is None else now
    names = [text(n) for n in redis.zrangebyscore(WORKERS_KEY, now - KEEP_S, "+inf")]
    pipe = redis.pipeline(transaction=False)
    for name in names:
        pipe.hgetall(WORKER_KEY.format(worker=name))
    rows = {}
    for name, raw in zip(names, pipe.execute(), strict=True):
        rows[name] = {text(k): float(v) for k, v in raw.items()}
    return rows


def text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def count_outcomes(tally: BatchStats, groups: dict[str, str], results, written: dict, started: float) -> None:
    """Add a batch's outcomes (collectors.batch.BatchOutcome) to its tally, by each device's poller group."""
    from collectors.influx import WriteResult

    for outcome in results:
        group = groups.get(outcome.key, "")
        result = outcome.result
        duration = result.duration_s if result is not None else max(0.0, (outcome.finished_at or started) - started)
        failed = result is None or bool(result.failure)
        tally.poll(group, duration, failed=failed, timed_out=outcome.silent)
        if result is not None and written.get(outcome.key, WriteResult.WRITTEN) is not WriteResult.WRITTEN:
            tally.add(group, "write_errors")
