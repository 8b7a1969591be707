"""The read plan's own arithmetic on plain numbers (issue 44): which poll interval a group's charts go by, which
interval their windows are counted as written by, how many windows an aggregate's slow members' fill reaches, and
the edges' times. The plan as a whole, against buckets as deployed, is tests/test_read_plan_table.py."""

from __future__ import annotations

from datetime import datetime, timezone

from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.plan import Bounds, Layout, Window, ahead, counted_interval_of, interval_of, lag
from monitor.timeseries.templates import TEMPLATES
from monitor.timeseries.tiers import Tier

RAW, FIVE = Tier("raw", "raw", 0, 14), Tier("5m", "5m", 300, 366)


def plot(*members: Member) -> Plot:
    return Plot("p", TEMPLATES["traffic"], members)


def test_charts_go_by_the_longest_poll_interval_of_every_member_of_every_graph():
    plots = [plot(Member("a", "1", 60), Member("b", "1", 300)), plot(Member("c", "1", 10))]
    assert interval_of(plots) == 300
    assert interval_of(plots[1:]) == 10


def test_windows_are_counted_by_the_longest_counting_interval_which_an_interval_change_lengthens():
    changed = Member("a", "1", 300, counted_s=60 + 300 + 60)  # made 300-s from 60-s a moment ago
    assert counted_interval_of([plot(changed, Member("b", "1", 60))]) == 420
    assert counted_interval_of([plot(Member("a", "1", 300, counted_s=0), Member("b", "1", 60))]) == 300
    assert interval_of([plot(changed)]) == 300  # the chart's step still goes by the interval polled at


def test_a_member_polled_at_least_as_seldom_as_the_step_fills_the_windows_its_sample_covers():
    # a sample covers the interval before it: polled every 900 s, its sample fills three 5-minute windows back
    assert [ahead(Member("a", "1", s), 300_000) for s in (10, 60, 299, 300, 301, 900, 3600)] == [0, 0, 0, 1, 2, 3, 12]
    assert [ahead(Member("a", "1", s), 3_600_000) for s in (300, 3599, 3600, 7200)] == [0, 0, 1, 2]


def test_an_aggregates_whole_windows_wait_for_its_slowest_members_fill():
    members = (Member("a", "1", 60), Member("b", "1", 900), Member("c", "1", 300))
    assert lag(plot(*members), 300) == 3
    assert lag(plot(*members), 3600) == 0
    assert lag(plot(Member("a", "1", 60)), 300) == 0


def test_a_plan_s_edges_in_milliseconds_and_what_is_windowed():
    at = [datetime.fromtimestamp(t, timezone.utc) for t in (1_800_000_000, 1_800_000_300, 1_800_086_100)]
    assert Bounds(at[0], at[1], at[2]).ms() == (1_800_000_000_000, 1_800_000_300_000, 1_800_086_100_000)
    assert Bounds(None, at[1], at[2]).ms() == (None, 1_800_000_300_000, 1_800_086_100_000)
    assert [Layout(RAW, 60, 60).windowed, Layout(RAW, 60, 120).windowed, Layout(FIVE, 300, 300).windowed] == [
        False,
        True,
        True,
    ]
    now = datetime.now(timezone.utc)
    assert Window.of(at[0], at[2], 300, now) == Window(at[0], at[2], 300, now)
    assert abs((Window.of(at[0], at[2], 300).now - datetime.now(timezone.utc)).total_seconds()) < 60
