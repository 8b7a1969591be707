"""Pages: every visible event (/events/) and a device's Events tab, with filters and the page's time range;
staff see the receivers and what they stored or dropped, by reason."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from monitor.events.counting import REASONS
from monitor.events.kinds import COLOURS
from monitor.events.models import Receiver
from monitor.events.query import Filters, in_window
from monitor.graphs.access import access_for
from monitor.graphs.timerange import RangeError, parse_range
from monitor.graphs.viewhelpers import range_context

PAGE = 100
ALIVE_S = 30  # a receiver flushes its counts every 2 s: one unheard of for this long is not running


def _listing(request: HttpRequest, devices, device=None) -> dict:
    context = {**range_context(request), "device": device, "range_error": "", "events_page": True}
    filters = Filters(request.GET, devices)
    try:
        span = parse_range(request.GET.get("start"), request.GET.get("end"), request.GET.get("range"))
    except RangeError as exc:
        context |= {"range_error": str(exc), "filters": filters, "page": None}
        return context
    events = filters.apply(in_window(devices, span.start, span.end)).select_related("device").order_by("-time", "-id")
    page = Paginator(events, PAGE).get_page(request.GET.get("page"))
    for event in page.object_list:
        event.colour = COLOURS[event.severity] if event.severity < len(COLOURS) else COLOURS[-1]
    query = request.GET.copy()
    query.pop("page", None)
    context |= {"filters": filters, "page": page, "span": span, "query": query.urlencode()}
    return context


@login_required
@require_GET
def events_page(request: HttpRequest) -> HttpResponse:
    """Every readable device's events in the page's range, filtered; staff also see the receivers' counts."""
    access = access_for(request)
    context = _listing(request, access.devices())
    if request.user.is_staff:
        context["receivers"] = receivers()
    return render(request, "events/list.html", context)


@login_required
@require_GET
def device_events(request: HttpRequest, device_id: int) -> HttpResponse:
    """A device's Events tab (404 for a device the user may not read)."""
    devices = access_for(request).devices()
    device = get_object_or_404(devices, pk=device_id)
    return render(request, "events/device.html", _listing(request, devices.filter(pk=device.pk), device))


def receivers() -> list[dict]:
    """Each receiver: alive or not, and its counts by reason (stored first, then drops, largest first)."""
    now = timezone.now()
    out = []
    for receiver in Receiver.objects.prefetch_related("counts"):
        counts = sorted(receiver.counts.all(), key=lambda c: (c.reason != "stored", -c.count))
        out.append(
            {
                "receiver": receiver,
                "alive": now - receiver.last_seen < timedelta(seconds=ALIVE_S),
                "counts": [{"row": c, "label": REASONS.get(c.reason, c.reason)} for c in counts],
            }
        )
    return out
