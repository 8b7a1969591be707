"""`{% poller_panel %}`: the home page's warning when the pollers are not well (staff only; nothing otherwise)."""

from __future__ import annotations

import logging

from django import template

from monitor.health.figures import health

register = template.Library()
log = logging.getLogger(__name__)


@register.inclusion_tag("monitor/_pollers_panel.html", takes_context=True)
def poller_panel(context) -> dict:
    user = getattr(context.get("request"), "user", None)
    if user is None or not user.is_staff:
        return {"problems": []}
    try:
        return {"problems": health().problems}
    except Exception as exc:  # the home page must render whatever the health figures do
        log.warning("poller health panel failed: %s", type(exc).__name__)
        return {"problems": ["poller health figures unavailable"]}
