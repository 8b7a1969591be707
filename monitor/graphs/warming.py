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
MARGIN_S = 5  # the run ahead ends its reading this long before pages see the window


def warm_viewed(now: float | None = None) -> dict[str, float]:
    """Read each recently viewed batch (newest first) once more: ahead of its newest window's visibility for the
    requests whose devices have written it, else as at `now` (epoch seconds, default now). At most
    MONITOR_WARM_BUDGET_S (those left are the pages viewed longest ago); one that fails is counted and skipped,
    never raised."""
    run = Run(time.monotonic(), time.time() if now is None else now)
    ahead = run.moment < run.ended + WRITE_GRACE_S
    try:
        requests = viewed.recent(now)
        redis, done = services.redis_client(), DONE.format(run.ended)
        if ahead:  # paced to end before pages see the window (on the real clock): viewers share the CPU meanwhile
            at, run.note = datetime.fromtimestamp(run.ended + WRITE_GRACE_S, timezone.utc), (redis, done)
            run.deadline = run.started + run.ended + WRITE_GRACE_S - MARGIN_S - run.moment if now is None else None
            for _ in range(2):  # those whose device finished a poll during the first pass are read in a second
                ready, requests = _ready(requests, run.ended)
                run.read(ready, at)
                if not ready or not requests:
                    break
            run.figures["waiting"] = len(requests)
        else:
            already = {query.decode(errors="replace") for query in redis.smembers(done)}
            requests = [params for params in requests if params.urlencode() not in already]
            run.read(requests, None if now is None else datetime.fromtimestamp(now, timezone.utc))
    except Exception as exc:  # Redis or the database away: nothing (more) to warm this time
        log.warning("warming: viewed pages unavailable: %s", type(exc).__name__)
    run.figures["seconds"] = time.monotonic() - run.started
    log.info("warming: %(requests)d viewed requests (%(graphs)d graphs) read in %(seconds).1f s", run.figures)
    return run.figures


class Run:
    """One warming run: its clock, what it has read, and how it paces itself."""

    def __init__(self, started: float, moment: float):
        self.started, self.moment = started, moment
        self.ended = math.floor(moment / STEP_S) * STEP_S  # the newest window's end
        self.deadline: float | None = None  # (monotonic) end reading by then, if it leaves room
        self.note: tuple | None = None  # (redis, key) where requests read ahead are noted
        self.figures: dict[str, float] = {"requests": 0, "graphs": 0, "failed": 0, "seconds": 0.0}
        self.access = Access.server()

    def read(self, requests: list[QueryDict], at: datetime | None) -> None:
        """Read `requests` as at `at` within the run's budget, pacing them up to its deadline."""
        took: list[float] = []
        for index, params in enumerate(requests):
            if time.monotonic() - self.started > settings.MONITOR_WARM_BUDGET_S:  # the rest is read when viewed
                self.figures["left"] = self.figures.get("left", 0) + len(requests) - index
                log.warning("warming: %d viewed requests left unread after %d s", len(requests) - index, index)
                break
            began = time.monotonic()
            self._one(params, at)
            took.append(time.monotonic() - began)
            if self.deadline is not None:
                time.sleep(pause(took, len(requests) - index - 1, self.deadline - time.monotonic()))

    def _one(self, params: QueryDict, at: datetime | None) -> None:
        try:
            data = batch(self.access, params, at)
        except BadRequest as exc:  # a graph deleted since, InfluxDB not answering: the page reads it when viewed
            self.figures["failed"] += 1
            log.info("warming: a viewed request was not read again: %s", exc)
            return
        self.figures["requests"] += 1
        self.figures["graphs"] += len(data["graphs"]) + len(data["aggregates"])
        if self.note is not None:  # noted at once: a run after that starts while this one still reads skips it
            _note(*self.note, params.urlencode())


def pause(took: list[float], remaining: int, until_deadline: float) -> float:
    """Seconds to rest after a request: as long as it took (the run takes at most half of a core's time), less
    when the requests left, at the pace so far, would not end by the deadline; none past it."""
    if not took or until_deadline <= 0:
        return 0.0
    average = sum(took) / len(took)
    room = until_deadline - remaining * average  # what the rest leaves of the time to the deadline
    return max(0.0, min(took[-1], room / (remaining + 1)))


def _note(redis, key: str, query: str) -> None:
    """Remember a request the run ahead read, for the run after it (kept two windows: not asked after that)."""
    with contextlib.suppress(Exception):  # Redis away: the run after reads it again, nothing worse
        pipe = redis.pipeline(transaction=False)
        pipe.sadd(key, query)
        pipe.expire(key, 2 * STEP_S)
        pipe.execute()


def _ready(requests: list[QueryDict], ended: float) -> tuple[list[QueryDict], list[QueryDict]]:
    """The requests whose every device has finished a good poll that began after `ended` (so its window up to
    then is written), and the others."""
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
    ready, waiting = [], []
    for params in requests:
        devices = {device_of[i] for i in _ids(params.getlist("graph")) if i in device_of}
        devices |= {d for i in _ids(params.getlist("aggregate")) for d in members.get(i, ())}
        (ready if devices <= done else waiting).append(params)
    return ready, waiting


def _ids(texts: Iterable[str]) -> set[int]:
    return {int(text) for text in texts if text.isdigit()}
