"""Read the page data requests viewed lately once more around each 5-minute window, so the next view of those
pages (or the live refresh of one left open) finds their windows in the cache instead of InfluxDB.

A live range's whole windows change twice a window: its end moves on when pages see the newest window
(`cache.WRITE_GRACE_S` after the window's end), its start at the next window's end. The run before the first
moment ("ahead") reads, as at that moment, the requests whose every device has polled since the window's end (so
the window is written); the run at that moment reads those it left (a device not yet polled, a run that found no
worker), then every request once more as at the next window's end. So at both moments the answers are already
cached and no viewer waits for InfluxDB."""

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
    """Read each recently viewed batch (newest first) once more, as at the next moment its answer changes: ahead of
    its newest window's visibility for the requests whose devices have written it; after that, as at `now` (epoch
    seconds, default now) those left, then all once more as at the next window's end, when the ranges' starts
    move on. At most MONITOR_WARM_BUDGET_S (those left are the pages viewed longest ago); one that fails is
    counted and skipped, never raised."""
    run = Run(time.monotonic(), time.time() if now is None else now, paced=now is None)
    try:
        requests = viewed.recent(now)
        redis, done = services.redis_client(), DONE.format(run.ended)
        if run.moment < run.ended + WRITE_GRACE_S:  # the ranges' ends move on when pages see the window
            run.note = (redis, done)
            run.figures["waiting"] = len(run.ahead(requests, run.ended + WRITE_GRACE_S, "requests"))
        else:
            already = {query.decode(errors="replace") for query in redis.smembers(done)}
            rest = [params for params in requests if params.urlencode() not in already]
            run.read(rest, None if now is None else datetime.fromtimestamp(now, timezone.utc), "requests")
            run.ahead(requests, run.ended + STEP_S + 1, "next")  # their starts move on at the next window's end
    except Exception as exc:  # Redis or the database away: nothing (more) to warm this time
        log.warning("warming: viewed pages unavailable: %s", type(exc).__name__)
    run.figures["seconds"] = time.monotonic() - run.started
    log.info(
        "warming: %(requests)d viewed requests (%(graphs)d graphs), %(next)d for the next window, in %(seconds).1f s",
        run.figures,
    )
    return run.figures


class Run:
    """One warming run: its clock, what it has read, and how it paces itself."""

    def __init__(self, started: float, moment: float, paced: bool):
        self.started, self.moment, self.paced = started, moment, paced
        self.ended = math.floor(moment / STEP_S) * STEP_S  # the newest window's end
        self.deadline: float | None = None  # (monotonic) end reading by then, if it leaves room
        self.note: tuple | None = None  # (redis, key) where requests read ahead are noted
        self.figures: dict[str, float] = {"requests": 0, "next": 0, "graphs": 0, "failed": 0, "seconds": 0.0}
        self.access = Access.server()

    def ahead(self, requests: list[QueryDict], at_s: float, count: str) -> list[QueryDict]:
        """Read as at `at_s` (epoch seconds, ahead) the requests whose devices have written the newest window, paced
        (on the real clock) to end before then; those whose device finished a poll during a first pass in a second.
        Returns those still waiting."""
        if self.paced:  # viewers share the machine with the run meanwhile
            budget_end = self.started + settings.MONITOR_WARM_BUDGET_S - MARGIN_S
            self.deadline = min(self.started + at_s - MARGIN_S - self.moment, budget_end)
        at = datetime.fromtimestamp(at_s, timezone.utc)
        for _ in range(2):
            ready, requests = _ready(requests, self.ended)
            self.read(ready, at, count)
            if not ready or not requests:
                break
        return requests

    def read(self, requests: list[QueryDict], at: datetime | None, count: str) -> None:
        """Read `requests` as at `at` within the run's budget (counted in figures[count]), paced up to its
        deadline."""
        took: list[float] = []
        for index, params in enumerate(requests):
            if time.monotonic() - self.started > settings.MONITOR_WARM_BUDGET_S:  # the rest is read when viewed
                left = len(requests) - index
                self.figures["left"] = self.figures.get("left", 0) + left
                log.warning("warming: %d requests left unread after %d s", left, settings.MONITOR_WARM_BUDGET_S)
                break
            began = time.monotonic()
            self._one(params, at, count)
            took.append(time.monotonic() - began)
            if self.deadline is not None:
                time.sleep(pause(took, len(requests) - index - 1, self.deadline - time.monotonic()))

    def _one(self, params: QueryDict, at: datetime | None, count: str) -> None:
        try:
            data = batch(self.access, params, at)
        except BadRequest as exc:  # a graph deleted since, InfluxDB not answering: the page reads it when viewed
            self.figures["failed"] += count == "requests"  # (counted once a run)
            log.info("warming: a viewed request was not read again: %s", exc)
            return
        self.figures[count] += 1
        if count != "requests":
            return
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
