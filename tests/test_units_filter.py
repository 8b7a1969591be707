"""The server's `si` filter writes numbers by docs/ui.md's conventions, as static/js/format.js's `value` does in the
browser (issue 41: "2.10 kIOPS", "1.25 kms", "123 k%" and "0.00 /s" were seen on server pages)."""

from __future__ import annotations

import pytest

from monitor.templatetags.units import NONE, si

# (value, unit, as docs/ui.md writes it)
CASES = [
    (479_945_052, "bit/s", "480 Mbit/s"),
    (1536, "B", "1.54 kB"),
    (999_700, "bit/s", "1.00 Mbit/s"),  # a rounding that reaches 1000 takes the next prefix
    (2100, "IOPS", "2.10k IOPS"),  # words take the prefix on the number
    (3500, "/s", "3.50k /s"),
    (1200, "", "1.20k"),
    (1250, "ms", "1.25 s"),  # milliseconds from 1000 on are seconds
    (65.04, "ms", "65.0 ms"),
    (12_345, "%", "12345 %"),  # never prefixed
    (71.5, "°C", "71.5 °C"),
    (0.0123, "/s", "0.0123 /s"),  # three figures below 1 too
    (0, "/s", "0 /s"),
    (0, "bit/s", "0 bit/s"),
    (-2_500_000, "bit/s", "-2.50 Mbit/s"),
    ("479945052.0", "bit/s", "480 Mbit/s"),  # a number as text, as a template may hold it
    (4.2e12, "B", "4.20 TB"),
    (1.5e18, "B", "1500 PB"),  # past the last prefix
    (None, "bit/s", "\u2013"),
    ("garbage", "B", "\u2013"),
    (float("nan"), "ms", "\u2013"),
]


@pytest.mark.parametrize(("value", "unit", "written"), CASES)
def test_the_filter_writes_numbers_as_the_conventions_say(value, unit, written):
    assert si(value, unit) == written


def test_durations_read_from_seconds_to_months():
    """A replication's lag, from a mirror just updated to one abandoned (the FAS3270 recording's: 26,917,053 s)."""
    from monitor.templatetags.units import duration

    assert [duration(s) for s in (0, 59.4, 60, 3599, 3600, 3660, 86399, 86400, 108_000)] == [
        "0 s",
        "59 s",
        "1 min",
        "59 min",
        "1 h 00 min",
        "1 h 01 min",
        "23 h 59 min",
        "1 d 0 h",
        "1 d 6 h",  # 30 hours
    ]
    assert duration(26_917_053.04) == "311 d 12 h"  # 311 * 86,400 = 26,870,400; 46,653 s more is 12.96 h
    assert duration(None) == NONE and duration("garbage") == NONE and duration(-5) == "0 s"
