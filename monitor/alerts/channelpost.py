"""One POST of a channel's message and what it means: signed for a webhook with a key, sent under one deadline,
never redirected; the receiver's answer judged (2xx delivered, 3xx not, a 4xx refusal given up); every text that
may reach a log, page or row redacted of the channel's URL and key and escaped of the receiver's control bytes."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from urllib.parse import urlsplit

from monitor.alerts import httppost
from monitor.alerts.models import Channel

RETRYABLE_4XX = {408, 429}  # request timeout, too many requests: the receiver may take it later
GIVEN_UP = "(given up: {why}fix the channel, then send it again)"


class NotDelivered(Exception):
    """The receiver did not take the message; the text names the HTTP status or the network error, no secret.
    permanent: sending it again cannot help (a 4xx refusal, a malformed or refused URL), so it is not retried."""

    def __init__(self, message: str, status: int | None = None, permanent: bool = False):
        super().__init__(message)
        self.status = status
        self.permanent = permanent


def redact(text: str, channel: Channel) -> str:
    """No webhook URL (Slack's and Teams' hold their credential in the path or query) nor signing key in a log,
    page or row: the whole URL, and its path and query wherever they appear (a redirect to the https twin)."""
    secrets = [channel.url, channel.secret]
    if channel.url:
        parts = urlsplit(channel.url)
        tail = parts.path + (f"?{parts.query}" if parts.query else "")
        secrets += [s for s in (tail, parts.path, parts.query) if len(s) >= 8]
    for secret in sorted(filter(None, secrets), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text[:500]


def shown(text: str, limit: int = 300) -> str:
    """A receiver's own string (a Location, a reason phrase) fit for a log line: control characters escaped."""
    text = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return text if len(text) <= limit else text[:limit] + "…"


def post(channel: Channel, body: dict, seconds: float | None = None) -> int:
    """POST the JSON (signed for a webhook with a key) within `seconds` (the channel's timeout): the receiver's 2xx
    status, or NotDelivered. A redirect is not followed: neither body nor signature goes to its Location."""
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "snmp-monitor"}
    if channel.kind == Channel.Kind.WEBHOOK and channel.secret:
        stamp = str(int(time.time()))
        signed = hmac.new(channel.secret.encode(), stamp.encode() + b"." + data, hashlib.sha256).hexdigest()
        headers |= {"X-Monitor-Timestamp": stamp, "X-Monitor-Signature": f"sha256={signed}"}
    try:
        answer = httppost.post(channel.url, data, headers, seconds or channel.timeout_s)
    except httppost.PostFailed as exc:
        text = shown(redact(str(exc), channel), 500)
        if exc.permanent:
            text += " " + GIVEN_UP.format(why="")
        raise NotDelivered(text, permanent=exc.permanent) from None
    return judged(answer, channel)


def judged(answer: httppost.Answer, channel: Channel) -> int:
    """A 2xx is delivered; a 3xx is not (and not followed); a 4xx but 408 and 429 will never be."""
    status = answer.status
    if 200 <= status < 300:
        return status
    if 300 <= status < 400:
        where = shown(redact(answer.location, channel)) or "nowhere (no Location)"  # redacted before it is cut
        raise NotDelivered(f"redirected to {where} (not followed)", status)
    text = f"HTTP {status} {shown(redact(answer.reason, channel), 100)}".strip()
    if 400 <= status < 500 and status not in RETRYABLE_4XX:
        raise NotDelivered(f"{text} {GIVEN_UP.format(why='the receiver refuses this message; ')}", status, True)
    raise NotDelivered(text, status)
