"""What each bucket surely still holds, as InfluxDB keeps it: the one answer to "is this range's start still there?"
for every read (monitor/timeseries/tiers.py `Tier.holds`).

InfluxDB drops a whole shard group once all of it is older than the bucket's retention, so a bucket holds every
sample from the start of the shard group that holds `now - retention`: with 14 days and InfluxDB's default shard
groups of a day (UTC days), 14 to 15 days back. Not a day more (what was claimed before: a range starting 14 d 22 h
back had its first hours read from a tier that no longer held them), and not what the settings say: the bucket's
own retention and shard length are asked of InfluxDB (once every KEEP_S). A retention raised later does not bring
back what had expired: `note_raised` writes into the bucket's description since when it is complete, and that is
its floor until the new retention passes it."""

from __future__ import annotations

import logging
import re
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone

log = logging.getLogger(__name__)
KEEP_S = 300.0  # how long an answer of InfluxDB about a bucket is kept (a changed retention is seen this late)
AWAY_KEEP_S = 10.0  # ... and the settings' word when InfluxDB did not answer
# Go's zero time (0001-01-01 UTC) in epoch seconds: InfluxDB starts shard groups at multiples of their length from it
GO_ZERO_S = -62135596800
MARK = re.compile(r"complete from (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")


@dataclass(frozen=True)
class Kept:
    """A bucket's retention and shard group length in seconds (0: kept forever; InfluxDB's default length), and
    since when it is complete (epoch seconds; None: as long as its retention says)."""

    retention_s: int
    shard_s: int
    complete_from: float | None = None

    def floor(self, now_s: float) -> float | None:
        """The oldest moment from which the bucket holds every sample at `now_s` (None: all it was ever given)."""
        found = self.complete_from
        if self.retention_s:
            expired = now_s - self.retention_s
            start = expired - (expired - GO_ZERO_S) % self.shard_s if self.shard_s else expired
            found = start if found is None else max(found, start)
        return found


_kept: dict[str, tuple[float, Kept]] = {}
_lock = threading.Lock()


def kept(bucket: str, retention_days: int) -> Kept:
    """What `bucket` keeps, as InfluxDB last said (`retention_days` from the settings while it does not answer)."""
    found = _kept.get(bucket)
    if found is not None and time.monotonic() < found[0]:
        return found[1]
    with _lock:
        found = _kept.get(bucket)  # another request thread may have asked while this one waited for the lock
        if found is not None and time.monotonic() < found[0]:
            return found[1]
        answer, keep = _ask(bucket), KEEP_S
        if answer is None:
            answer, keep = Kept(retention_days * 86400, 0), AWAY_KEEP_S
        _kept[bucket] = (time.monotonic() + keep, answer)
    return answer


def forget() -> None:
    """Ask InfluxDB again at the next read (a bucket made or changed by this process)."""
    _kept.clear()


def _ask(bucket: str) -> Kept | None:
    from monitor.timeseries.client import client

    try:
        found = client().buckets_api().find_bucket_by_name(bucket)
    except Exception as exc:  # InfluxDB away: the settings' retention, with no shard group to spare
        log.warning("retention of %s unknown: %s", bucket, type(exc).__name__)
        return None
    if found is None:
        return None
    return of(found)


def of(bucket) -> Kept:
    """What an influxdb-client Bucket says it keeps."""
    rules = [r for r in bucket.retention_rules or [] if r.type == "expire"]
    retention = int(rules[0].every_seconds or 0) if rules else 0
    shard = int(rules[0].shard_group_duration_seconds or 0) if rules else 0
    marked = MARK.search(bucket.description or "")
    since = datetime.fromisoformat(marked.group(1).replace("Z", "+00:00")).timestamp() if marked else None
    return Kept(retention, shard, since)


def note_raised(bucket, now_s: float | None = None) -> None:
    """Before `bucket`'s retention is raised (or lifted): write into its description since when it is complete,
    the floor of its retention so far (what had expired is gone for good)."""
    before = of(bucket)
    floor = before.floor(time.time() if now_s is None else now_s)
    if floor is None:
        return
    stamp = datetime.fromtimestamp(floor, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = MARK.sub("", bucket.description or "").strip()
    bucket.description = f"{text} complete from {stamp}".strip()
