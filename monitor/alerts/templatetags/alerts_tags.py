"""The alerts panels: on a device page (built-in defaults, rules, current states, links) and on the home page (what
is firing or pending on the devices the user may read, firing first)."""

from __future__ import annotations

from django import template

from monitor.alerts.defaults import DEFAULTS
from monitor.alerts.models import AlertState, Rule, open_problems
from monitor.graphs.access import access_for

register = template.Library()
HOME_ROWS = 15  # current alerts on the home page; the alerts page lists them all


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
        "defaults_on": len(set(DEFAULTS) & set(builtin_on)),
        "rules": Rule.objects.filter(device=device).order_by("name"),
        "states": AlertState.objects.filter(device=device)
        .exclude(state=AlertState.State.OK, flapping=False)
        .filter(rule__enabled=True)
        .select_related("rule"),
    }


@register.inclusion_tag("alerts/_current_panel.html", takes_context=True)
def current_alerts_panel(context) -> dict:
    """The home page's panel: the user's visible firing and pending alerts, HOME_ROWS at most, firing first."""
    request = context.get("request")
    states = list(open_problems(access_for(request).devices())[: HOME_ROWS + 1]) if request is not None else []
    return {"states": states[:HOME_ROWS], "more": len(states) > HOME_ROWS}
