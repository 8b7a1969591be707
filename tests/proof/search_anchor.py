"""Replay one kept example at every hour of the UTC day as its anchor (PROOF_EXAMPLE, a path), and say at which
hours it fails: a failure that depends on where the raw bucket's shard-group floor falls. Not a test of `make test`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.proof.batch import HOUR, anchor_of_day
from tests.proof.kept import from_json
from tests.proof.suite import run_batch


@pytest.mark.django_db
def test_search_anchor(stack_env, tmp_path):
    from monitor.models import Device

    path = Path(os.environ["PROOF_EXAMPLE"])
    scenario = from_json(json.loads(path.read_text()), "0", path.name)
    moments = tuple(int(m) for m in os.environ.get("PROOF_MOMENTS", "295,3785").split(","))
    failing = []
    for hour in range(24):
        outcome = run_batch([scenario], tmp_path / str(hour), moments=moments, zero=anchor_of_day(hour * HOUR))
        Device.objects.all().delete()
        found = [str(d) for d in outcome.differences]
        print(f"anchor at {hour:02d}:00 UTC: {len(found)} differences {found[:2]}", flush=True)
        if found:
            failing.append(hour)
    print("failing hours:", failing)
