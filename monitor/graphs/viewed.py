"""The page data requests viewed lately, remembered so the server can read them again after each rollup window
(monitor.graphs.warming): a page viewed again, or left open, then finds its windows in the cache.

Only what the viewer was answered is remembered (the caller names the graphs it may read), and each user's requests
name at most MONITOR_WARM_USER_GRAPHS graphs (their newest are kept): the warming run reads with the server's access,
so a user who reads nothing, or asks for many variants, fills neither the list nor the run's budget."""

from __future__ import annotations

import contextlib
import time

from django.conf import settings
from django.http import QueryDict

from monitor.core import services

KEY = "monitor:viewed-batches"
BY_USER = "monitor:viewed-by:{}"  # a user's remembered requests, as "<graphs named>|<query>", scored by time
KEPT = 2000  # requests remembered at most (the newest): bounds Redis and a warming run's list
# What decides a batch's answer; anything else in a query (a cache-buster, a session's token) is dropped.
PARAMS = ("graph", "aggregate", "range", "start", "end", "points", "unit", "p95", "shape")


def moves_with_time(params: QueryDict) -> bool:
    """A preset range, or one whose start and end are relative to now (`now-6h`): what a later read changes."""
    return all(
        not text.strip() or text.strip().startswith("now") for text in (params.get(n) or "" for n in ("start", "end"))
    )


def remember(params: QueryDict, user_id: int | None = None) -> None:
    """Note a batch request whose range moves with time (one between two fixed instants never changes) and names a
    graph; `user_id`: whose view it was, held to MONITOR_WARM_USER_GRAPHS graphs."""
    if settings.MONITOR_WARM_VIEWED_S <= 0 or not moves_with_time(params):
        return
    kept = QueryDict(mutable=True)
    for name in PARAMS:
        if name in params:
            kept.setlist(name, params.getlist(name))
    size = len(kept.getlist("graph")) + len(kept.getlist("aggregate"))
    if not size:
        return
    now, query = time.time(), kept.urlencode()
    with contextlib.suppress(Exception):  # Redis away: nothing is warmed, pages are read as they come
        redis = services.redis_client()
        pipe = redis.pipeline(transaction=False)
        pipe.zadd(KEY, {query: now})
        pipe.zremrangebyrank(KEY, 0, -KEPT - 1)
        if user_id is not None:  # in the same round trip: the user's requests as they now stand
            mine = BY_USER.format(user_id)
            pipe.zadd(mine, {f"{size}|{query}": now})
            pipe.expire(mine, settings.MONITOR_WARM_VIEWED_S)
            pipe.zremrangebyscore(mine, "-inf", now - settings.MONITOR_WARM_VIEWED_S)
            pipe.zrevrange(mine, 0, -1, withscores=True)
        answers = pipe.execute()
        if user_id is not None:
            _hold_to_share(redis, mine, answers[-1])


def _hold_to_share(redis, key: str, requests: list[tuple[bytes, float]]) -> None:
    """Forget a user's oldest requests (`requests`: theirs, newest first) past their share of graphs (from the list
    too, unless viewed since by someone else: a newer score there)."""
    total, dropped = 0, []
    for member, score in requests:
        size, _, query = member.decode(errors="replace").partition("|")
        total += int(size)
        if total > settings.MONITOR_WARM_USER_GRAPHS:
            dropped.append((member, query, score))
    if not dropped:
        return
    pipe = redis.pipeline(transaction=False)
    for member, query, _ in dropped:
        pipe.zrem(key, member)
        pipe.zscore(KEY, query)
    found = pipe.execute()[1::2]
    stale = [query for (_, query, score), listed in zip(dropped, found, strict=True) if listed and listed <= score]
    if stale:
        redis.zrem(KEY, *stale)


def recent(now: float | None = None) -> list[QueryDict]:
    """The requests viewed within MONITOR_WARM_VIEWED_S, newest first, at most MONITOR_WARM_MAX_REQUESTS; older
    ones are forgotten."""
    now = time.time() if now is None else now
    redis = services.redis_client()
    redis.zremrangebyscore(KEY, "-inf", now - settings.MONITOR_WARM_VIEWED_S)
    found = redis.zrevrangebyscore(KEY, "+inf", "-inf", start=0, num=settings.MONITOR_WARM_MAX_REQUESTS)
    return [QueryDict(query.decode(errors="replace")) for query in found]
