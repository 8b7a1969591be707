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

import os
import time
from collections import Counter as Tally

import pytest

from tests.proof.kept import examples as kept_examples
from tests.proof.kept import kept
from tests.proof.strategies import KINDS, kinds
from tests.proof.suite import Outcome, drawn, run_batch

SEEDS = (4407,)
PER_SEED = 12
BATCH = 40  # scenarios played together on one timeline by `make proof`


def report(outcome: Outcome, ran: Tally, failed: Tally, classes: Tally | None = None) -> str:
    lines = [f"{kind:16} ran {ran[kind]:5}  failed {failed[kind]:5}" for kind in sorted(ran)]
    classes = classes if classes is not None else Tally(d.kind for d in outcome.differences)
    lines += [f"difference {name}: {count}" for name, count in classes.most_common()]
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
    assert outcome.figures["modelled"], "no read was compared with the model"
    assert not outcome.failing, "\n".join(failures(outcome))
