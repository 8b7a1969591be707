"""The raw samples at the edges of a chart drawn from rollup windows: before its first whole window (the head) and
after its newest (the tail). They are read for a whole device at once and cached, so the many requests of one
device page read them once: a page of 160 graphs asked InfluxDB for its edges in every request of 20 graphs, most
of what a warm request cost (docs/performance.md).

- The head lies in the window before the first whole one, which is history: it is cached by that window.
- The tail of a range that ends now changes with every poll: it is cached by the device's newest poll (the caller
  says which that is), so the next poll's samples are read as soon as the device row says they were written.
- A range that ends in the past is read as asked, uncached (zoomed views)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from monitor.timeseries import cache, tiers
from monitor.timeseries.client import Table, run
from monitor.timeseries.flux import Params, Plot
from monitor.timeseries.lookup import Lookup

LIVE_S = 5  # a range ending this close to now ends "now": its tail is cached by poll
TTL_S = 600  # a tail cached by poll is dropped after this anyway (a device that stopped polling)


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
) -> dict:
    """{(plot key, field): {"head": rows, "tail": rows}}, rows (t ms, value): the raw samples from `head` to
    `start` and from `end` to `until`, each from two poll intervals earlier (the sample before the first one
    sets its interval). `versions`: each device's newest poll, which makes its tail cacheable."""
    lookup = Lookup()
    for plot in plots:
        for field in plot.template.fields:
            lookup.register(plot, plot.members[0], field, field)
    before = timedelta(seconds=2 * interval + 1)
    tables: list[Table] = []
    for device in dict.fromkeys(plot.members[0].device for plot in plots):
        if head is not None:
            block = head - timedelta(seconds=(head.timestamp() % step_s) or step_s)  # the window holding `head`
            tables += _cached(("head", device, block.timestamp(), interval), device, block - before, start, "head")
        version = (versions or {}).get(device)
        live = until >= now - timedelta(seconds=LIVE_S)
        if live and version is not None:
            key = ("tail", device, end.timestamp(), interval, version)
            tables += _cached(key, device, end - before, now + timedelta(seconds=LIVE_S), "tail")
        else:
            tables += _device(device, end - before, until, "tail")
    return lookup.index(tables)


def _cached(parts: tuple, device: str, since: datetime, until: datetime, name: str) -> list[Table]:
    key = cache.key("edges", tiers.tiers()[0].bucket, *parts)
    found = cache.get_many([key]).get(key)
    if found is None:
        found = _device(device, since, until, name)
        cache.set_many({key: found}, TTL_S, windows=1)
    return found


def _device(device: str, since: datetime, until: datetime, name: str) -> list[Table]:
    """Every raw series of one device between two moments (one storage read), as tables named `name`."""
    bind = Params()
    bucket, who = bind(tiers.tiers()[0].bucket), bind(device)
    script = (
        f"from(bucket: {bucket}) |> range(start: e_start, stop: e_stop)\n"
        f"  |> filter(fn: (r) => r.device == {who})\n"
        f'  |> keep(columns: ["_time", "_value", "_field", "_measurement", "device", {_tags()}])'
        f' |> yield(name: "{name}")\n'
    )
    return run(script, {"e_start": since, "e_stop": until} | bind.values)


def _tags() -> str:
    """Every tag the graph templates identify a series by (their instance tags and filters)."""
    from monitor.timeseries.templates import TEMPLATES

    names: dict[str, None] = {}
    for template in TEMPLATES.values():
        for tag in ([template.instance_tag] if template.instance_tag else []) + sorted(template.filters):
            names[tag] = None
    return ", ".join(f'"{tag}"' for tag in names)
