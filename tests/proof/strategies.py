"""Hypothesis strategies drawing scenarios: one device each, on a timeline anchored at 0 (the hour the reads follow).

A scenario has an interval in {10, 60, 300, 900, 3600} s, a phase, polls late by up to 1.75 s (jitter), one or two
counters (32- or 64-bit ports with a known or unknown speed, a counter served as text) with piecewise constant
traffic (idle, moderate, near the port's speed, and for 32-bit ports polled too seldom, faster than 32 bits hold
between polls), and faults: runs of unanswered polls, a silent 10-s device backing off (monitor/polling/backoff.py:
after three silent polls it is tried only on every sixth tick until it answers), an interval change, a reboot, a
statistics reset. Its history starts far enough back to give a few hundred polls at most (some 3,600-s devices
over 14 days: past what the raw bucket holds). `notes` says what it plays; the "kind:" notes are what `kinds`
counts."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import strategies as st

from tests.model.scenario import Counter, Poll, Scenario, Segment

DAY, HOUR = 86400, 3600
INTERVALS = (10, 60, 300, 900, 3600)
END_S = HOUR + 900  # polls run up to here (the reads are at most an hour and a few minutes after 0)
UNREACHABLE_AFTER, UNREACHABLE_POLL_S = 3, 60  # the settings' defaults (monitor/settings.py)
# How far back each interval's history starts (a few hundred polls at most); 3,600 s: also past the raw retention.
HISTORY_S = {10: (0, 600), 60: (HOUR, 6 * HOUR), 300: (2 * HOUR, DAY), 900: (6 * HOUR, 3 * DAY), 3600: (DAY, 12 * DAY)}
BOUNDARY_S = (14 * DAY + 2 * HOUR, 15 * DAY + 20 * HOUR)
KINDS = (
    "interval:10",
    "interval:60",
    "interval:300",
    "interval:900",
    "interval:3600",
    "jitter",
    "missed",
    "backoff",
    "interval-change",
    "reboot",
    "reset",
    "port32",
    "port64",
    "speed-unknown",
    "string",
    "near-line-rate",
    "32bit-too-long",
    "raw-boundary",
)


def kinds(scenario: Scenario) -> set[str]:
    return {note[5:] for note in scenario.notes if note.startswith("kind:")}


@st.composite
def traffic(draw, start: float, end: float, ceiling: float, near: bool) -> tuple[Segment, ...]:
    """A few segments from `start`: idle, a fraction of `ceiling`, or (when `near`) 95-100 % of it."""
    count = draw(st.integers(1, 4))
    starts = sorted({start, *draw(st.lists(st.integers(int(start) + 1, int(end)), max_size=count - 1))})
    segments = []
    for i, at in enumerate(starts):
        if near and i == len(starts) - 1:
            share = draw(st.sampled_from((0.95, 0.99, 1.0)))
        else:
            share = draw(st.sampled_from((0.0, 0.001, 0.01, 0.1, 0.37, 0.5)))
        segments.append(Segment(float(at), round(ceiling * share)))
    return tuple(segments)


@st.composite
def counter(draw, index: int, start: float, end: float, interval: int) -> tuple[Counter, set[str]]:
    """One counter and what it plays."""
    kind = draw(st.sampled_from(("port32", "port64", "string")))
    tags = {kind}
    speed = 0.0
    if kind == "port32":
        speed = draw(st.sampled_from((0.0, 1e8, 1e9)))
    elif kind == "port64":
        speed = draw(st.sampled_from((0.0, 1e9, 1e10)))
    if kind != "string" and not speed:
        tags.add("speed-unknown")
    near = kind != "string" and speed > 0 and draw(st.booleans())
    if near:
        tags.add("near-line-rate")
    ceiling = speed or (2e7 if kind == "port32" else 1e9) if kind != "string" else 8e7
    if kind == "port32" and speed and speed / 8 * interval >= 2**32:
        tags.add("32bit-too-long")  # line rate wraps it between two polls: fast traffic is a gap
    segments = draw(traffic(start - 1, end, ceiling, near))
    first = draw(st.sampled_from((0, 12345, 2**32 - 10_000_000))) if kind == "port32" else draw(st.integers(0, 10**9))
    counter = Counter(f"c{index}", kind, speed, segments, start_value=first)
    return counter, tags


def schedule(start: float, end: float, interval: int, phase: int, jitters: list[float]) -> list[float]:
    """The ticks from `start` to `end` at `interval` and `phase`, each late by its jitter."""
    first = math.ceil((start - phase) / interval) * interval + phase
    ticks = list(range(int(first), int(end), interval))
    return [tick + jitters[i % len(jitters)] for i, tick in enumerate(ticks)]


@st.composite
def scenario(draw, key: str = "0") -> Scenario:
    """One device's scenario on the timeline anchored at 0."""
    interval = draw(st.sampled_from(INTERVALS))
    tags = {f"interval:{interval}"}
    boundary = interval == 3600 and draw(st.booleans())
    back = draw(st.integers(*(BOUNDARY_S if boundary else HISTORY_S[interval])))
    if boundary:
        tags.add("raw-boundary")
    start = -float(back)
    phase = draw(st.integers(0, interval - 1))
    jitters = draw(st.lists(st.sampled_from((0.0, 0.25, 0.5, 1.0, 1.75)), min_size=1, max_size=5))
    if any(jitters):
        tags.add("jitter")
    # An interval change (e.g. 300 -> 60) somewhere in the timeline: the polls after it at the new interval.
    change = None
    if draw(st.integers(0, 4)) == 0:
        other = draw(st.sampled_from([i for i in (60, 300, 900) if i != interval]))
        change = (draw(st.integers(int(start) + interval, END_S - 600)), other)
        tags.add("interval-change")
    ticks = schedule(start, change[0] if change else END_S, interval, phase, jitters)
    polls = [Poll(t, interval) for t in ticks]
    if change is not None:
        new_phase = draw(st.integers(0, change[1] - 1))
        # up to an interval past the timeline's end: at least one poll at the new interval, which tells the device's
        # row the change was made (tests/proof/player.py set_rows), even when it comes after the last read
        polls += [Poll(t, change[1]) for t in schedule(change[0], END_S + change[1], change[1], new_phase, jitters)]
    polls = draw(faults(polls, tags))
    counters = []
    for index in range(draw(st.integers(1, 2))):
        made, kind_tags = draw(counter(index, start, END_S, interval))
        counters.append(made)
        tags |= kind_tags
    reboots: tuple[float, ...] = ()
    if len(polls) > 4 and draw(st.integers(0, 3)) == 0:
        between = draw(st.integers(1, len(polls) - 2))
        reboots = ((polls[between - 1].t + polls[between].t) / 2,)
        tags.add("reboot")
    if len(polls) > 4 and draw(st.integers(0, 3)) == 0:
        which = draw(st.integers(0, len(counters) - 1))
        between = draw(st.integers(1, len(polls) - 2))
        moment = (polls[between - 1].t + polls[between].t) / 2
        counters[which] = replace(counters[which], resets=(moment,))
        tags.add("reset")
    booted = start - draw(st.sampled_from((3600.0, 86400.0 * 30)))
    said = f"every {interval} s at phase {phase}, history from {start / HOUR:+.1f} h, {len(polls)} polls"
    notes = (*sorted(f"kind:{tag}" for tag in tags), said)
    return Scenario(key, tuple(counters), tuple(polls), reboots, booted, notes)


@st.composite
def faults(draw, polls: list[Poll], tags: set[str]) -> list[Poll]:
    """Runs of unanswered polls; for 10-s devices, sometimes a silence long enough to back off."""
    answered = [True] * len(polls)
    for _ in range(draw(st.integers(0, 3))):
        if len(polls) < 6:
            break
        at = draw(st.integers(1, len(polls) - 2))
        length = draw(st.integers(1, 5))
        for i in range(at, min(at + length, len(polls) - 1)):
            answered[i] = False
        tags.add("missed")
    out = [replace(p, answered=a) for p, a in zip(polls, answered, strict=True)]
    if polls and polls[0].interval_s < UNREACHABLE_POLL_S and len(polls) > 40 and draw(st.booleans()):
        out = backed_off(out, draw(st.integers(1, len(polls) - 40)), draw(st.integers(5, 30)))
        tags.add("backoff")
    return out


def backed_off(polls: list[Poll], at: int, silent_ticks: int) -> list[Poll]:
    """Polls from `at` silent for `silent_ticks` ticks: after UNREACHABLE_AFTER silent polls in a row only every
    ceil(UNREACHABLE_POLL_S / interval)-th tick (by tick number) is tried, until one answers."""
    out, silent = polls[:at], 0
    for i, poll in enumerate(polls[at:]):
        quiet = i < silent_ticks
        every = max(1, math.ceil(UNREACHABLE_POLL_S / poll.interval_s))
        tick = math.floor(poll.t)
        if silent >= UNREACHABLE_AFTER and (tick // poll.interval_s) % every != 0:
            continue  # sat out, not polled at all
        out.append(replace(poll, answered=poll.answered and not quiet))
        silent = silent + 1 if quiet else 0
    return out


def shifted(scenario: Scenario, by: float, key: str) -> Scenario:
    """The same scenario `by` seconds later, as device `key`."""
    counters = tuple(
        replace(
            c,
            segments=tuple(Segment(s.start + by, s.bps) for s in c.segments),
            resets=tuple(r + by for r in c.resets),
        )
        for c in scenario.counters
    )
    polls = tuple(replace(p, t=p.t + by) for p in scenario.polls)
    reboots = tuple(r + by for r in scenario.reboots)
    return replace(scenario, key=key, counters=counters, polls=polls, reboots=reboots, booted=scenario.booted + by)
