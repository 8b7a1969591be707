"""A channel's signing key and the mail server's password belong to the destination they were entered for: a
change of where they go (a URL's scheme, host or port; a mail server's host, port or security) needs them typed
again, so a stored secret never reaches (nor signs for) a receiver its owner did not choose (as device secrets,
monitor/devices/credentials.py)."""

from __future__ import annotations

from urllib.parse import urlsplit

from monitor.alerts.httppost import DEFAULT_PORTS


def _place(url: str) -> dict[str, object] | None:
    """The scheme, host and port a URL sends to; None when it is not a URL (the form says so next to it)."""
    try:
        parts = urlsplit(url or "")
        scheme, host = parts.scheme.lower(), (parts.hostname or "").rstrip(".")
        return {"scheme": scheme, "host": host, "port": parts.port or DEFAULT_PORTS.get(scheme)}
    except ValueError:
        return None


def url_moved(stored: str, new: str) -> list[str]:
    """What of the stored URL's destination the new one changes: among "scheme", "host", "port"."""
    before, after = _place(stored), _place(new)
    if before is None or after is None:
        return []
    return [name for name in before if before[name] != after[name]]


def mail_moved(server, data: dict) -> list[str]:
    """What of the stored mail server's destination the cleaned `data` changes: among "host", "port", "security"."""
    changes = []
    if "host" in data and (data["host"] or "").lower().rstrip(".") != (server.host or "").lower().rstrip("."):
        changes.append("host")
    changes += [name for name in ("port", "security") if name in data and data[name] != getattr(server, name)]
    return changes


def keep_bound(form, data: dict, field: str, noun: str, secret: str, where: str, clear_label: str, moved) -> None:
    """Set `data[field]` to the secret typed, cleared (`clear_<field>`) or kept; a kept one only while `moved()` (what
    of its destination the change moves) is empty, else an error asks for it again and nothing is saved."""
    clear_field = f"clear_{field}"
    typed, clear = data.get(field), data.get(clear_field)
    stored = getattr(form.instance, field) if form.instance.pk else ""
    if typed and clear:
        form.add_error(clear_field, f"Either type a new {noun} or clear the stored one, not both.")
    data[field] = "" if clear else (typed or stored or "")
    changes = moved() if stored and not typed and not clear else []
    if changes:  # the stored secret belongs to the destination it was entered for
        form.add_error(field, retype_message(secret, changes, where, clear_label))


def retype_message(secret: str, changes: list[str], where: str, clear: str) -> str:
    """Why a stored secret must be typed again, naming what changed and how to do without it."""
    what = changes[0] if len(changes) == 1 else f"{', '.join(changes[:-1])} and {changes[-1]}"
    return (
        f"Type the {secret} again: the {what} changed, and the stored {secret} is only ever used for the {where} it "
        f'was entered for (nothing was sent or saved). Or tick "{clear}".'
    )
