"""Read the page data requests viewed lately once more around each 5-minute window, so the next view of those
pages (or the live refresh of one left open) finds their windows in the cache instead of InfluxDB.

A window becomes visible to pages `cache.WRITE_GRACE_S` after its end. The run before that moment ("ahead")
reads, as at that moment, the requests whose every device has polled since the window's end (so the window is
written): at the moment the window becomes visible their answers are already cached, and no viewer waits for
InfluxDB. The run after it reads the requests the first run left (a device not yet polled, a run that found no
worker)."""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterable
from datetime import datetime, timezone

from django.conf import settings
from django.http import QueryDict

from monitor.core import services
from monitor.graphs import viewed
from monitor.graphs.access import Access
from monitor.graphs.api import BadRequest, batch
from monitor.graphs.trees.models import AggregateGraph
from monitor.models import Device, Graph
from monitor.timeseries.cache import WRITE_GRACE_S

log = logging.getLogger(__name__)
STEP_S = 300  # the finest rollup tier's window: what changes the pages' cached answers
DONE = "monitor:warmed:{}"  # the requests read ahead for a window (by its end), so the run after skips them
SLACK_S = 1.0  # a poll's samples are timed after its start; its lines are flushed before its row is saved


def warm_viewed(now: float | None = None) -> dict[str, float]:
    """Read each recently viewed batch (newest first) once more: ahead of its newest window's visibility for the
    requests whose devices have written it, else as at `now` (epoch seconds, default now). At most
    MONITOR_WARM_BUDGET_S (those left are the pages viewed longest ago); one that fails is counted and skipped,
    never raised."""
    started = time.monotonic()
    moment = time.time() if now is None else now
    ended = math.floor(moment / STEP_S) * STEP_S  # the newest window's end
    ahead = moment < ended + WRITE_GRACE_S
    figures: dict[str, float] = {"requests": 0, "graphs": 0, "failed": 0, "seconds": 0.0}
    try:
        requests = viewed.recent(now)
        redis, done = services.redis_client(), DONE.format(ended)
        if ahead:
            requests, figures["waiting"] = _ready(requests, ended)
            at = datetime.fromtimestamp(ended + WRITE_GRACE_S, timezone.utc)
        else:
            already = {query.decode(errors="replace") for query in redis.smembers(done)}
            requests = [params for params in requests if params.urlencode() not in already]
            at = None if now is None else datetime.fromtimestamp(now, timezone.utc)
    except Exception as exc:  # Redis or the database away: nothing to warm this time
        log.warning("warming: viewed pages unavailable: %s", type(exc).__name__)
        return figures
    access = Access.server()
    for index, params in enumerate(requests):
        if time.monotonic() - started > settings.MONITOR_WARM_BUDGET_S:  # the rest is read when viewed
            figures["left"] = len(requests) - index
            log.warning("warming: %d viewed requests left unread after %d s", figures["left"], index)
            break
        try:
            data = batch(access, params, at)
        except BadRequest as exc:  # a graph deleted since, InfluxDB not answering: the page reads it when viewed
            figures["failed"] += 1
            log.info("warming: a viewed request was not read again: %s", exc)
            continue
        figures["requests"] += 1
        figures["graphs"] += len(data["graphs"]) + len(data["aggregates"])
        if ahead:  # noted at once: a run after that starts while this one still reads skips it
            _note(redis, done, params.urlencode())
    figures["seconds"] = time.monotonic() - started
    log.info("warming: %(requests)d viewed requests (%(graphs)d graphs) read in %(seconds).1f s", figures)
    return figures


def _note(redis, key: str, query: str) -> None:
    """Remember a request the run ahead read, for the run after it (kept two windows: not asked after that)."""
    with contextlib.suppress(Exception):  # Redis away: the run after reads it again, nothing worse
        pipe = redis.pipeline(transaction=False)
        pipe.sadd(key, query)
        pipe.expire(key, 2 * STEP_S)
        pipe.execute()


def _ready(requests: list[QueryDict], ended: float) -> tuple[list[QueryDict], int]:
    """The requests whose every device has finished a good poll that began after `ended` (so its window up to
    then is written), and how many others wait for the run after."""
    graphs = {i for params in requests for i in _ids(params.getlist("graph"))}
    aggregates = {i for params in requests for i in _ids(params.getlist("aggregate"))}
    device_of = dict(Graph.objects.filter(pk__in=graphs).values_list("pk", "device_id"))
    members: dict[int, set[int]] = {}
    through = AggregateGraph.members.through.objects.filter(aggregategraph_id__in=aggregates)
    for aggregate, device in through.values_list("aggregategraph_id", "graph__device_id"):
        members.setdefault(aggregate, set()).add(device)
    polled = Device.objects.filter(pk__in={*device_of.values(), *(d for s in members.values() for d in s)})
    done = {
        pk
        for pk, success, took in polled.values_list("pk", "last_success_at", "last_poll_duration_s")
        if success is not None and success.timestamp() - (took or 0.0) - SLACK_S >= ended
    }
    ready = []
    for params in requests:
        devices = {device_of[i] for i in _ids(params.getlist("graph")) if i in device_of}
        devices |= {d for i in _ids(params.getlist("aggregate")) for d in members.get(i, ())}
        if devices <= done:
            ready.append(params)
    return ready, len(requests) - len(ready)


def _ids(texts: Iterable[str]) -> set[int]:
    return {int(text) for text in texts if text.isdigit()}
