"""Legend arithmetic on plain numbers, without InfluxDB (issue 44): the 95th percentile by rank, the lower bound
from window minima and counts, totals by each sample's own interval, and windows of min, mean and max."""

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.timeseries.intervals import Polled
from monitor.timeseries.stats import kth_largest, lower_bound, percentile, rank_from_top, total, total_between, windowed

PROPERTY = settings(max_examples=300, deadline=None, derandomize=True)


def nearest_rank_p95(values: list[float]) -> float:
    """The 95th percentile as billing defines it: the smallest value with at least 95 % of the values at or below."""
    return min(v for v in values if 100 * sum(x <= v for x in values) >= 95 * len(values))


def test_the_95th_percentile_of_known_series_by_rank():
    assert percentile([]) is None
    assert percentile([7.0]) == 7.0
    assert percentile(list(range(20, 0, -1))) == 19  # 19 of 20 values (95 %) are at or below 19
    assert percentile(list(range(1, 22))) == 20  # 21 values: 19 at or below 19 is 90.5 %, 20 is 95.2 %
    assert percentile(list(range(1, 101))) == 95
    assert percentile(list(range(1, 19))) == 18  # 18 values: 17 at or below 17 is 94.4 %: the largest
    assert percentile([5.0, 1.0, 5.0, 5.0]) == 5.0  # ties: 1 of 4 at or below 1 (25 %), all 4 at or below 5
    spikes = [100.0] * 5 + [1.0] * 95  # 5 minutes of 100 in a hundred: billing drops the top 5 %
    assert percentile(spikes) == 1.0
    assert percentile([100.0] * 6 + [1.0] * 94) == 100.0  # one more and the spike is the 95th percentile


def test_the_rank_from_the_top_is_how_many_values_reach_the_95th_percentile():
    # n values, the 95th percentile at ascending position ceil(0.95 n): this many values are at or above it.
    assert [rank_from_top(n) for n in (1, 2, 19, 20, 21, 40, 100, 101, 1_000)] == [1, 1, 1, 2, 2, 3, 6, 6, 51]


def test_the_kth_largest_counts_duplicates_once_each():
    values = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0]
    assert [kth_largest(values, k) for k in (1, 2, 3, 4, 9)] == [9.0, 6.0, 5.0, 5.0, 1.0]
    assert kth_largest(iter(values), 2) == 6.0  # any iterable, read once


@PROPERTY
@given(st.lists(st.integers(-1_000, 1_000).map(float), min_size=1, max_size=300))
def test_the_95th_percentile_is_the_nearest_rank_value_of_any_series(values):
    assert percentile(values) == nearest_rank_p95(values)


def test_the_lower_bound_is_the_largest_window_minimum_with_k_values_at_or_above_it():
    windows = [(10.0, 5), (30.0, 3), (20.0, 4)]  # 3 values at or above 30, 7 at or above 20, 12 at or above 10
    assert [lower_bound(windows, k) for k in (1, 3, 4, 7, 8, 12)] == [30.0, 30.0, 20.0, 20.0, 10.0, 10.0]
    assert lower_bound(windows, 13) is None  # 12 values cannot vouch for a 13th largest
    assert lower_bound([], 1) is None
    assert lower_bound(iter([(2.5, 1.0), (7.5, 1.0)]), 2) == 2.5  # counts come from InfluxDB as floats


WINDOWS = st.lists(st.lists(st.integers(0, 1_000).map(float), min_size=1, max_size=20), min_size=1, max_size=30)


@PROPERTY
@given(WINDOWS, st.data())
def test_the_lower_bound_never_exceeds_the_kth_largest_and_is_the_tightest_window_minimum(windows, data):
    values = sorted((v for window in windows for v in window), reverse=True)
    k = data.draw(st.integers(1, len(values) + 2))
    bound = lower_bound([(min(w), len(w)) for w in windows], k)
    if k > len(values):
        assert bound is None
        return
    assert bound is not None and bound <= values[k - 1]  # every value at or above it is read: the k-th is among them
    # No larger window minimum would do: above it fewer than k values are vouched for.
    assert sum(len(w) for w in windows if min(w) > bound) < k


MINUTE = 60_000


def test_a_total_weighs_each_sample_by_its_own_interval_and_never_bridges_a_gap():
    # Polled every 60 s: the first sample stands for 60 s, the next for the 60 s and 30 s since the one before,
    # the one after a 300 s gap (longer than two intervals) for one interval: 600 + 1,200 + 900 + 2,400 bytes.
    points = [(0, 10.0), (MINUTE, 20.0), (MINUTE + 30_000, 30.0), (MINUTE + 330_000, 40.0)]
    assert total(points, 60.0) == 5_100.0
    assert total([], 60.0) == 0.0
    assert total([(1_700_000_000_000, 2.5)], 300.0) == 750.0  # a lone sample: one interval
    # Two intervals exactly is not a gap: 120 s of 1 B/s after the first 60 s.
    assert total([(0, 1.0), (2 * MINUTE, 1.0)], 60.0) == 180.0
    assert total([(0, 1.0), (2 * MINUTE + 1, 1.0)], 60.0) == 120.0  # a millisecond more is one


def test_a_total_between_counts_the_samples_in_the_range_with_the_interval_since_the_one_before():
    points = [(0, 10.0), (MINUTE, 20.0), (MINUTE + 30_000, 30.0), (MINUTE + 330_000, 40.0)]
    # From the second sample (inclusive) to the fourth (exclusive): 20 B/s x 60 s + 30 B/s x 30 s, the first
    # sample outside the range only tells how long the second one stands for.
    assert total_between(points, MINUTE, MINUTE + 330_000, 60.0) == 2_100.0
    assert total_between(points, MINUTE, None, 60.0) == 4_500.0  # to the last: + 40 B/s x 60 s after the gap
    assert total_between(points, MINUTE + 1, None, 60.0) == 3_300.0
    assert total_between(points, 0, None, 60.0) == total(points, 60.0) == 5_100.0
    assert total_between(points, 0, 0, 60.0) == 0.0
    assert total_between(points, MINUTE + 330_001, None, 60.0) == 0.0


def test_a_total_counts_each_sample_by_the_interval_it_was_polled_at():
    # Polled every 300 s (at 0, 300 s and 600 s), then every 60 s (660 s and 720 s), 1 B/s throughout; each poll's
    # record says its interval. The 300-s spacings are no gaps for the samples polled at 300 s: 300 s each, the
    # first one interval (300 s) as well, then 60 s each: 3 x 300 + 2 x 60 bytes.
    records = [(0, 300.0), (5 * MINUTE, 300.0), (10 * MINUTE, 300.0), (11 * MINUTE, 60.0), (12 * MINUTE, 60.0)]
    points = [(t, 1.0) for t, _ in records]
    polled = Polled(records, 60.0)
    assert total(points, polled) == 1_020.0
    assert total_between(points, 5 * MINUTE, None, polled) == 720.0  # the first only sets the second's spacing
    # By today's interval alone (60 s), every 300-s spacing would be a gap of one interval: 5 x 60 bytes.
    assert total(points, 60.0) == 300.0


def test_windows_of_samples_give_min_mean_and_max_aligned_to_the_epoch():
    five = 300_000
    base = 5_666_666 * five  # 2023-11-14 22:10 UTC, on a 5-minute boundary
    points = [
        (base + 1_000, 4.0),
        (base + 60_000, 2.0),
        (base + 299_999, 9.0),
        (base + five, 5.0),
        (base + 2 * five + 60_000, 3.0),
        (base + 2 * five + 120_000, 1.0),
        (base + 2 * five + 180_000, 3.0),
        (base + 2 * five + 240_000, 1.0),
    ]
    assert windowed(points, five) == [
        [base, 2.0, 5.0, 9.0],
        [base + five, 5.0, 5.0, 5.0],
        [base + 2 * five, 1.0, 2.0, 3.0],
    ]
    assert windowed([], five) == []
    # Hourly windows: the same samples fall in the one hour that holds them (22:00 UTC), mean 28 / 8.
    hour = 3_600_000
    assert windowed(points, hour) == [[base - base % hour, 1.0, 3.5, 9.0]]
    assert base % hour == 600_000


def test_a_total_counts_each_sample_for_its_span_where_the_poller_wrote_one():
    # 1 B/s polled every 60 s: the answer at 300 s after three unanswered polls spans the 240 s since the last one;
    # a sample after a reset spans only the 60 s since the reading at it (its neighbour 120 s before bridges nothing).
    points = [(0, 1.0), (MINUTE, 1.0), (5 * MINUTE, 2.0), (7 * MINUTE, 3.0)]
    spans = {0: 60.0, MINUTE: 60.0, 5 * MINUTE: 240.0, 7 * MINUTE: 60.0}
    assert total(points, 60.0, spans) == 60.0 + 60.0 + 480.0 + 180.0
    assert total_between(points, 5 * MINUTE, None, 60.0, spans) == 660.0  # the outage counts in the answer's range
    assert total_between(points, MINUTE + 1, 7 * MINUTE, 60.0, spans) == 480.0
    # A sample without a span (written before spans were) goes by the spacing rule: 120 s since the one before.
    assert total(points, 60.0, {0: 60.0, MINUTE: 60.0, 5 * MINUTE: 240.0}) == 60.0 + 60.0 + 480.0 + 360.0
    assert total(points, 60.0, None) == total(points, 60.0) == 60.0 + 60.0 + 120.0 + 360.0


def test_a_sample_without_a_span_goes_by_the_interval_it_was_polled_at():
    from monitor.timeseries.intervals import Polled

    # Polled every 300 s then (the records say so), every 60 s today: 300 s spacings are no gap.
    polled = Polled([(0, 300), (300_000, 300), (600_000, 300)], 60)
    points = [(0, 1.0), (300_000, 1.0), (600_000, 1.0)]
    assert total(points, polled) == 900.0
    assert total(points, 60.0) == 180.0


def test_edge_windows_put_samples_in_the_chart_s_grid_the_first_from_its_start():
    from monitor.timeseries.stats import edge_windows

    five = 300_000
    base = 5_666_666 * five  # on a 5-minute boundary
    points = [(base + 200_000, 4.0), (base + 250_000, 2.0), (base + five, 6.0), (base + five + 1, 1.0)]
    since = base + 100_000  # the first interval starts here, not at the boundary before it
    assert edge_windows(points, since, five) == [[since, 2.0, 3.0, 4.0, 2], [base + five, 1.0, 3.5, 6.0, 2]]
    assert edge_windows([(base + 2 * five - 1, 5.0)], base, five) == [[base + five, 5.0, 5.0, 5.0, 1]]
    assert edge_windows([], base, five) == []


def test_a_total_counts_what_each_sample_moved_where_the_poller_wrote_it():
    # 8 bit/s polled every 60 s. The bytes the poller wrote are the counter deltas: 60 B (480 bits) at 60 s; at 300 s
    # 240 B after three unanswered polls (1,920 bits: whatever its span says); at 7 min no bytes but a span of 60 s;
    # at 9 min neither: 120 s since the one before (the old rule). A sample's bytes stand even without its span.
    points = [(MINUTE, 8.0), (5 * MINUTE, 8.0), (7 * MINUTE, 8.0), (9 * MINUTE, 8.0)]
    moved = {MINUTE: 480.0, 5 * MINUTE: 1920.0}
    spans = {5 * MINUTE: 60.0, 7 * MINUTE: 60.0}
    assert total(points, 60.0, spans, moved) == 480.0 + 1920.0 + 480.0 + 960.0
    assert total_between(points, 5 * MINUTE, 9 * MINUTE, 60.0, spans, moved) == 1920.0 + 480.0
    assert total(points, 60.0, None, moved) == 480.0 + 1920.0 + 8.0 * 120 + 8.0 * 120


def test_by_time_keeps_each_sample_s_value_scaled_and_leaves_out_the_missing():
    from monitor.timeseries.stats import by_time

    assert by_time([(1000, 2.0), (2000, None), (3000, 0.5)]) == {1000: 2.0, 3000: 0.5}
    assert by_time([(1000, 2.0), (3000, 0.5)], 8.0) == {1000: 16.0, 3000: 4.0}  # bytes x 8: bits
    assert by_time([]) == {}
