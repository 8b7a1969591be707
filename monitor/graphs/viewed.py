"""The page data requests viewed lately, remembered so the server can read them again after each rollup window
(monitor.graphs.warming): a page viewed again, or left open, then finds its windows in the cache."""

from __future__ import annotations

import contextlib
import time

from django.conf import settings
from django.http import QueryDict

from monitor.core import services

KEY = "monitor:viewed-batches"
KEPT = 2000  # requests remembered at most (the newest): bounds Redis and a warming run's list
# What decides a batch's answer; anything else in a query (a cache-buster, a session's token) is dropped.
PARAMS = ("graph", "aggregate", "range", "start", "end", "points", "unit", "p95", "shape")


def moves_with_time(params: QueryDict) -> bool:
    """A preset range, or one whose start and end are relative to now (`now-6h`): what a later read changes."""
    return all(
        not text.strip() or text.strip().startswith("now") for text in (params.get(n) or "" for n in ("start", "end"))
    )


def remember(params: QueryDict) -> None:
    """Note a batch request whose range moves with time; one between two fixed instants never changes."""
    if settings.MONITOR_WARM_VIEWED_S <= 0 or not moves_with_time(params):
        return
    kept = QueryDict(mutable=True)
    for name in PARAMS:
        if name in params:
            kept.setlist(name, params.getlist(name))
    with contextlib.suppress(Exception):  # Redis away: nothing is warmed, pages are read as they come
        pipe = services.redis_client().pipeline(transaction=False)
        pipe.zadd(KEY, {kept.urlencode(): time.time()})
        pipe.zremrangebyrank(KEY, 0, -KEPT - 1)
        pipe.execute()


def recent(now: float | None = None) -> list[QueryDict]:
    """The requests viewed within MONITOR_WARM_VIEWED_S, newest first, at most MONITOR_WARM_MAX_REQUESTS; older
    ones are forgotten."""
    now = time.time() if now is None else now
    redis = services.redis_client()
    redis.zremrangebyscore(KEY, "-inf", now - settings.MONITOR_WARM_VIEWED_S)
    found = redis.zrevrangebyscore(KEY, "+inf", "-inf", start=0, num=settings.MONITOR_WARM_MAX_REQUESTS)
    return [QueryDict(query.decode(errors="replace")) for query in found]
