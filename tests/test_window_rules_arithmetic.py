"""When a rollup window is written and when pages count it as written, on plain numbers (issue 44): the poll side's
rules (collectors.rollup) and the pages' (monitor.timeseries.cache), each worked out from a poll schedule."""

from __future__ import annotations

from datetime import datetime, timezone

from collectors.rollup import begun_by_s, write_delay_s, writes_after_s, written_by_s
from monitor.timeseries.cache import aligned, newest_seen, seen_after_s

H = 1_800_000_000  # a whole hour (and 5-minute boundary), epoch seconds
KEYS = [f"interface,device=d{i},port={i}" for i in range(400)]


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def test_half_of_the_devices_polled_every_minute_or_faster_write_a_minute_later():
    for interval in (10.0, 30.0, 60.0):
        delays = [write_delay_s(key, interval) for key in KEYS]
        assert set(delays) == {0.0, 60.0}
        assert 0.4 < delays.count(60.0) / len(delays) < 0.6
        assert [write_delay_s(key, 10.0) for key in KEYS] == delays  # by key only, not by interval
    # Polled less often than every minute: the next poll is late enough, nobody waits.
    assert {write_delay_s(key, interval) for key in KEYS for interval in (61.0, 120.0, 300.0, 3600.0)} == {0.0}


def test_a_devices_first_poll_writing_a_window_waits_its_tier_delay_and_its_own():
    late = next(key for key in KEYS if write_delay_s(key, 60.0))
    early = next(key for key in KEYS if not write_delay_s(key, 60.0))
    assert [writes_after_s(300, key, 60.0) for key in (early, late)] == [0.0, 60.0]
    assert [writes_after_s(3600, key, 60.0) for key in (early, late)] == [150.0, 210.0]  # an hour: 150 s later
    assert [writes_after_s(3600, key, 300.0) for key in (early, late)] == [150.0, 150.0]
    assert writes_after_s(86_400, early, 300.0) == 150.0  # any tier of an hour or more


def test_every_device_has_begun_and_written_a_window_by_its_latest_poll_plus_the_write():
    # Polled every 60 s: the later half waits 60 s, its first poll after that comes within 60 s, its lines land
    # within 60 s more: 5-minute windows by 180 s, hours by 150 s more.
    assert (begun_by_s(300, 60.0), written_by_s(300, 60.0)) == (120.0, 180.0)
    assert (begun_by_s(3600, 60.0), written_by_s(3600, 60.0)) == (270.0, 330.0)
    # Every 300 s: no spread, the first poll after the end is up to 300 s later.
    assert (begun_by_s(300, 300.0), written_by_s(300, 300.0)) == (300.0, 360.0)
    assert (begun_by_s(3600, 300.0), written_by_s(3600, 300.0)) == (450.0, 510.0)
    assert (begun_by_s(300, 10.0), written_by_s(300, 10.0)) == (70.0, 130.0)
    assert (begun_by_s(300, 900.0), written_by_s(300, 900.0)) == (900.0, 960.0)


def test_pages_count_a_window_written_at_the_first_moment_they_move_on_after_every_device_wrote_it():
    # Pages move on 180 s after each 5-minute boundary; a window is counted at the first such moment by which
    # every device polled at that interval wrote it (written 180 s, 360 s, 960 s... after its end, see above).
    assert [seen_after_s(300, i) for i in (10.0, 60.0, 120.0, 300.0, 900.0)] == [180, 180, 180, 480, 1080]
    assert [seen_after_s(3600, i) for i in (60.0, 300.0, 900.0)] == [480, 780, 1380]
    assert seen_after_s(300, 420.0) == 480  # written 480 s after: exactly at a moment pages move on
    assert seen_after_s(300, 421.0) == 780


def test_the_newest_window_pages_count_moves_on_at_the_moment_it_is_seen():
    assert newest_seen(H + 179, 300, 60.0) == H - 300
    assert newest_seen(H + 180, 300, 60.0) == H
    assert newest_seen(H + 479, 300, 300.0) == H - 300
    assert newest_seen(H + 480, 300, 300.0) == H
    assert newest_seen(H + 3600 + 479, 3600, 60.0) == H
    assert newest_seen(H + 3600 + 480, 3600, 60.0) == H + 3600


def test_a_range_is_aligned_to_its_whole_windows_up_to_the_newest_seen():
    now = at(H + 3600 + 200)  # every device polled each minute wrote the window ending at H + 3600 by H + 3600 + 180
    assert aligned(at(H + 10), at(H + 3000), now, 300, 60.0) == (at(H + 300), at(H + 3000))
    assert aligned(at(H), at(H + 3599), now, 300, 60.0) == (at(H), at(H + 3300))
    assert aligned(at(H - 600), at(H + 7200), now, 300, 60.0) == (at(H - 600), at(H + 3600))
    assert aligned(at(H - 600), at(H + 7200), now, 300, 300.0) == (at(H - 600), at(H + 3300))
    # Nothing whole and seen: an empty span at the first whole window's start, never one ending before it starts.
    assert aligned(at(H + 3500), at(H + 7200), at(H + 3500), 300, 60.0) == (at(H + 3600), at(H + 3600))
    assert aligned(at(H + 10), at(H + 290), now, 300, 60.0) == (at(H + 300), at(H + 300))


def test_after_an_interval_change_windows_are_counted_by_both_intervals_until_an_hour_at_the_change_would_be():
    from monitor.timeseries.cache import counted_interval_s

    # A device of the later half polled every 60 s at H - 50, H + 10 (the first a minute past H, which would write
    # the window ending at H, is at H + 70), made 300-s just before H + 70: that poll never comes; the first 300-s
    # poll comes up to 300 s after the change, H + 370, its lines in by H + 430. By the 60-s rule pages would count
    # the window at H + 180, by the rule for 60 + 300 + 60 s at H + 480.
    change = H + 69
    assert seen_after_s(300, 60) == 180 and seen_after_s(300, 420) == 480 >= 370 + 60
    assert counted_interval_s(300, 60, change, H + 180) == 420
    assert newest_seen(H + 180, 300, counted_interval_s(300, 60, change, H + 180)) == H - 300  # not the one at H
    # For as long as an hour ending at the change would be counted by the 420-s rule (13 minutes), then by 300 s.
    assert seen_after_s(3600, 420) == 780
    assert counted_interval_s(300, 60, change, change + 779) == 420
    assert counted_interval_s(300, 60, change, change + 780) == 300
    # Made faster (900 -> 60): the old polls may still not come; the sum keeps the window raw until they could have.
    assert counted_interval_s(60, 900, change, change + 1) == 1020
    # No change recorded: the interval itself.
    assert counted_interval_s(300, None, None, H) == 300
    assert counted_interval_s(300, 60, None, H) == 300


def test_a_range_aligned_with_a_lag_ends_that_many_windows_before_the_newest_seen():
    # Polled every 900 s: at H + 3785 the newest 5-minute window seen ends at H + 2700 (18 minutes before: its
    # end + 1080 s, rounded to the moment pages move on); three windows' lag ends the range at H + 1800.
    now = at(H + 3785)
    assert aligned(at(H - 86_400), now, now, 300, 900) == (at(H - 86_400), at(H + 2700))
    assert aligned(at(H - 86_400), now, now, 300, 900, 3) == (at(H - 86_400), at(H + 1800))
    # A range ending long ago is not held back: its own end comes first.
    assert aligned(at(H - 86_400), at(H - 3600), now, 300, 900, 3) == (at(H - 86_400), at(H - 3600))
    # Never before the range's first whole window.
    assert aligned(at(H + 1900), now, now, 300, 900, 3) == (at(H + 2100), at(H + 2100))
