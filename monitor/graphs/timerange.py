"""Parse and check time ranges from URLs: presets (1h..1y), absolute dates, epoch seconds, or now-36h."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

PRESETS = {
    "1h": timedelta(hours=1),
    "6h": timedelta(hours=6),
    "1d": timedelta(days=1),
    "1w": timedelta(weeks=1),
    "1m": timedelta(days=31),
    "1y": timedelta(days=366),
}
DEFAULT_PRESET = "1d"
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "M": 2678400, "y": 31622400}
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)
MAX_SPAN = timedelta(days=366 * 10)
_RELATIVE = re.compile(r"^now(?:-(\d{1,6})([smhdwMy]))?$")


class RangeError(ValueError):
    """The requested time range is unusable; the message says why."""


@dataclass(frozen=True)
class TimeRange:
    start: datetime
    end: datetime
    now: datetime | None = None  # the moment the range was read as at: which tiers hold it is asked as at then

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def parse_instant(text: str, now: datetime, name: str) -> datetime:
    """An instant from 'now', 'now-6h', epoch seconds, or ISO 8601 (UTC when no zone is given)."""
    text = (text or "").strip()
    if not text:
        raise RangeError(f"{name} is empty")
    match = _RELATIVE.match(text)
    if match:
        if match.group(1) is None:
            return now
        try:
            return now - timedelta(seconds=int(match.group(1)) * UNITS[match.group(2)])
        except OverflowError:  # now-999999y: before the year 1
            raise RangeError(f"{name}={text[:40]!r} is too far in the past") from None
    try:
        if re.fullmatch(r"\d{9,11}(\.\d+)?", text):
            value = datetime.fromtimestamp(float(text), timezone.utc)
        else:
            value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise RangeError(f"{name}={text[:40]!r} is not a date: use ISO 8601, epoch seconds or now-6h") from None
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value


def parse_range(
    start: str | None, end: str | None, preset: str | None = None, now: datetime | None = None
) -> TimeRange:
    """A checked range: start before end, not before 2000, not too far in the future, at most 10 years."""
    now = now or datetime.now(timezone.utc)
    if not start and not end:
        preset = preset or DEFAULT_PRESET
        if preset not in PRESETS:
            raise RangeError(f"range={preset[:10]!r} is not one of {', '.join(PRESETS)}")
        return TimeRange(now - PRESETS[preset], now, now)
    begin = parse_instant(start or "", now, "start")
    finish = parse_instant(end or "now", now, "end")
    if begin >= finish:
        raise RangeError("start must be before end")
    if begin < EARLIEST:
        raise RangeError("start is before the year 2000")
    if finish > now + timedelta(days=1):
        raise RangeError("end is more than a day in the future")
    if finish - begin > MAX_SPAN:
        raise RangeError("the range is longer than ten years")
    return TimeRange(begin, finish, now)
