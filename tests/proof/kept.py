"""Failing scenarios kept as examples (tests/proof/kept/*.json), their times from the batch's anchor, replayed by
tests/test_proof.py on every run."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tests.model.scenario import Counter, Poll, Scenario, Segment
from tests.proof.strategies import shifted

KEPT = Path(__file__).parent / "kept"


def to_json(scenario: Scenario, zero: float, found: list[str]) -> dict:
    """The scenario with its times from the anchor `zero`, and what was found wrong with it."""
    s = shifted(scenario, -zero, scenario.key)
    return {
        "notes": list(s.notes),
        "found": found,
        "booted": s.booted,
        "reboots": list(s.reboots),
        "counters": [
            {
                "name": c.name,
                "kind": c.kind,
                "speed_bps": c.speed_bps,
                "segments": [[g.start, g.bps] for g in c.segments],
                "resets": list(c.resets),
                "start_value": c.start_value,
            }
            for c in s.counters
        ],
        "polls": [[p.t, p.interval_s, p.answered] for p in s.polls],
        "anchor_of_day": int(zero) % 86400,  # where its batch's anchor fell in the UTC day (batch.anchor_of_day)
    }


def examples(files: list[tuple[str, dict]]) -> tuple[list[Scenario], list[tuple[int, ...]]]:
    """The kept examples' scenarios, and the aggregates of those kept as a group ({"scenarios": [...], "aggregates":
    [[index, ...]]}: indexes into the group's scenarios), as indexes into the list returned."""
    scenarios: list[Scenario] = []
    groups: list[tuple[int, ...]] = []
    for name, data in files:
        first = len(scenarios)
        for one in data.get("scenarios", [data]):
            scenarios.append(from_json(one, "0", name))
        groups += [tuple(first + i for i in group) for group in data.get("aggregates", [])]
    return scenarios, groups


def from_json(data: dict, key: str, name: str = "") -> Scenario:
    """A kept scenario, anchored at 0, as device `key`."""
    counters = tuple(
        Counter(
            c["name"],
            c["kind"],
            c["speed_bps"],
            tuple(Segment(a, b) for a, b in c["segments"]),
            tuple(c["resets"]),
            c["start_value"],
        )
        for c in data["counters"]
    )
    polls = tuple(Poll(t, interval, answered) for t, interval, answered in data["polls"])
    notes = (*data["notes"], f"kept example {name}".strip())
    return Scenario(key, counters, polls, tuple(data["reboots"]), data["booted"], notes)


def keep(scenario: Scenario, zero: float, found: list[str], folder: Path = KEPT) -> Path:
    """Save a failing scenario (named by its content, so the same one is kept once)."""
    data = to_json(scenario, zero, found)
    body = json.dumps({k: v for k, v in data.items() if k not in ("found", "anchor_of_day")}, sort_keys=True)
    path = folder / f"{hashlib.sha256(body.encode()).hexdigest()[:12]}.json"
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n")
    return path


def kept(folder: Path = KEPT) -> list[tuple[str, dict]]:
    """(file name, data) of every kept example."""
    return [(path.name, json.loads(path.read_text())) for path in sorted(folder.glob("*.json"))]
