"""Draw scenarios (Hypothesis, a seed at a time), play them in batches on shared timelines, compare every read with
the model, and count what ran and failed by kind (tests/test_proof.py and `make proof`)."""

from __future__ import annotations

import importlib
import time
from collections import Counter as Tally
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as seeded

from monitor.timeseries.templates import TEMPLATES
from tests.model.scenario import Scenario
from tests.proof.agent import PORT_FIELD, PORT_TEMPLATE, STRING_FIELD, STRING_TEMPLATE
from tests.proof.batch import MOMENTS, Plan, Read, anchor, play, raw_floor
from tests.proof.compare import SPANS, Difference, compare
from tests.proof.reads import POINTS
from tests.proof.strategies import kinds, scenario, shifted


def drawn(seed: int, count: int) -> list[Scenario]:
    """`count` distinct scenarios Hypothesis draws from `seed` (generation only: a failure is kept, not shrunk in
    place; the same scenario drawn twice is played once)."""
    found: dict[Scenario, None] = {}

    @seeded(seed)
    @settings(
        max_examples=count * 3,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenario())
    def collect(one: Scenario) -> None:
        if len(found) < count:
            found[one] = None

    collect()
    return list(found)


def model():
    """The model's entry points (tests/model/), or None while it has not landed."""
    try:
        chart = importlib.import_module("tests.model.chart")
        aggregate = importlib.import_module("tests.model.aggregate")
    except ImportError:
        return None
    floor = getattr(chart, "raw_floor", None) or importlib.import_module("tests.model.windows").raw_floor
    return chart.chart, aggregate.aggregate, floor


@dataclass
class Outcome:
    """A batch's result: the differences, the scenarios' kinds, which scenarios failed, the cost."""

    differences: list[Difference] = field(default_factory=list)
    ran: Tally = field(default_factory=Tally)
    failed: Tally = field(default_factory=Tally)
    failing: dict[str, list[str]] = field(default_factory=dict)  # scenario key -> its first differences
    figures: dict[str, float] = field(default_factory=dict)
    compared: int = 0
    zero: float = 0.0  # the batch's anchor
    placed: list[Scenario] = field(default_factory=list)  # its scenarios as played


def aggregates_of(scenarios: list[Scenario]) -> list[tuple[str, ...]]:
    """Every fifth scenario's first port with the first ports of the next one or two (other intervals, phases)."""
    ports = [(s, c) for s in scenarios for c in s.counters[:1] if c.kind != "string"]
    groups = []
    for i in range(0, len(ports) - 2, 5):
        size = 2 + i % 2
        groups.append(tuple(f"{s.key}/{c.name}" for s, c in ports[i : i + size]))
    return groups


def run_batch(
    scenarios: list[Scenario],
    spool,
    first_key: int = 1000,
    groups: list[tuple[int, ...]] = (),
    moments: tuple[int, ...] = MOMENTS,
    zero: float | None = None,
) -> Outcome:
    """Play `scenarios` (anchored at 0) as devices first_key... on one timeline; compare every read with the model.
    Aggregates: those `aggregates_of` picks, and `groups` (indexes of scenarios whose first counters are summed);
    `moments`: when to read (tests/proof/batch.py MOMENTS); `zero`: the anchor, if not `anchor()` (`anchor_of_day`)."""
    zero = anchor() if zero is None else zero
    placed = [shifted(s, zero, str(first_key + i)) for i, s in enumerate(scenarios)]
    by_key = {s.key: s for s in placed}
    named = [tuple(f"{placed[i].key}/{placed[i].counters[0].name}" for i in group) for group in groups]
    plan = Plan(placed, aggregates_of(placed) + named, moments)
    outcome = Outcome(zero=zero, placed=placed)
    entry = model()
    expected_cache: dict = {}
    model_s = [0.0]

    def check(read: Read) -> None:
        members = [tuple(m.split("/", 1)) for m in read.of]
        counters = [next(c for c in by_key[k].counters if c.name == name) for k, name in members]
        template = TEMPLATES[STRING_TEMPLATE if counters[0].kind == "string" else PORT_TEMPLATE]
        field_name = STRING_FIELD if counters[0].kind == "string" else PORT_FIELD
        divisor = template.total_divisor if template.totals else None
        notes = tuple(n for k, _ in members for n in by_key[k].notes)
        keys = tuple(k for k, _ in members)
        if entry is None:  # no model yet: only a refused read is wrong for sure
            found = compare(read, field_name, None, notes, keys, zero, divisor) if "error" in read.data else []
            record(found, keys)
            return
        chart, aggregate, floor_of = entry
        end = read.moment
        start = read.span.start if read.span.start is not None else end - SPANS[read.span.name]
        cache_key = (read.of, start, end)
        if cache_key not in expected_cache:
            clock = time.monotonic()
            floor = floor_of(end, 14 * 86400, 86400)
            assert floor == raw_floor(end), (floor, raw_floor(end))  # what the harness wrote is what the model reads
            if read.plot.startswith("aggregate"):
                expected_cache[cache_key] = aggregate(
                    [(by_key[k], name) for k, name in members], start, end, POINTS, end, floor
                )
            else:
                expected_cache[cache_key] = chart(by_key[keys[0]], members[0][1], start, end, POINTS, end, floor)
            model_s[0] += time.monotonic() - clock
        outcome.compared += 1
        record(compare(read, field_name, expected_cache[cache_key], notes, keys, zero, divisor), keys)

    def record(found: list[Difference], keys: tuple[str, ...]) -> None:
        outcome.differences += found
        for difference in found:
            for key in keys:
                outcome.failing.setdefault(key, [])
                if len(outcome.failing[key]) < 5:
                    outcome.failing[key].append(str(difference))

    outcome.figures = play(plan, zero, spool, check)
    outcome.figures["modelled"] = float(entry is not None)
    outcome.figures["model_s"] = model_s[0]  # of read_s
    for s in placed:
        for kind in kinds(s):
            outcome.ran[kind] += 1
            if s.key in outcome.failing:
                outcome.failed[kind] += 1
    return outcome
