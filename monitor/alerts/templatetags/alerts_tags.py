"""The alerts panel on a device page: built-in defaults, rules, current states, links."""

from __future__ import annotations

from django import template

from monitor.alerts.defaults import DEFAULTS
from monitor.alerts.models import AlertState, Rule

register = template.Library()


@register.inclusion_tag("alerts/_device_panel_body.html", takes_context=True)
def device_alert_panel(context, device) -> dict:
    """Context for the panel, read here because the device view belongs to another app."""
    user = getattr(context.get("request"), "user", None)
    builtin_on = set(  # ticked: on and mailed to this user (unticking takes only them off it)
        Rule.objects.filter(device=device, scope=Rule.Scope.DEVICE, enabled=True, recipient_users__pk=user.pk)
        .exclude(builtin="")
        .values_list("builtin", flat=True)
        if user is not None and user.is_authenticated
        else ()
    )
    return {
        "device": device,
        "request": context.get("request"),
        "csrf_token": context.get("csrf_token"),
        "messages": context.get("messages"),
        "perms": context.get("perms"),
        "defaults": [(key, spec.label, key in builtin_on) for key, spec in DEFAULTS.items()],
        "rules": Rule.objects.filter(device=device).order_by("name"),
        "states": AlertState.objects.filter(device=device)
        .exclude(state=AlertState.State.OK, flapping=False)
        .filter(rule__enabled=True)
        .select_related("rule"),
    }
