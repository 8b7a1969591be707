"""The per-target state machine as a pure function: OK -> pending -> firing -> OK, with flap damping."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

OK, PENDING, FIRING = "ok", "pending", "firing"
# What happens to the mail of a change.
NONE, QUEUED, MUTED, SUPPRESSED = "none", "queued", "muted", "suppressed"


@dataclass(frozen=True)
class Snapshot:
    """What is remembered for a target between polls (times are epoch seconds)."""

    state: str = OK
    count: int = 0
    since: float | None = None
    alerted: bool = False  # an alert mail was queued for the current firing episode
    flapping: bool = False
    changes: tuple[float, ...] = ()  # times of recent fire/clear changes, for flap detection
    last_notified: float | None = None
    acknowledged: bool = False


@dataclass(frozen=True)
class Condition:
    """A rule's levels in the unit of the value, plus timing."""

    above: bool
    fire: float
    clear: float
    for_polls: int = 3
    window_s: float = 0.0  # > 0: the for_polls breaches must come within this many seconds of the first
    repeat_s: float = 0.0
    flap_changes: int = 4
    flap_window_s: float = 3600.0


@dataclass(frozen=True)
class Change:
    """A state change or notice to store as an event row."""

    kind: str
    to_state: str
    mail: str


@dataclass
class Step:
    snapshot: Snapshot
    changes: list[Change] = field(default_factory=list)


def breaches(cond: Condition, value: float) -> bool:
    return value > cond.fire if cond.above else value < cond.fire


def cleared(cond: Condition, value: float) -> bool:
    return value <= cond.clear if cond.above else value >= cond.clear


def step(snap: Snapshot, cond: Condition, value: float, now: float, muted: bool = False) -> Step:
    """Advance one target by one observed value; returns the new snapshot and the changes to record."""
    recent = tuple(t for t in snap.changes if now - t < cond.flap_window_s)
    out = Step(replace(snap, changes=recent))
    if snap.state in (OK, PENDING):
        if breaches(cond, value):
            count = snap.count + 1 if snap.state == PENDING else 1
            since = snap.since if snap.state == PENDING and snap.since is not None else now
            if cond.window_s > 0 and now - since > cond.window_s:  # the window is over: this breach starts one
                count, since = 1, now
            out.snapshot = replace(out.snapshot, count=count, since=since)
            if count >= cond.for_polls:
                _flip(out, FIRING, "fire", now, cond, muted, mail_ok=True)
            elif snap.state == OK:
                out.snapshot = replace(out.snapshot, state=PENDING)
                out.changes.append(Change("pending", PENDING, NONE))
        elif snap.state == PENDING:
            out.snapshot = replace(out.snapshot, state=OK, count=0, since=None)
            out.changes.append(Change("cancelled", OK, NONE))
    elif cleared(cond, value):
        _flip(out, OK, "clear", now, cond, muted, mail_ok=snap.alerted)
    _settle(out, now, cond, muted)
    _late_or_repeat(out, now, cond, muted)
    return out


def gone(snap: Snapshot) -> Step:
    """A target its device no longer reports (a disk pulled, an alert the array deleted, a port removed) while the
    device answers: a pending one is cancelled, a firing one closes with a mail if its alert was mailed."""
    out = Step(replace(snap, state=OK, count=0, since=None, alerted=False, acknowledged=False, flapping=False))
    if snap.state == PENDING:
        out.changes.append(Change("cancelled", OK, NONE))
    elif snap.state == FIRING:
        mail = SUPPRESSED if snap.flapping else QUEUED if snap.alerted else NONE
        out.changes.append(Change("clear", OK, mail))
    return out


def _flip(out: Step, to: str, kind: str, now: float, cond: Condition, muted: bool, mail_ok: bool) -> None:
    """Record a fire or clear; past the flap limit, one flapping notice replaces the mails."""
    snap = out.snapshot
    changes = (*snap.changes, now)
    firing = to == FIRING
    snap = replace(snap, state=to, changes=changes, acknowledged=False if firing else snap.acknowledged)
    if not firing:
        snap = replace(snap, count=0, since=None, acknowledged=False)
    if snap.flapping:
        out.changes.append(Change(kind, to, SUPPRESSED))
    elif len(changes) > cond.flap_changes:
        out.changes.append(Change(kind, to, SUPPRESSED))
        out.changes.append(Change("flapping", to, MUTED if muted else QUEUED))
        snap = replace(snap, flapping=True, alerted=False, last_notified=now)
    elif firing:
        mail = MUTED if muted else QUEUED
        out.changes.append(Change(kind, to, mail))
        snap = replace(snap, alerted=mail == QUEUED, last_notified=now if mail == QUEUED else snap.last_notified)
    else:
        # A recovery is mailed only after an alert mail for this episode (even during maintenance).
        out.changes.append(Change(kind, to, QUEUED if mail_ok else NONE))
        snap = replace(snap, alerted=False)
    out.snapshot = snap


def _settle(out: Step, now: float, cond: Condition, muted: bool) -> None:
    """A flapping target with no change for a whole window has settled: one mail with where it stands."""
    snap = out.snapshot
    if not snap.flapping or snap.changes:
        return
    mail = MUTED if muted else QUEUED
    out.changes.append(Change("settled", snap.state, mail))
    out.snapshot = replace(snap, flapping=False, alerted=snap.state == FIRING and mail == QUEUED, last_notified=now)


def _late_or_repeat(out: Step, now: float, cond: Condition, muted: bool) -> None:
    """Still firing: tell once maintenance is over, and again every repeat interval unless acknowledged."""
    snap = out.snapshot
    if snap.state != FIRING or snap.flapping or muted or any(c.kind in ("fire", "settled") for c in out.changes):
        return
    if not snap.alerted:
        out.changes.append(Change("fire", FIRING, QUEUED))
        out.snapshot = replace(snap, alerted=True, last_notified=now)
    elif cond.repeat_s > 0 and not snap.acknowledged and now - (snap.last_notified or 0) >= cond.repeat_s:
        out.changes.append(Change("repeat", FIRING, QUEUED))
        out.snapshot = replace(snap, last_notified=now)
