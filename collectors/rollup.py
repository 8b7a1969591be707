"""Rollup windows kept beside each device's counters: every float field's min, max, sum, count (and total) per
5-minute and 1-hour window, written as one point per series when its window closes (5-minute windows also keep
their mean, so a percentile of 5-minute means reads one stored value per window). The poll path and the
backfill of old history both use this one implementation, so a window means the same whichever wrote it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from hashlib import blake2b

import orjson

TIERS = (("5m", 300), ("1h", 3600))
FIVE, HOUR = 300, 3600
# A closed hour is written by the first poll this long after its end, not with the 5-minute windows closed at
# the hour: those are written in the minute after it, and both at once doubled that minute's writes (at 2,000
# switches InfluxDB then answered pages in 1-2 s and polls waited up to 35 s; docs/performance.md scenario 8).
HOUR_WRITE_DELAY_S = 150
# Half of the devices polled every minute (chosen by key) write their windows a minute later: a closed 5-minute
# window waits in the device's state for its first poll SPREAD_S after the window's end, and an hour for its first
# poll HOUR_WRITE_DELAY_S + SPREAD_S after. A window line holds 5-6 values per field against a poll's one; all in
# the minute after each window's end, at 2,000 switches InfluxDB's writes timed out there and pages waited
# (docs/performance.md scenario 8); over two minutes, half as many a second.
SPREAD_S = 60
# A poll's own time and its flush: the lines of a poll are in InfluxDB this long after it began.
WRITE_SLACK_S = 60


def _tier_delay_s(step_s: int) -> float:
    """How long after its end a tier's windows wait before any poll writes them: HOUR_WRITE_DELAY_S for an hour."""
    return HOUR_WRITE_DELAY_S if step_s >= HOUR else 0.0


def writes_after_s(step_s: int, device_key: str, interval_s: float) -> float:
    """How long after a window's end (of a tier of `step_s`) the device's first poll that begins writes it: at
    once for a 5-minute window, HOUR_WRITE_DELAY_S for an hour, and its write delay (`write_delay_s`) on top."""
    return _tier_delay_s(step_s) + write_delay_s(device_key, interval_s)


def begun_by_s(step_s: int, interval_s: float) -> float:
    """How long after a window's end every device polled every `interval_s` has begun the poll that writes it: its
    first poll `writes_after_s` past the end (the latest of any key's) comes within one poll interval."""
    return _tier_delay_s(step_s) + _latest_write_delay_s(interval_s) + interval_s


def written_by_s(step_s: int, interval_s: float) -> float:
    """How long after a window's end every device polled every `interval_s` has written it to InfluxDB: the rule
    every reader of the rollup tiers keeps (monitor/timeseries/cache.py), whatever the poll interval (a device polled
    every 300 s writes a window up to 300 s after its end, one every 900 s up to 900 s)."""
    return begun_by_s(step_s, interval_s) + WRITE_SLACK_S


# Fields whose legend shows a total (rate x the time its counter delta covers): kept as `<field>_total` per window.
TOTALS: Mapping[str, frozenset[str]] = {"interface": frozenset(("in_bps", "out_bps"))}
# The field of a sample with totals saying what its rates' counter deltas cover (s): the time between the two
# readings they came from (collectors/poll.py). Not a statistic of its own: windows keep no min/max/sum of it.
SPAN = "span_s"
# The fields of a sample with totals holding what each rate's counter delta moved (bytes: rate x span / 8, the octet
# delta itself; collectors/poll.py), and the rate's units per unit of them (bit/s per byte/s). A raw total is their
# sum, which InfluxDB sums where it stores them (docs/graphs.md). Not statistics either.
MOVED: Mapping[str, str] = {"in_bps": "in_bytes", "out_bps": "out_bytes"}
MOVED_SCALE = 8.0
NOT_STATS = frozenset((SPAN, *MOVED.values()))
_NONE: frozenset[str] = frozenset()
# A field's open 5-minute window: min, max, sum, count; fields with a total also keep it and when their last
# sample was seen (the others keep four numbers: what a poll reads and writes back is two thirds as long).
MIN5, MAX5, SUM5, N5, TOT5, LAST = range(6)
# Its hour so far (the 5-minute windows folded in): min, max, sum, count, total.
MIN1, MAX1, SUM1, N1, TOT1 = range(5)


def write_delay_s(device_key: str, interval_s: float) -> float:
    """How long after a window's end the device's polls write it: 0 or SPREAD_S by its key (blake2b: unrelated to
    its poll phase, which is CRC-32's); 0 for a device polled less often than every SPREAD_S (late enough)."""
    if not _latest_write_delay_s(interval_s):
        return 0.0
    return float(SPREAD_S) if blake2b(device_key.encode(), digest_size=1).digest()[0] & 1 else 0.0


def _latest_write_delay_s(interval_s: float) -> float:
    """The longest `write_delay_s` of any device polled every `interval_s`."""
    return float(SPREAD_S) if interval_s <= SPREAD_S else 0.0


def spanned(fields: Mapping[str, float | int], span_s: float) -> dict[str, float | int]:
    """A port sample's fields with what its rates cover, as the poller writes them: their span and the bytes each
    moved (for writers of made-up polls: the demo's history, benchmarks)."""
    moved = {MOVED[name]: value * span_s / MOVED_SCALE for name, value in fields.items() if name in MOVED}
    return {**fields, SPAN: float(span_s), **moved} if moved else dict(fields)


def sample_weight(t: float, last: float | None, interval_s: float, span_s: float | None = None) -> float:
    """The time a rate sample counts for in a total: its span (`span_s`, what its counter delta covers) when the
    poller wrote one; for samples written before spans were: the time since the series' previous sample, unless
    that is a gap (longer than twice the poll interval) or there is none: then one poll interval."""
    if span_s is not None and span_s > 0.0:
        return span_s
    if last is not None and 0.0 < t - last <= 2.0 * interval_s:
        return t - last
    return interval_s


@lru_cache(maxsize=4096)
def _names(field: str) -> tuple[str, ...]:
    """`field_min=` ... prefixes, escaped once per field name (names come from code and profiles)."""
    escaped = field.replace("\\", "\\\\").replace(",", "\\,").replace(" ", "\\ ").replace("=", "\\=")
    return tuple(f"{escaped}_{stat}=" for stat in ("min", "max", "sum", "count", "total", "mean"))


def _render(
    series: str, start: float, fields: dict[str, list], totals: frozenset[str], mean: bool = False
) -> str | None:
    """One line for a closed window (each accumulator's min, max, sum, count and total), or None when no field had
    a sample; a 5-minute window also gets its mean."""
    parts = []
    for name, acc in fields.items():
        count = acc[3]
        if count:
            prefix = _names(name)
            parts.append(f"{prefix[0]}{acc[0]!r},{prefix[1]}{acc[1]!r},{prefix[2]}{acc[2]!r},{prefix[3]}{int(count)}i")
            if name in totals:
                parts.append(f"{prefix[4]}{acc[4]!r}")
            if mean:
                parts.append(f"{prefix[5]}{acc[2] / count!r}")
    if not parts:
        return None
    return f"{series} {','.join(parts)} {int(start) * 1000}"


class Windows:
    """A device's open windows: {series (line protocol measurement and tags): [5m start, 1h start, {field: acc}]},
    and the hours: {series: {field: [min, max, sum, count, total]}}.

    `add` takes a poll's samples; a sample in a later window closes the series' current one first (lines go to
    `out`, per tier), and a sample `HOUR_WRITE_DELAY_S` after an hour's end closes that hour; `close_due` closes
    what ended before a moment even when no sample came (a failed poll). With a write delay (`write_delay_s`) a
    closed 5-minute window's line waits in `pending` ([when due, line]) until a poll at least that long after its
    end, and an hour closes that much later.
    The hours are needed only when a 5-minute window closes (one poll in five at 60 s) or an hour is due (once an
    hour): until then they stay the JSON text they were stored as, neither parsed nor written again (half of what
    a poll would read).
    """

    __slots__ = ("_hours", "_hours_text", "pending", "series")

    def __init__(
        self,
        series: dict[str, list] | None = None,
        hours: dict | None = None,
        hours_text: str = "",
        pending: list[list] | None = None,
    ):
        self.series: dict[str, list] = series if series is not None else {}
        self._hours: dict[str, dict[str, list]] | None = hours if hours is not None or hours_text else {}
        self._hours_text = hours_text
        self.pending: list[list] = pending if pending is not None else []

    def due_at(self) -> float | None:
        """When the earliest open window ends or the earliest waiting line is due (None: nothing kept)."""
        moments = [entry[0] + FIVE for entry in self.series.values()] + [due for due, _ in self.pending]
        return min(moments) if moments else None

    @property
    def hours(self) -> dict[str, dict[str, list]]:
        if self._hours is None:
            self._hours = _parse_hours(self._hours_text)
            self._hours_text = ""
        return self._hours

    def add(
        self,
        key: str,
        measurement: str,
        t: float,
        fields: Mapping[str, float | int],
        interval_s: float,
        out: dict[str, list[str]],
        totals: Mapping[str, frozenset[str]] = TOTALS,
        delay_s: float = 0.0,
    ) -> None:
        """Account one sample (only its float fields) of the series `key` (escaped measurement and tags)."""
        entry = self.series.get(key)
        with_total = totals.get(measurement, _NONE)
        if entry is None:
            entry = self.series[key] = [t - t % FIVE, t - t % HOUR, {}]
        elif t >= entry[0] + FIVE:
            self._close_five(key, entry, out, with_total, delay_s)
            entry[0] = t - t % FIVE
        elif t < entry[0]:
            return  # older than the open window (a clock step back): raw only
        if t >= entry[1] + HOUR + HOUR_WRITE_DELAY_S + delay_s:  # the hour before, its windows folded in, is due
            self._close_hour(key, entry, out, with_total)
            entry[1] = t - t % HOUR
        accs = entry[2]
        span = fields.get(SPAN)
        for name, value in fields.items():
            if type(value) is not float or value - value != 0.0:  # floats only (ints are states), finite only
                continue
            if with_total and name in NOT_STATS:  # what the rates cover, not values of their own
                continue
            acc = accs.get(name)
            if acc is None:
                acc = accs[name] = [0.0, 0.0, 0.0, 0, 0.0, None] if name in with_total else [0.0, 0.0, 0.0, 0]
            if acc[N5]:
                if value < acc[MIN5]:
                    acc[MIN5] = value
                elif value > acc[MAX5]:
                    acc[MAX5] = value
                acc[SUM5] += value
                acc[N5] += 1
            else:
                acc[MIN5] = acc[MAX5] = acc[SUM5] = value
                acc[N5] = 1
                if len(acc) > TOT5:
                    acc[TOT5] = 0.0
            if len(acc) > TOT5:
                moved = fields.get(MOVED[name]) if name in MOVED else None
                if moved is not None:  # the bytes its counter delta moved, as the poller wrote them
                    acc[TOT5] += moved * MOVED_SCALE
                else:
                    acc[TOT5] += value * sample_weight(t, acc[LAST], interval_s, span)
                acc[LAST] = t

    def add_samples(
        self,
        samples: Iterable,
        interval_s: float,
        out: dict[str, list[str]],
        series_of,
        totals: Mapping[str, frozenset[str]],
        delay_s: float,
    ) -> None:
        """Account every sample of a poll (`take`'s); `series_of(measurement, tags)` gives the escaped series key."""
        for sample in samples:
            key = series_of(sample.measurement, tuple(sample.tags.items()))
            self.add(key, sample.measurement, sample.time, sample.fields, interval_s, out, totals, delay_s)

    def take(
        self,
        samples: Iterable,
        interval_s: float,
        now: float,
        series_of,
        totals: Mapping[str, frozenset[str]] = TOTALS,
        delay_s: float = 0.0,
    ) -> dict[str, list[str]]:
        """A poll's samples accounted and the windows that ended by `now` (its start) closed, those delayed
        written once `delay_s` past their end: {tier: lines}."""
        out: dict[str, list[str]] = {}
        self.add_samples(samples, interval_s, out, series_of, totals, delay_s)
        self.close_due(now, out, totals, delay_s)
        return out

    def close_due(
        self,
        now: float,
        out: dict[str, list[str]],
        totals: Mapping[str, frozenset[str]] = TOTALS,
        delay_s: float = 0.0,
    ) -> None:
        """Close every window that ended by `now` (its line waits while `delay_s` has not passed since its end),
        and write the waiting lines due by then; a series with nothing left open is forgotten."""
        for key in list(self.series):
            entry = self.series[key]
            want = totals.get(key.partition(",")[0], _NONE)
            if now >= entry[0] + FIVE:
                self._close_five(key, entry, out, want, delay_s)
                if now >= entry[1] + HOUR:
                    self._close_hour(key, entry, out, want)
                    del self.series[key]
        if self.pending and any(due <= now for due, _ in self.pending):
            out.setdefault("5m", []).extend(line for due, line in self.pending if due <= now)
            self.pending = [[due, line] for due, line in self.pending if due > now]

    def _close_five(
        self, key: str, entry: list, out: dict[str, list[str]], totals: frozenset[str], delay_s: float
    ) -> None:
        """Write the 5-minute window (or keep its line until `delay_s` after its end) and fold it into its hour
        (closing an older hour first)."""
        start, accs = entry[0], entry[2]
        line = _render(key, start, accs, totals, True)  # with its mean
        if line is None:
            return
        if delay_s:
            self.pending.append([start + FIVE + delay_s, line])
        else:
            out.setdefault("5m", []).append(line)
        hour = start - start % HOUR
        if hour != entry[1]:
            self._close_hour(key, entry, out, totals)
            entry[1] = hour
        hours = self.hours.setdefault(key, {})
        for name, acc in accs.items():
            count = acc[N5]
            if not count:
                continue
            total = acc[TOT5] if len(acc) > TOT5 else 0.0
            h = hours.get(name)
            if h is None or not h[N1]:
                hours[name] = [acc[MIN5], acc[MAX5], acc[SUM5], count, total]
            else:
                if acc[MIN5] < h[MIN1]:
                    h[MIN1] = acc[MIN5]
                if acc[MAX5] > h[MAX1]:
                    h[MAX1] = acc[MAX5]
                h[SUM1] += acc[SUM5]
                h[N1] += count
                h[TOT1] += total
            acc[N5] = 0

    def _close_hour(self, key: str, entry: list, out: dict[str, list[str]], totals: frozenset[str]) -> None:
        hours = self.hours.pop(key, None)
        if hours:
            line = _render(key, entry[1], hours, totals)  # no mean
            if line is not None:
                out.setdefault("1h", []).append(line)

    def to_raw(self) -> dict:
        """JSON-ready: the open 5-minute windows, and the hours as the JSON text they already are when untouched."""
        text = self._hours_text if self._hours is None else orjson.dumps(self._hours).decode()
        raw = {"five": self.series, "hours": text}
        if self.pending:
            raw["pending"] = self.pending
        return raw

    @classmethod
    def from_raw(cls, raw: object) -> Windows:
        """Windows from stored JSON; anything malformed starts afresh (those windows are then partial)."""
        if (
            type(raw) is not dict
            or type(raw.get("five")) is not dict
            or ("hours" in raw and type(raw["hours"]) is not str)
        ):
            return cls()
        five, pending = raw["five"], raw.get("pending")
        for key, entry in five.items():
            if not (type(key) is str and type(entry) is list and len(entry) == 3 and type(entry[2]) is dict):
                return cls()
            for acc in entry[2].values():
                if type(acc) is not list or len(acc) not in (4, 6):
                    return cls()
        if type(pending) is not list or not all(_is_waiting(item) for item in pending):
            pending = None  # none, or those windows are lost; the open ones are kept
        if raw.get("hours"):
            return cls(five, hours_text=raw["hours"], pending=pending)
        return cls(five, pending=pending)


def _is_waiting(item: object) -> bool:
    """Whether a stored waiting line is [when due (number), line (text)]."""
    return type(item) is list and len(item) == 2 and type(item[0]) in (int, float) and type(item[1]) is str


def _parse_hours(text: str) -> dict[str, dict[str, list]]:
    """The hours' JSON text; malformed hours start afresh (those hours are then partial)."""
    try:
        hours = orjson.loads(text)
    except orjson.JSONDecodeError:
        return {}
    if type(hours) is not dict:
        return {}
    for fields in hours.values():
        if type(fields) is not dict or any(type(acc) is not list or len(acc) != 5 for acc in fields.values()):
            return {}
    return hours
