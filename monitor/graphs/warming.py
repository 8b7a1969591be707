"""Read the page data requests viewed lately once more, just after each rollup window is written, so the next
view of those pages (or the live refresh of one left open) finds their windows in the cache instead of InfluxDB."""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone

from django.conf import settings

from monitor.graphs import viewed
from monitor.graphs.access import Access
from monitor.graphs.api import BadRequest, batch

log = logging.getLogger(__name__)


def warm_viewed(now: float | None = None) -> dict[str, float]:
    """Replay each recently viewed batch (newest first) as at `now` (epoch seconds, default now) for at most
    MONITOR_WARM_BUDGET_S (those left are the pages viewed longest ago); one that fails is counted and skipped,
    never raised."""
    started = time.monotonic()
    at = None if now is None else datetime.fromtimestamp(now, timezone.utc)
    access, warmed, failed, graphs = Access.server(), 0, 0, 0
    try:
        requests = viewed.recent(now)
    except Exception as exc:  # Redis away: nothing to warm this time
        log.warning("warming: viewed pages unavailable: %s", type(exc).__name__)
        return {"requests": 0, "graphs": 0, "failed": 0, "seconds": 0.0}
    left = 0
    for index, params in enumerate(requests):
        if time.monotonic() - started > settings.MONITOR_WARM_BUDGET_S:  # the rest is read when viewed
            left = len(requests) - index
            break
        try:
            data = batch(access, params, at)
        except BadRequest as exc:  # a graph deleted since, InfluxDB not answering: the page reads it when viewed
            failed += 1
            log.info("warming: a viewed request was not read again: %s", exc)
            continue
        warmed += 1
        graphs += len(data["graphs"]) + len(data["aggregates"])
    figures = {"requests": warmed, "graphs": graphs, "failed": failed, "seconds": time.monotonic() - started}
    if left:
        figures["left"] = left
        log.warning("warming: %d viewed requests left unread after %d s", left, settings.MONITOR_WARM_BUDGET_S)
    log.info("warming: %(requests)d viewed requests (%(graphs)d graphs) read in %(seconds).1f s", figures)
    return figures
