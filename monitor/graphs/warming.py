"""Read the page data requests viewed lately once more around each 5-minute window, so the next view of those
pages (or the live refresh of one left open) finds their windows in the cache instead of InfluxDB.

A live range's whole windows change twice a window: its end moves on when pages see a newer window
(`cache.WRITE_GRACE_S` after a 5-minute boundary: the window that ended there for devices polled each minute, an
older one for devices polled less often, `cache.seen_after_s`), its start at the next window's end. The run before
the first moment ("ahead", from a minute after the window's end) reads, as at that moment, the requests whose every
device has written the windows pages see then (has begun a poll since their end, or since a minute after it for the
devices that write a minute later, HOUR_WRITE_DELAY_S more for an hour: collectors/rollup.py `writes_after_s`),
each as soon as it has; the run at that moment reads those it left
(a device not yet polled, a run that found no worker), then every request once more as at the next window's end;
the run a minute later reads as at that end the requests viewed since (a page opened after the run at that
moment). Each request is claimed in Redis before it is read, so no two runs read it for the same moment. So at
both moments the answers are already cached and no viewer waits for InfluxDB."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterable
from datetime import datetime, timezone

from django.conf import settings
from django.http import QueryDict

from collectors.rollup import FIVE, SPREAD_S, TIERS, begun_by_s, writes_after_s
from monitor.core import services
from monitor.core.ids import parse_id
from monitor.graphs import viewed
from monitor.graphs.access import Access
from monitor.graphs.api import BadRequest, batch
from monitor.graphs.trees.models import AggregateGraph
from monitor.models import Device, Graph
from monitor.timeseries import tiers
from monitor.timeseries.cache import WRITE_GRACE_S, newest_seen

log = logging.getLogger(__name__)
DONE = "monitor:warmed:{}"  # the requests read for a window (by its end) as at the moment pages see it
NEXT = "monitor:warmed-next:{}"  # ... and those read as at the next window's end
SLACK_S = 1.0  # a poll's samples are timed after its start; its lines are flushed before its row is saved
MARGIN_S = 5  # the run ahead ends its reading this long before pages see the window
WAIT_S = 5.0  # the run ahead looks this often for devices that have written the window since
# ... until every device polled each minute has begun the poll that writes it (a minute late for half of them), and
# 30 s for its write: those left then are polled rarely or not answering, and the run at the moment pages see the
# window reads them.
LOOK_UNTIL_S = begun_by_s(FIVE, SPREAD_S) + 30


def warm_viewed(now: float | None = None) -> dict[str, float]:
    """Read each recently viewed batch (newest first) once more, as at the next moment its answer changes: ahead of
    its newest window's visibility for the requests whose devices have written it; after that, as at `now` (epoch
    seconds, default now) those not read yet, then all once more as at the next window's end, when the ranges'
    starts move on (a later run in the window reads only what no run has). At most MONITOR_WARM_BUDGET_S (those
    left are the pages viewed longest ago); one that fails is counted and skipped, never raised."""
    run = Run(time.monotonic(), time.time() if now is None else now, paced=now is None)
    try:
        requests = viewed.recent(now)
        done, upcoming = DONE.format(run.ended), NEXT.format(run.ended)
        if run.moment < run.ended + WRITE_GRACE_S:  # the ranges' ends move on when pages see the window
            run.figures["waiting"] = len(run.ahead(requests, run.ended + WRITE_GRACE_S, "requests", claim=done))
        else:
            at = None if now is None else datetime.fromtimestamp(now, timezone.utc)
            run.read(requests, at, "requests", claim=done)
            run.ahead(requests, run.ended + run.step_s + 1, "next", claim=upcoming)  # their starts move on then
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
        self.step_s = min(tier.step_s for tier in tiers.tiers() if tier.step_s)  # what changes cached answers
        self.ended = math.floor(moment / self.step_s) * self.step_s  # the newest window's end
        self.figures: dict[str, float] = {"requests": 0, "next": 0, "graphs": 0, "failed": 0, "seconds": 0.0}
        self.access = Access.server()

    def ahead(self, requests: list[QueryDict], at_s: float, count: str, claim: str) -> list[QueryDict]:
        """Read as at `at_s` (epoch seconds, ahead) the requests whose devices have written the newest window, paced
        (on the real clock) to end before then, and those whose devices write it meanwhile as they do (unpaced: in a
        second pass); each one claimed in the Redis set `claim` first. Returns those still waiting."""
        deadline = None
        if self.paced:  # viewers share the machine with the run meanwhile
            budget_end = self.started + settings.MONITOR_WARM_BUDGET_S - MARGIN_S
            deadline = min(self.started + at_s - MARGIN_S - self.moment, budget_end)
        at = datetime.fromtimestamp(at_s, timezone.utc)
        passes = 0
        while requests:
            ready, requests = _ready(requests, at_s)
            self.read(ready, at, count, claim, deadline)
            passes += 1
            if deadline is None:  # unpaced (a given moment): a second pass for the devices polled meanwhile
                if not ready or passes == 2:
                    break
            elif time.monotonic() >= deadline - WAIT_S or self.now() >= self.ended + LOOK_UNTIL_S:
                break
            elif not ready:  # the rest write the window later (a minute after its end for half of them)
                time.sleep(WAIT_S)
        return requests

    def now(self) -> float:
        """The run's clock (epoch seconds): its moment, moved on by the time it has taken."""
        return self.moment + time.monotonic() - self.started

    def read(
        self,
        requests: list[QueryDict],
        at: datetime | None,
        count: str,
        claim: str,
        deadline: float | None = None,
    ) -> None:
        """Read `requests` as at `at` within the run's budget (counted in figures[count]), paced up to `deadline`
        (monotonic seconds) if given; each is claimed in the Redis set `claim` first, and skipped if a run has."""
        took: list[float] = []
        for index, params in enumerate(requests):
            if time.monotonic() - self.started > settings.MONITOR_WARM_BUDGET_S:  # the rest is read when viewed
                left = len(requests) - index
                self.figures["left"] = self.figures.get("left", 0) + left
                log.warning("warming: %d requests left unread after %d s", left, settings.MONITOR_WARM_BUDGET_S)
                break
            if not _claim(claim, params.urlencode(), 2 * self.step_s):
                continue
            began = time.monotonic()
            self._one(params, at, count)
            took.append(time.monotonic() - began)
            if deadline is not None:
                time.sleep(pause(took, len(requests) - index - 1, deadline - time.monotonic()))

    def _one(self, params: QueryDict, at: datetime | None, count: str) -> None:
        """Read one request (one that fails is counted once a run and logged, and read when viewed)."""
        try:
            data = batch(self.access, params, at)
        except BadRequest as exc:  # a graph deleted since, InfluxDB not answering: the page reads it when viewed
            self.figures["failed"] += count == "requests"
            log.info("warming: a viewed request was not read again: %s", exc)
            return
        self.figures[count] += 1
        if count == "requests":
            self.figures["graphs"] += len(data["graphs"]) + len(data["aggregates"])


def pause(took: list[float], remaining: int, until_deadline: float) -> float:
    """Seconds to rest after a request: as long as it took (the run takes at most half of a core's time), less
    when the requests left, at the pace so far, would not end by the deadline; none past it."""
    if not took or until_deadline <= 0:
        return 0.0
    average = sum(took) / len(took)
    room = until_deadline - remaining * average  # what the rest leaves of the time to the deadline
    return max(0.0, min(took[-1], room / (remaining + 1)))


def _claim(key: str, query: str, keep_s: int) -> bool:
    """Whether this run reads `query` for the moment of the Redis set `key` (kept `keep_s`): false when another run
    of the window has claimed it; true when Redis is away (read twice rather than not at all)."""
    try:
        pipe = services.redis_client().pipeline(transaction=False)
        pipe.sadd(key, query)
        pipe.expire(key, keep_s)
        added, _ = pipe.execute()
    except Exception:
        return True
    return bool(added)


def _ready(requests: list[QueryDict], moment: float) -> tuple[list[QueryDict], list[QueryDict]]:
    """The requests whose every device has finished a good poll that began late enough to have written every
    window pages see at `moment` (epoch seconds), and the others."""
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
        for pk, success, took, interval in polled.values_list(
            "pk", "last_success_at", "last_poll_duration_s", "poll_interval_s"
        )
        if success is not None and success.timestamp() - (took or 0.0) - SLACK_S >= _writing(pk, interval, moment)
    }
    ready, waiting = [], []
    for params in requests:
        devices = {device_of[i] for i in _ids(params.getlist("graph")) if i in device_of}
        devices |= {d for i in _ids(params.getlist("aggregate")) for d in members.get(i, ())}
        (ready if devices <= done else waiting).append(params)
    return ready, waiting


def _writing(pk: int, interval: int, moment: float) -> float:
    """When the poll that writes the newest windows pages see at `moment` begins at the latest, for the device."""
    return max(newest_seen(moment, step, interval) + writes_after_s(step, str(pk), interval) for _, step in TIERS)


def _ids(texts: Iterable[str]) -> set[int]:
    """The ids named, by the API's own parser (what it would refuse names nothing)."""
    return {number for number in map(parse_id, texts) if number is not None}
