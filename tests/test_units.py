"""Numbers on pages read as people read them (the home page's rates, the health page's spool sizes)."""

import pytest

from monitor.templatetags.units import NONE, si


@pytest.mark.parametrize(
    ("value", "unit", "shown"),
    [
        (479945052, "bit/s", "480 Mbit/s"),
        (1536, "B", "1.54 kB"),
        (999.7e3, "bit/s", "1.00 Mbit/s"),  # rounding carries into the next prefix
        (12.345, "ms", "12.3 ms"),
        (0, "bit/s", "0.00 bit/s"),
        (-2.5e9, "bit/s", "-2.50 Gbit/s"),
        ("479945052.0", "bit/s", "480 Mbit/s"),
        (None, "bit/s", NONE),
        ("garbage", "bit/s", NONE),
        (float("nan"), "B", NONE),
    ],
)
def test_si(value, unit, shown):
    assert si(value, unit) == shown
