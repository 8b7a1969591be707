"""Numbers proved, not sampled: generated scenarios played through the live poll path, every read compared with the
independent model (tests/model/, docs/graphs.md).

Scenarios Hypothesis draws from a fixed seed set, and every kept example (tests/proof/kept/), are played as devices
of a loopback agent whose counters follow them, polled by the product's own poll path on a controlled clock, their
windows written when the pollers write them, pages warmed as beat warms them; the series API is read at moments
around an hour's end (right after it, after the grace, after the polls that write it, an hour later), warm and
cold, over the presets and two absolute ranges at the raw bucket's edge, and each answer compared with the model.
The set covers every poll interval, every fault and the raw-retention boundary (asserted, so a change of the
strategies cannot drop one). `make proof` plays thousands more (PROOF_SCENARIOS) and keeps every failure."""

from __future__ import annotations

import math
import os
import time
from collections import Counter as Tally
from pathlib import Path

import pytest

from tests.proof.batch import proof_moments
from tests.proof.kept import KEPT, keep, kept
from tests.proof.kept import examples as kept_examples
from tests.proof.strategies import KINDS, kinds
from tests.proof.suite import Outcome, drawn, run_batch

SEEDS = (4407,)
PER_SEED = 12
BATCH = 40  # scenarios played together on one timeline by `make proof`


def report(outcome: Outcome, ran: Tally, failed: Tally, classes: Tally | None = None) -> str:
    lines = [f"{kind:16} ran {ran[kind]:5}  failed {failed[kind]:5}" for kind in sorted(ran)]
    classes = classes if classes is not None else Tally(d.kind for d in outcome.differences if not d.pending)
    lines += [f"difference {name}: {count}" for name, count in classes.most_common()]
    pending = [d for d in outcome.differences if d.pending]
    for why, count in Tally(d.pending for d in pending).most_common():
        lines.append(f"{count} differences expected-pending: {why}, e.g.:")
        lines += [f"  {d}" for d in [d for d in pending if d.pending == why][:3]]
    return "\n".join(lines)


def dump(outcome: Outcome) -> None:
    """Every difference into the file PROOF_DUMP names, if any (the failure message shows five a scenario)."""
    if os.environ.get("PROOF_DUMP"):
        with open(os.environ["PROOF_DUMP"], "a") as out:
            out.writelines(f"{d}\n" for d in outcome.differences)


def failures(outcome: Outcome) -> list[str]:
    return [f"scenario {key}:\n  " + "\n  ".join(found) for key, found in outcome.failing.items()]


@pytest.mark.django_db
def test_the_fixed_seed_set_and_the_kept_examples_agree_with_the_model(stack_env, tmp_path):
    scenarios = [s for seed in SEEDS for s in drawn(seed, PER_SEED)]
    covered = set().union(*(kinds(s) for s in scenarios))
    assert covered >= set(KINDS), f"the fixed seed set no longer covers {sorted(set(KINDS) - covered)}"
    examples, groups = kept_examples(kept())
    started = time.monotonic()
    outcome = run_batch(scenarios + examples, tmp_path, groups=[tuple(len(scenarios) + i for i in g) for g in groups])
    took = time.monotonic() - started
    print(f"\n{len(scenarios) + len(examples)} scenarios in {took:.1f} s: {outcome.figures}")
    print(report(outcome, outcome.ran, outcome.failed))
    dump(outcome)
    assert outcome.figures["polls"] > 0 and outcome.figures["reads"] > 0
    if not outcome.figures["modelled"]:
        pytest.skip("the model (tests/model/chart.py, aggregate.py) has not landed: played and read, not compared")
    assert not outcome.failing, "\n".join(failures(outcome))


@pytest.mark.django_db
@pytest.mark.skipif(not os.environ.get("PROOF_SCENARIOS"), reason="`make proof` runs it (PROOF_SCENARIOS=5000)")
def test_proof_many(stack_env, tmp_path):
    from monitor.graphs.trees.models import AggregateGraph
    from monitor.models import Device

    shard, shards = (int(n) for n in os.environ.get("PROOF_SHARD", "0/1").split("/"))  # this process's share
    total = int(os.environ["PROOF_SCENARIOS"])
    # batch k (seed 440000 + k) of the whole run is this shard's when k % shards == shard
    batches = [(k, min(BATCH, total - k * BATCH)) for k in range(math.ceil(total / BATCH)) if k % shards == shard]
    wanted = sum(size for _, size in batches)
    folder = Path(os.environ.get("PROOF_KEPT") or KEPT)  # where failing scenarios are kept
    ran, failed, played, kept_paths, started = Tally(), Tally(), 0, [], time.monotonic()
    classes, pending, tag = Tally(), Tally(), f"[{shard + 1}/{shards}] " if shards > 1 else ""
    for k, size in batches:
        seed = 440000 + k
        scenarios = drawn(seed, size)
        outcome = run_batch(scenarios, tmp_path / str(seed), moments=proof_moments(k))
        dump(outcome)
        ran.update(outcome.ran)
        failed.update(outcome.failed)
        classes.update(d.kind for d in outcome.differences if not d.pending)
        pending.update(d.pending for d in outcome.differences if d.pending)
        played += len(scenarios)
        for s in outcome.placed:
            if s.key in outcome.failing:
                kept_paths.append(keep(s, outcome.zero, outcome.failing[s.key], folder))
        AggregateGraph.objects.all().delete()
        Device.objects.all().delete()
        figures = " ".join(f"{k} {v:.0f}" for k, v in outcome.figures.items())
        took = time.monotonic() - started
        print(f"{tag}{played}/{wanted} scenarios, {len(kept_paths)} failing, {took:.0f} s ({figures})", flush=True)
    took = time.monotonic() - started
    print(f"\n{tag}proof: {played} scenarios in {took:.0f} s ({took / max(played, 1):.2f} s a scenario)")
    print(report(Outcome(), ran, failed, classes))
    for why, count in pending.most_common():
        print(f"{tag}{count} differences expected-pending: {why}")
    for path in kept_paths:
        print(f"{tag}kept: {path}")
    assert not kept_paths, f"{len(kept_paths)} scenarios failed; kept in tests/proof/kept/"
