"""Poller health: the page (staff), its graphs over time (JSON) and /metrics (Prometheus, API token of a staff user)."""

from __future__ import annotations

import logging

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from monitor.graphs.timerange import RangeError, parse_range
from monitor.graphs.viewhelpers import api_auth, json_error, range_context
from monitor.health import metrics
from monitor.health.figures import STALE_INTERVALS, health
from monitor.timeseries import pollers

log = logging.getLogger(__name__)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# The graphs over time: (figure, of groups or workers, title in words, unit for static/js/format.js).
GRAPHS = (
    ("polls_per_min", "groups", "Polls a minute", ""),
    ("p50_s", "groups", "Poll duration, median", "s"),
    ("p95_s", "groups", "Poll duration, 95th percentile", "s"),
    ("failures", "groups", "Failed polls", ""),
    ("timeouts", "groups", "Polls timed out", ""),
    ("overruns", "groups", "Polls overrunning their interval", ""),
    ("write_errors", "groups", "Write errors", ""),
    ("spool_bytes", "workers", "Samples spooled, waiting for InfluxDB", "B"),
    ("queued", "groups", "Polls queued", ""),
    ("rollup_lag_s", "groups", "Rollup lag", "s"),
    ("stale", "groups", "Devices without a good poll", ""),
)


def is_active_staff(user) -> bool:
    """Staff whose account is active (the session backends and API tokens check too: this page does not rely on it)."""
    return bool(user.is_authenticated and user.is_active and user.is_staff)


def _staff(request: HttpRequest) -> None:
    if not is_active_staff(request.user):
        raise PermissionDenied("The poller health page is for staff users.")


@login_required
@require_GET
def page(request: HttpRequest) -> HttpResponse:
    """Groups, workers, devices without a good poll for two intervals, the slowest devices, graphs over time."""
    _staff(request)
    context = {"health": health(), "stale_intervals": STALE_INTERVALS, **range_context(request)}
    context["graphs"] = GRAPHS
    return render(request, "monitor/pollers.html", context)


@api_auth
@require_GET
def history(request: HttpRequest) -> JsonResponse:
    """{groups: {name: {figure: [[ms, value]]}}, workers: ...} over the page's range, from the self-samples."""
    if not is_active_staff(request.user):
        return json_error(403, "the poller health figures are for staff users")
    try:
        window = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
    except RangeError as exc:
        return json_error(400, str(exc))
    try:
        groups = pollers.history("poller_group", window.start, window.end)
        workers = pollers.history("poller_worker", window.start, window.end)
    except Exception as exc:
        log.warning("poller history failed: %s", type(exc).__name__)
        return json_error(503, "the time-series database is not answering")
    return JsonResponse({"groups": groups, "workers": workers})


@api_auth
@require_GET
def prometheus(request: HttpRequest) -> HttpResponse:
    """The same figures as the page, for Prometheus (send `Authorization: Bearer <token of a staff user>`)."""
    if not is_active_staff(request.user):
        return HttpResponse("the metrics are for staff users' tokens\n", status=403, content_type="text/plain")
    return HttpResponse(metrics.exposition(health()), content_type=CONTENT_TYPE)
