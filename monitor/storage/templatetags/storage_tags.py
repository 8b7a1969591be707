"""The storage panel of a device page: the parts' health, the path on either side, the latency unit found, the
heatmap's levels."""

from __future__ import annotations

from django import template

from monitor.graphs.access import access_for
from monitor.models import Device
from monitor.storage import health, partstates
from monitor.storage.models import HeatmapLevels, LatencyUnit, PathLink, PathRefresh
from monitor.storage.paths import is_array

register = template.Library()


@register.inclusion_tag("storage/_device_panel_body.html", takes_context=True)
def storage_panel(context, device) -> dict:
    """Context for the panel, read here because the device view belongs to another app; the other end of a link
    is named only when the reader may see that device."""
    request = context.get("request")
    visible = access_for(request).devices() if request is not None else Device.objects.none()
    array = is_array(device)
    warning, problem = HeatmapLevels.for_device(device.pk)
    carried: dict[str, list[PathLink]] = {}
    for link in PathLink.objects.filter(switch=device, array__in=visible).select_related("array"):
        carried.setdefault(link.switch_port, []).append(link)
    reached: dict[tuple[int, str], list[str]] = {}
    links = list(PathLink.objects.filter(array=device, switch__in=visible).select_related("switch")) if array else []
    for link in links:
        reached.setdefault((link.switch_id, link.switch.name), []).append(link.switch_port)
    states = partstates.current(device)
    return {
        "perms": context.get("perms"),
        "device": device,
        "array": array,
        "health": states,
        "health_wrong": [row for row in states if row.state != "ok"],
        "health_counts": health.counts(states),
        "warning_ms": warning,
        "problem_ms": problem,
        "units": LatencyUnit.objects.filter(device=device) if array else [],
        "links": links,
        "reached": [(switch_id, name, sorted(set(ports))) for (switch_id, name), ports in sorted(reached.items())],
        "carried": sorted(carried.items()),
        "refresh": PathRefresh.objects.filter(array=device).first() if array else None,
    }


@register.filter
def unit_reason(row: LatencyUnit) -> str:
    """Why this unit, in a sentence: the evidence of the check, or that the default stands."""
    if not row.decided:
        return "no evidence from the array's average-latency gauges yet: the profile's default stands"
    per_op = row.sum_per_op or 0.0
    gauge = row.gauge_ms or 0.0
    return (
        f"the array's average-latency gauge ({gauge:g} ms) agrees with Δsum/Δops ({per_op:,.0f} per operation) read "
        f"as {row.unit} ({per_op * row.scale:.2f} ms) on {row.rows_agreeing} of {row.rows_checked} rows"
    )


@register.simple_tag
def heatmap_levels(device) -> dict:
    """{"warning_ms", "problem_ms"} of a device, for the heatmap's data attributes and legend."""
    warning, problem = HeatmapLevels.for_device(device.pk)
    return {"warning_ms": warning, "problem_ms": problem}
