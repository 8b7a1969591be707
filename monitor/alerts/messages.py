"""Compose an alert mail (plain text and HTML) from an Event row; device strings are escaped in HTML."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from monitor.alerts.rules import EVENT, METRICS, NOT_ANSWERING, closed_as_gone, format_value
from monitor.events.kinds import KINDS
from monitor.models import Device, Interface
from monitor.topology import dependencies

HEADLINES = {
    "fire": "FIRING",
    "repeat": "STILL FIRING",
    "clear": "RECOVERED",
    "flapping": "FLAPPING",
    "settled": "STOPPED FLAPPING",
}


def _plain(text: str, limit: int = 120) -> str:
    """A device string fit for a subject line, bounded: every run of characters that is not printable (controls,
    C1 and Unicode line breaks, which Python's email parser also splits on, bidi overrides) one space."""
    kept: list[str] = []
    for char in text:
        if char.isprintable():
            kept.append(char)
        elif not kept or kept[-1] != " ":
            kept.append(" ")
        if len(kept) >= limit:
            break
    return "".join(kept)


def duration_text(seconds: float) -> str:
    """Seconds as '2 h 5 min', '3 min 10 s' or '12 s'."""
    seconds = int(max(seconds, 0))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


def graph_link(event) -> str:
    """The device page with the range around the event (an hour before it started to an hour after)."""
    start = (event.since or event.created_at) - timedelta(hours=1)
    end = min(event.created_at + timedelta(hours=1), timezone.now() + timedelta(hours=12))
    query = urlencode({"start": int(start.timestamp()), "end": int(end.timestamp())})
    return f"{settings.MONITOR_BASE_URL.rstrip('/')}{reverse('device', args=[event.device_id])}?{query}"


def context(event) -> dict:
    """Everything the mail templates show: what crossed what level, for how long, the value now, a link."""
    rule, metric = event.rule, METRICS.get(event.rule.metric)
    unit = rule.unit if rule.unit != "warning" else "absolute"
    alias = ""
    if metric and (metric.instance_tag == "port" or metric.key == EVENT) and event.instance:
        alias = (
            Interface.objects.filter(device_id=event.device_id, name=event.instance)
            .values_list("alias", flat=True)
            .first()
            or ""
        )
    target = event.device.name + (f" {event.instance}" if event.instance else "")
    level = event.fire_level if event.kind != "clear" else event.clear_level
    held = (event.created_at - event.since).total_seconds() if event.since else None
    comparison = "above" if rule.direction == "above" else "below"
    if event.kind == "clear":
        comparison = "back to or below" if rule.direction == "above" else "back to or above"
    gone = closed_as_gone(event)
    return {
        "event": event,
        "rule": rule,
        "headline": "NO LONGER REPORTED" if gone else HEADLINES.get(event.kind, event.kind.upper()),
        "gone": gone,
        "metric_label": metric.label if metric else rule.metric,
        "target": target,
        "alias": alias,
        "value": format_value(metric, unit, event.value) if metric else str(event.value),
        "level": format_value(metric, unit, level) if metric else str(level),
        "comparison": comparison,
        "not_answering": rule.metric == NOT_ANSWERING,
        "duration": duration_text(held) if held is not None else "",
        "polls": rule.hold(),
        "link": graph_link(event),
        "flap_window": duration_text(settings.ALERTS_FLAP_WINDOW_S),
        "flap_changes": settings.ALERTS_FLAP_CHANGES,
        "behind": _unreachable_behind(event) if unreachable_counted(rule, event) else [],
        **_event_rule(event),
    }


def unreachable_counted(rule, event) -> bool:
    return rule.metric == NOT_ANSWERING and event.kind in ("fire", "repeat")


def _unreachable_behind(event) -> list[str]:
    """The names of the devices behind a device that stopped answering which do not answer either: their own
    alerts wait (monitor/alerts/evaluator.py), so this mail is the one that counts them."""
    behind = dependencies.behind(event.device_id, dependencies.parents())
    down = dependencies.down_ids() & set(behind)
    names = dict(Device.objects.filter(pk__in=down).values_list("pk", "name"))
    return [names[pk] for pk in behind if pk in names]


def _event_rule(event) -> dict:
    """An event rule's mail names the kind and quotes the event that matched (its text as the device sent it)."""
    rule = event.rule
    if rule.metric != EVENT:
        return {"event_rule": False}
    kind = KINDS.get(rule.event_kind)
    return {
        "event_rule": True,
        "metric_label": kind.label if kind else "event",
        "value": "— " + _plain(event.detail, 120) if event.detail else "— quiet",
        "event_text": event.detail,
        "within_minutes": rule.within_minutes,
        "cleared_by": "a clearing event" if event.detail else f"{rule.quiet_minutes} min without a match",
    }


def build_message(event, connection=None) -> EmailMultiAlternatives:
    """The mail for one event, addressed to the rule's recipients."""
    ctx = context(event)
    subject = _plain(f"[{ctx['headline']}] {ctx['target']}: {ctx['metric_label']} {ctx['value']}", 200)
    text = render_to_string("alerts/email/alert.txt", ctx)
    html = render_to_string("alerts/email/alert.html", ctx)
    message = EmailMultiAlternatives(
        subject=subject,
        body=text,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=event.rule.recipients(),
        connection=connection,
        headers={"X-Monitor-Event": str(event.pk)},
    )
    message.attach_alternative(html, "text/html")
    return message
