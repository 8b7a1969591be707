"""`make proof`: thousands of generated scenarios (PROOF_SCENARIOS, 5000 by default) through the live poll path,
checked against the model in batches, PROOF_SHARD's share of them in this process. Not a test module of `make test`
(its name is not test_*.py): the Makefile names it."""

from __future__ import annotations

import math
import os
import time
from collections import Counter as Tally
from pathlib import Path

import pytest

from tests.proof.batch import proof_moments
from tests.proof.kept import KEPT, keep
from tests.proof.suite import Outcome, drawn, run_batch
from tests.test_proof import BATCH, dump, report


@pytest.mark.django_db
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
    classes, tag = Tally(), f"[{shard + 1}/{shards}] " if shards > 1 else ""
    for k, size in batches:
        seed = 440000 + k
        scenarios = drawn(seed, size)
        outcome = run_batch(scenarios, tmp_path / str(seed), moments=proof_moments(k))
        dump(outcome)
        ran.update(outcome.ran)
        failed.update(outcome.failed)
        classes.update(d.kind for d in outcome.differences)
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
    for path in kept_paths:
        print(f"{tag}kept: {path}")
    assert not kept_paths, f"{len(kept_paths)} scenarios failed; kept in tests/proof/kept/"
