"""One batch: many scenarios (one device each) played on one shared timeline into buckets of its own, read at
moments after an hour's end, and every read handed to `check` (a comparison with the model).

The timeline's anchor is an hour's end two to three hours ago, so that the raw bucket's 14-day retention holds as
deployed. History older than InfluxDB takes into a 14-day bucket is written while the bucket's retention is lifted
(shard groups of a day, as the 14-day bucket has), then its retention is set back: the bucket then holds what a
deployed one holds at the first read, from the start of the shard group that holds its 14-day floor."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from influxdb_client import BucketRetentionRules

from tests.model.scenario import Scenario
from tests.proof.agent import PORT_TEMPLATE, STRING_TEMPLATE, ScenarioAgent, rows
from tests.proof.player import Player
from tests.proof.reads import PRESETS, Range, page_reads, single_read
from tests.tsbuckets import own_buckets

DAY, HOUR, FIVE = 86400, 3600, 300
RAW_RETENTION_S = 14 * DAY
SHARD_S = DAY
# Moments after the anchor (an hour's and a 5-minute window's end): right after, after the 180-s grace, after
# 300-s and 900-s polls wrote it, an hour later (right after, and after a 3,600-s poll wrote the hour)
MOMENTS = (5, 185, 295, 905, HOUR + 5, HOUR + 185, HOUR + 605)
FULL_AT = (185, HOUR + 185)  # every range, warm and cold; at the other moments BRIEF ranges warm, 1d cold
OTHER_AT = tuple(m for m in MOMENTS if m not in FULL_AT)


def proof_moments(batch: int) -> tuple[int, ...]:
    """`make proof`'s moments for its `batch`-th batch: one of FULL_AT and one of the others, each in turn (every
    moment is read every five batches; a batch reads at 2 moments of 7; the fixed set reads at all of them)."""
    return tuple(sorted((FULL_AT[batch % len(FULL_AT)], OTHER_AT[batch % len(OTHER_AT)])))


BRIEF = ("1h", "1d", "1w")
SINGLE_AT = (HOUR + 185,)  # the single-graph API is read then only, over SINGLE_SPANS (it reads graph by graph)
SINGLE_SPANS = ("1d", "inside")
WARMS = (61, 181)  # the warming's runs after each 5-minute boundary (settings.CELERY_BEAT_SCHEDULE)
PAGE_BATCH = 52  # graphs of one template per page request (static/js/graphs.js BATCH)


def anchor(now: float | None = None) -> int:
    """An hour's end two to three hours before `now`."""
    return (int(now or time.time()) // HOUR - 2) * HOUR


def anchor_of_day(of_day: int, now: float | None = None) -> int:
    """The first anchor from `anchor(now)` on whose time of day (UTC) is `of_day`: a kept example replayed where its
    batch put the raw bucket's shard-group floor (up to a day ahead; InfluxDB takes future samples, and its retention
    never reaches them)."""
    first = anchor(now)
    return first + (of_day - first) % DAY


def raw_floor(moment: float) -> float:
    """What a 14-day raw bucket with shard groups of a UTC day holds at `moment`: from the start of the day that
    holds `moment` less 14 days (InfluxDB drops a shard group once all of it has expired)."""
    expired = moment - RAW_RETENTION_S
    return expired - expired % SHARD_S


@dataclass
class Read:
    """One answer to compare: which read, as at which moment, over which range, of which plot."""

    how: str  # warm-later, warm-only, cold-later, cold-only, single
    moment: float
    span: Range
    plot: str  # "graph:<id>" or "aggregate:<id>"
    of: tuple[str, ...]  # what it draws: ("<scenario key>/<counter>",), or an aggregate's members
    data: dict


@dataclass
class Plan:
    """The batch: its scenarios (device keys are their ids), aggregates (member keys), moments after the anchor."""

    scenarios: list[Scenario]
    aggregates: list[tuple[str, ...]] = field(default_factory=list)
    moments: tuple[int, ...] = MOMENTS


def ranges(moment: float) -> list[Range]:
    """The presets and two absolute ranges: from just inside and just outside what the raw bucket holds."""
    floor = raw_floor(moment)
    return [Range(p) for p in PRESETS] + [Range("inside", floor + 600), Range("outside", floor - 600)]


def play(plan: Plan, zero: float, spool, check: Callable[[Read], None]) -> dict[str, float]:
    """Play the batch with its anchor at `zero` (its scenarios already shifted there); hand every read to `check`."""
    from django.conf import settings

    from monitor.core import services
    from monitor.graphs.warming import warm_viewed
    from monitor.timeseries import client, retention

    services.redis_client().flushdb()
    figures = {"polls": 0.0, "play_s": 0.0, "read_s": 0.0, "warm_s": 0.0, "reads": 0.0}
    with own_buckets("proof", spool) as writer:
        buckets = client.client().buckets_api()
        raw = buckets.find_bucket_by_name(settings.INFLUXDB_BUCKET)
        kept_rules = raw.retention_rules
        raw.retention_rules = [
            BucketRetentionRules(type="expire", every_seconds=0, shard_group_duration_seconds=SHARD_S)
        ]
        buckets.update_bucket(raw)
        agent = ScenarioAgent(plan.scenarios)
        try:
            graphs, aggregates = _rows(plan)
            drawn = {"graphs": graphs, "aggregates": aggregates}
            requests, pooled = _requests(graphs, aggregates)
            first = zero + plan.moments[0]
            player = Player(plan.scenarios, agent, writer, raw_floor(first))
            clock = time.monotonic()
            player.play_until(first - 1)
            figures["play_s"] += time.monotonic() - clock
            raw = buckets.find_bucket_by_name(settings.INFLUXDB_BUCKET)
            raw.retention_rules = kept_rules
            buckets.update_bucket(raw)
            retention.forget()
            for moment, what in _timeline(zero, plan.moments):
                clock = time.monotonic()
                player.play_until(moment)
                player.set_rows(moment)
                figures["play_s"] += time.monotonic() - clock
                clock = time.monotonic()
                if what == "warm":
                    warm_viewed(now=moment)
                    figures["warm_s"] += time.monotonic() - clock
                    continue
                full = moment - zero in FULL_AT
                for span in ranges(moment):
                    if not full and span.name not in BRIEF:
                        continue
                    for warm in (True, False) if full or span.name == "1d" else (True,):
                        for request in requests:
                            for p95, answer in page_reads(*request, span, moment, warm).items():
                                how = f"{'warm' if warm else 'cold'}-{p95}"
                                for kind in ("graphs", "aggregates"):
                                    for key, data in answer[kind].items():
                                        of = drawn[kind][int(key)][kind == "graphs" :]
                                        check(Read(how, moment, span, f"{kind[:-1]}:{key}", of, data))
                                        figures["reads"] += 1
                    if span.name == "1h":  # a pooled request of graphs of several templates, as pages make too
                        for p95, answer in page_reads(pooled, [], span, moment, False).items():
                            for key, data in answer["graphs"].items():
                                of = graphs[int(key)][1:]
                                check(Read(f"pooled-{p95}", moment, span, f"graph:{key}", of, data))
                    if moment - zero in SINGLE_AT and span.name in SINGLE_SPANS:
                        for key, data in single_read(list(graphs), span, moment).items():
                            check(Read("single", moment, span, f"graph:{key}", graphs[int(key)][1:], data))
                            figures["reads"] += 1
                figures["read_s"] += time.monotonic() - clock
            figures["polls"] = player.polls
            figures["asked_again"] = player.asked_again
        finally:
            agent.close()
    return figures


def _timeline(zero: float, moments: tuple[int, ...]) -> list[tuple[float, str]]:
    """The reads, and the warming's runs after the 5-minute boundary before each read and the one before that (as
    beat runs them while the pages are viewed; between reads far apart, the pages are not viewed, nor warmed)."""
    bounds = {int(zero + m) // FIVE * FIVE - back for m in moments for back in (0, FIVE)}
    last = zero + max(moments)
    runs = {(b + w, "warm") for b in bounds for w in WARMS if b + w <= last}
    return sorted([(zero + m, "read") for m in moments] + list(runs))


def _requests(graphs: dict, aggregates: dict) -> tuple[list[tuple[list[int], list[int]]], list[int]]:
    """A page's requests (static/js/graphs.js `batches`): graphs of one template together, PAGE_BATCH at most, the
    aggregates in requests of their own; and one pooled request of the first graph of each template (the small
    sets a page pools: a device's port and text counter, if any), where graphs of several measurements share a read."""
    by_template: dict[str, list[int]] = {}
    for pk, (template, _) in graphs.items():
        by_template.setdefault(template, []).append(pk)
    out = [(ids[i : i + PAGE_BATCH], []) for ids in by_template.values() for i in range(0, len(ids), PAGE_BATCH)]
    if aggregates:
        out.append(([], list(aggregates)))
    mixed = {}
    for pk, (template, member) in graphs.items():
        mixed.setdefault(member.split("/")[0], {}).setdefault(template, pk)
    pooled = next((list(ids.values()) for ids in mixed.values() if len(ids) > 1), None)
    return out, pooled or [ids[0] for ids in by_template.values()]


def _rows(plan: Plan) -> tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]]:
    """Device, Graph and AggregateGraph rows: {graph id: (template, "key/counter")}, {aggregate id: members}."""
    from monitor.graphs.trees.models import AggregateGraph
    from monitor.models import Device, Graph

    graphs, by_member = {}, {}
    for scenario in plan.scenarios:
        Device.objects.create(
            pk=int(scenario.key),
            name=f"proof-{scenario.key}",
            host="127.0.0.1",
            community="x",
            poll_interval_s=scenario.polls[0].interval_s,
        )
        for _, counter in rows(scenario):
            template = STRING_TEMPLATE if counter.kind == "string" else PORT_TEMPLATE
            graph = Graph.objects.create(
                device_id=int(scenario.key), template=template, instance=counter.name, title=counter.name
            )
            graphs[graph.pk] = (template, f"{scenario.key}/{counter.name}")
            by_member[(scenario.key, counter.name)] = graph
    aggregates = {}
    for members in plan.aggregates:
        found = [by_member[tuple(m.split("/", 1))] for m in members]
        aggregate = AggregateGraph.objects.create(title="+".join(members), template=found[0].template)
        aggregate.members.set(found)
        aggregates[aggregate.pk] = members
    return graphs, aggregates
