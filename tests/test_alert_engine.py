"""The state machine on its own (a pure function): levels, hysteresis, duration, repeats, flapping, muting."""

from __future__ import annotations

from monitor.alerts.engine import FIRING, OK, PENDING, Condition, Snapshot, step

ABOVE = Condition(above=True, fire=80, clear=70, for_polls=3, flap_changes=4, flap_window_s=600)


def run(values, cond=ABOVE, start=1000.0, muted=False, snap=None):
    """Feed values one poll (10 s) apart; returns the final snapshot and [(kind, mail), ...]."""
    snap = snap or Snapshot()
    seen = []
    for i, value in enumerate(values):
        result = step(snap, cond, value, start + 10 * i, muted)
        snap = result.snapshot
        seen += [(c.kind, c.mail) for c in result.changes]
    return snap, seen


def test_fires_after_the_duration_and_clears_once_past_the_clear_level():
    snap, seen = run([85, 85])
    assert snap.state == PENDING and snap.count == 2 and seen == [("pending", "none")]
    snap, seen = run([85, 85, 85, 75, 90, 69])
    assert seen == [("pending", "none"), ("fire", "queued"), ("clear", "queued")]
    assert snap.state == OK and not snap.alerted


def test_a_dip_while_pending_starts_the_count_again():
    snap, seen = run([85, 85, 79, 85, 85])
    assert snap.state == PENDING and snap.count == 2
    assert seen == [("pending", "none"), ("cancelled", "none"), ("pending", "none")]


def test_below_rules_mirror_above_rules():
    cond = Condition(above=False, fire=10, clear=20, for_polls=1)
    snap, seen = run([9, 15, 21], cond)
    assert seen == [("fire", "queued"), ("clear", "queued")] and snap.state == OK


def test_no_recovery_mail_for_an_alert_that_was_never_mailed():
    snap, seen = run([90, 90, 90, 90], muted=True)
    assert seen == [("pending", "none"), ("fire", "muted")] and not snap.alerted
    snap, seen = run([50], snap=snap, start=2000)
    assert seen == [("clear", "none")]


def test_still_firing_after_maintenance_is_mailed_once():
    snap, _ = run([90, 90, 90], muted=True)
    snap, seen = run([90, 90], snap=snap, start=2000)
    assert seen == [("fire", "queued")] and snap.alerted


def test_repeat_interval_until_acknowledged():
    cond = Condition(above=True, fire=80, clear=70, for_polls=1, repeat_s=25)
    snap, seen = run([90] * 7, cond)  # t=0 fire, t=30 and t=60 repeat
    assert seen == [("fire", "queued"), ("repeat", "queued"), ("repeat", "queued")]
    from dataclasses import replace

    snap, seen = run([90, 90, 90, 90], cond, snap=replace(snap, acknowledged=True), start=2000)
    assert seen == []


def test_flapping_becomes_one_notice_and_settles_after_a_quiet_window():
    cond = Condition(above=True, fire=80, clear=70, for_polls=1, flap_changes=3, flap_window_s=100)
    snap, seen = run([90, 50, 90, 50, 90, 50, 90], cond)
    mailed = [k for k, m in seen if m == "queued"]
    assert mailed == ["fire", "clear", "fire", "flapping"]
    assert snap.flapping and snap.state == FIRING
    snap, seen = run([90] * 12, cond, snap=snap, start=1070)  # no change for more than the window
    assert seen == [("settled", "queued")]
    assert not snap.flapping and snap.alerted  # settled while firing: a later clear is mailed
    snap, seen = run([50], cond, snap=snap, start=3000)
    assert seen == [("clear", "queued")]
