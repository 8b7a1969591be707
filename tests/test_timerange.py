"""Time ranges from URLs: presets, relative, absolute, and clear errors."""

from datetime import datetime, timedelta, timezone

import pytest

from monitor.graphs.timerange import RangeError, parse_range

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(("preset", "span"), [("1h", 3600), ("6h", 6 * 3600), ("1d", 86400), ("1w", 7 * 86400)])
def test_presets(preset, span):
    window = parse_range(None, None, preset, now=NOW)
    assert window.end == NOW
    assert window.seconds == span


def test_relative_and_absolute():
    window = parse_range("now-36h", "now", now=NOW)
    assert window.start == NOW - timedelta(hours=36)
    window = parse_range("2026-05-01T00:00:00Z", "2026-05-02", now=NOW)
    assert window.seconds == 86400
    assert parse_range("1780000000", "1780003600", now=NOW).seconds == 3600


@pytest.mark.parametrize(
    ("start", "end", "preset", "message"),
    [
        ("now-1h", "now-2h", None, "start must be before end"),
        ("now", "now", None, "start must be before end"),
        ("1999-01-01", "now", None, "before the year 2000"),
        ("yesterday", "now", None, "is not a date"),
        ("now-1h", "2030-01-01", None, "in the future"),
        (None, None, "2h", "is not one of"),
        ("2001-01-01", "now", None, "longer than ten years"),
    ],
)
def test_bad_ranges_are_explained(start, end, preset, message):
    with pytest.raises(RangeError, match=message):
        parse_range(start, end, preset, now=NOW)
