"""What each kind of channel receives for an alert event: the generic webhook's JSON, a Slack message, a Teams
Adaptive Card; the words are the mail's (monitor.alerts.messages.context)."""

from __future__ import annotations

from monitor.alerts.messages import context

COLOURS = {"fire": "#d62728", "repeat": "#d62728", "flapping": "#ff7f0e", "clear": "#2ca02c", "settled": "#2ca02c"}


def summary(ctx: dict) -> str:
    """One line, as the mail's subject."""
    return f"[{ctx['headline']}] {ctx['target']}: {ctx['metric_label']} {ctx['value']}"


def detail(ctx: dict) -> str:
    if ctx["not_answering"]:
        behind = ctx.get("behind") or []
        also = f" {len(behind)} device(s) behind it do not answer either: {', '.join(behind[:20])}." if behind else ""
        return f"{ctx['target']} has not answered for {ctx['polls']} polls.{also}"
    if ctx["gone"]:
        last = f"last value {ctx['value']}"
        return f"{ctx['target']}: {ctx['metric_label']} {ctx['event'].detail}; the alert is closed ({last})."
    held = f" for {ctx['duration']}" if ctx["duration"] else ""
    return f"{ctx['metric_label']} is {ctx['value']}, {ctx['comparison']} {ctx['level']}{held}."


def webhook(event) -> dict:
    ctx = context(event)
    rule = ctx["rule"]
    return {
        "event_id": event.pk,
        "kind": event.kind,
        "state": event.to_state,
        "summary": summary(ctx),
        "text": detail(ctx),
        "rule": {"id": rule.pk, "name": rule.name, "metric": rule.metric},
        "device": {"id": event.device_id, "name": event.device.name},
        "instance": event.instance,
        "alias": ctx["alias"],
        "value": event.value,
        "fire_level": event.fire_level,
        "clear_level": event.clear_level,
        "since": event.since.isoformat() if event.since else None,
        "at": event.created_at.isoformat(),
        "link": ctx["link"],
        "unreachable_behind": ctx.get("behind") or [],
        "no_longer_reported": ctx["gone"],  # a clear because the device stopped serving the target, not a recovery
    }


def slack(event) -> dict:
    ctx = context(event)
    text = f"*{_slack_escape(summary(ctx))}*\n{_slack_escape(detail(ctx))}\n<{ctx['link']}|Open the graphs>"
    return {
        "text": _slack_escape(summary(ctx)),  # notifications and clients without blocks: mrkdwn too
        "attachments": [{"color": COLOURS.get(event.kind, "#888888"), "blocks": [_section(text)]}],
    }


def _section(text: str) -> dict:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _slack_escape(text: str) -> str:
    """Slack's three control characters, so a device string cannot make a link or a mention."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def teams(event) -> dict:
    ctx = context(event)
    card = {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": [_plain_block(summary(ctx), weight="Bolder"), _plain_block(detail(ctx))],
        "actions": [{"type": "Action.OpenUrl", "title": "Open the graphs", "url": ctx["link"]}],
    }
    return {
        "type": "message",
        "attachments": [
            {"contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": None, "content": card}
        ],
    }


def _plain_block(text: str, **style) -> dict:
    """Device strings as a TextRun, which Teams renders as written: a TextBlock's markdown would make links."""
    return {"type": "RichTextBlock", "inlines": [{"type": "TextRun", "text": text, **style}]}


BUILDERS = {"webhook": webhook, "slack": slack, "teams": teams}


def test_payload(kind: str, requested_by: str) -> dict:
    """What the Test button sends: a message of the channel's own shape that says it is a test."""
    text = f"Test message from the SNMP monitor, sent by {requested_by or 'an administrator'}."
    if kind == "slack":
        return {"text": text}
    if kind == "teams":
        card = {"type": "AdaptiveCard", "version": "1.4", "body": [{"type": "TextBlock", "text": text, "wrap": True}]}
        return {
            "type": "message",
            "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive", "content": card}],
        }
    return {"event_id": None, "kind": "test", "summary": text, "text": text}
