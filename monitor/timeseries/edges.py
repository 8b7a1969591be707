"""The raw samples at the edges of a chart drawn from rollup windows: before its first whole window (the head) and
after its newest (the tail). They are read for a whole device at once and cached, so the many requests of one
device page read them once: a page of 160 graphs asked InfluxDB for its edges in every request of 20 graphs, most
of what a warm request cost (docs/performance.md).

- The head lies in the window before the first whole one, which is history: it is cached by that window (and
  by the newest mark of samples written late, when they may reach back into it).
- The tail of a range that ends now changes with every poll: it is kept with the device's newest poll (the
  caller says which that is), so the next poll's samples are read as soon as the device row says they were
  written; then only the samples since the newest one kept (from two poll intervals before it, so a poll's lines
  written late are read too) are read and added. A year's chart ends with the newest hourly window: its tail is up
  to 67 minutes of the whole device (44,000 values of a 52-port switch), read in full once, not at every poll.
  Raw samples that reached InfluxDB late (a spool replayed after an outage or a write that timed out) are marked
  with the oldest time among them (cache.note_late_writes): a tail kept before the mark reads again from there.
  (A full read every 10 minutes made every tail due at once at 2,000 switches, and one at every mark would come
  every 5 minutes there: writes in the minute the rollups are written time out and are replayed a minute later.)
- A range that ends in the past is read as asked, uncached (zoomed views).
- A page's first screen (a request of a few graphs) whose device's tail is not cached yet reads its own graphs'
  tails only: a device's hour of samples (a year's chart ends with the newest hourly window) is 38,000 values,
  and the first screen waited for them; the page's next requests read and cache the whole device's."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from monitor.timeseries import cache, influxql, intervals, rawcols, tiers
from monitor.timeseries.flux import Params, Plot
from monitor.timeseries.intervals import Polled
from monitor.timeseries.lookup import Lookup
from monitor.timeseries.rawcols import SeriesCols

LIVE_S = 5  # a range ending this close to now ends "now": its tail is cached by poll
TTL_S = 600  # a tail kept by poll and not read for this long is dropped (a device that stopped polling or unviewed)
KEPT = "edges-cols"  # the cache's name for a device's kept samples: renamed when their form changes (rawcols)
FEW = 8  # a request of at most this many graphs of a device reads their own tails when the device's is not cached


def read(
    plots: list[Plot],
    head: datetime | None,
    start: datetime,
    end: datetime,
    until: datetime,
    now: datetime,
    step_s: int,
    interval: int,
    versions: Mapping[str, object] | None = None,
) -> tuple[dict, dict[str, Polled]]:
    """{(plot key, field): {"head": rows, "tail": rows}}, rows (t ms, value): the raw samples from `head` to
    `start` and from `end` to `until`, each from two poll intervals earlier (the sample before the first one
    sets its interval); and {device: the intervals it was polled at} from its polls' records read with them
    (monitor/timeseries/intervals.py). `versions`: each device's newest poll, which makes its tail cacheable."""
    lookup = Lookup()
    for plot in plots:
        for field in plot.template.sample_fields:  # with what a total reads
            lookup.register(plot, plot.members[0], field, field)
    before = timedelta(seconds=2 * interval + 1)
    late = cache.late_writes()
    heads: list[SeriesCols] = []
    tails: list[SeriesCols] = []
    polled: dict[str, Polled] = {}
    for device in dict.fromkeys(plot.members[0].device for plot in plots):
        before_start: list[SeriesCols] = []
        if head is not None:
            block = head - timedelta(seconds=(head.timestamp() % step_s) or step_s)  # the window holding `head`
            parts = ("head", device, block.timestamp(), interval, late if _before(late, start) else None)
            before_start = _cached(parts, device, block - before, start)
            heads += before_start
        version = (versions or {}).get(device)
        live = until >= now - timedelta(seconds=LIVE_S)
        if live and version is not None:
            mine = [plot for plot in plots if plot.members[0].device == device]
            few = mine if len(mine) <= FEW else None
            until_now = now + timedelta(seconds=LIVE_S)
            found = _tail(device, end, step_s, before, interval, Poll(version, late), until_now, few)
        else:
            found = _device(device, end - before, until)
        tails += found
        polled[device] = intervals.from_series([*before_start, *found], device, interval)

    def wanted(group: dict) -> bool:
        return lookup.target(group) is not None

    return lookup.index(rawcols.tables(heads, "head", wanted) + rawcols.tables(tails, "tail", wanted)), polled


def _before(late: cache.Late | None, moment: datetime) -> bool:
    """Whether samples marked written late may lie before `moment` (a head cached before the mark is stale; one
    cached under no mark has expired when a new chain of marks begins: cache.LATE_SPAN_NS > TTL_S)."""
    return late is not None and late.oldest_ms < moment.timestamp() * 1000


def _cached(parts: tuple, device: str, since: datetime, until: datetime) -> list[SeriesCols]:
    """The device's samples cached under `parts`, else read (and cached)."""
    key = cache.key(KEPT, tiers.tiers()[0].bucket, *parts)
    found = cache.get_many([key]).get(key)
    if found is None:
        found = _device(device, since, until)
        cache.set_many({key: found}, TTL_S, windows=1)
    return found


def _tail(
    device: str,
    end: datetime,
    step_s: int,
    before: timedelta,
    interval: int,
    poll: Poll,
    until: datetime,
    few: list[Plot] | None,
) -> list[SeriesCols]:
    """The device's samples from `before` ahead of `end` as of `poll`: as kept, else those kept (for this end, or
    the window's before, cut to this one's) with the samples since the newest one (or since the oldest written late
    after it was kept) added, else read in full and kept; `few`: none kept, read only theirs (not kept)."""
    since = end - before
    ends = (end.timestamp(), end.timestamp() - step_s)  # this end's, and the window's before (which holds it)
    keys = [cache.key(KEPT, tiers.tiers()[0].bucket, "tail", device, e, interval) for e in ends]
    cached = cache.get_many(keys)
    found = next((cached[k] for k in keys if isinstance(cached.get(k), Kept)), None)
    if found is not None and found.poll.late is not None and poll.late is None:
        found = None  # kept with a mark of samples written late, and the mark is lost: what came since is unknown
    if found is not None and found.poll == poll and found is cached.get(keys[0]):  # this end's, this poll's
        return rawcols.cut_to(found.series, until.timestamp() * 1000)  # kept by a read as at a later moment
    if found is None:
        if few:
            answers = influxql.query(tiers.tiers()[0].bucket, *_statements(few, device, since, until))
            return rawcols.from_influxql([series for answer in answers for series in answer])
        kept = Kept(poll, _device(device, since, until))
    else:
        newest = rawcols.newest_ms(found.series)
        if found.poll.late != poll.late:  # samples written late since: read again from the oldest of them
            newest = min(newest, poll.late.oldest_ms)
        fresh_since = max(since, datetime.fromtimestamp(newest / 1000, timezone.utc) - before)
        fresh = _device(device, fresh_since, until)
        kept = Kept(poll, rawcols.merge(found.series, fresh, since.timestamp() * 1000, fresh_since.timestamp() * 1000))
    cache.set_many({keys[0]: kept}, TTL_S, windows=1)
    return kept.series


@dataclass(frozen=True)
class Poll:
    """What a kept tail is as of: the device's newest poll, and the newest mark of raw samples written late."""

    version: object
    late: cache.Late | None


@dataclass(frozen=True)
class Kept:
    """A device's tail as of `poll`."""

    poll: Poll
    series: list[SeriesCols]


def _statements(plots: list[Plot], device: str, since: datetime, until: datetime) -> tuple[list[str], dict]:
    """One statement per measurement (and filters) of these graphs, their instances only, and its parameters."""
    groups: dict[tuple, set[str]] = {}
    for plot in plots:
        template = plot.template
        group = (template.measurement, template.instance_tag, tuple(sorted(template.filters.items())))
        groups.setdefault(group, set()).add(plot.members[0].instance)
    bind, statements = Params(), []
    for (measurement, tag, filters), instances in groups.items():
        condition = influxql.where(bind, device, since, until, tag, sorted(instances), filters)
        source = influxql.identifier(measurement)  # names from the templates (code); values bound
        statements.append(f"SELECT * FROM {source} WHERE {condition} GROUP BY *")  # noqa: S608
    if any(plot.template.totals for plot in plots):  # the polls' records: the intervals totals go by
        condition = influxql.where(bind, device, since, until)
        source, field = influxql.identifier(intervals.MEASUREMENT), influxql.identifier(intervals.FIELD)
        statements.append(f"SELECT {field} FROM {source} WHERE {condition} GROUP BY *")  # noqa: S608
    return statements, bind.values


def _device(device: str, since: datetime, until: datetime) -> list[SeriesCols]:
    """Every raw series of one device between two moments (one InfluxQL statement: JSON arrays of values, where
    Flux's CSV repeated each series' tags on every sample)."""
    bind = Params()
    statement = f"SELECT * FROM /.*/ WHERE {influxql.where(bind, device, since, until)} GROUP BY *"  # noqa: S608
    (found,) = influxql.query(tiers.tiers()[0].bucket, [statement], bind.values)
    return rawcols.from_influxql(found)
