"""The one formatter of the pages (static/js/format.js), run in Chromium: SI prefixes at three significant figures,
axis labels that tell their ticks apart, dates in one local format with the time zone named."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
SCRIPT = Path(__file__).resolve().parent.parent / "static" / "js" / "format.js"


@pytest.fixture(scope="module")
def fmt():
    """Evaluate JavaScript against window.MonitorFormat in a page of its own, in the Europe/Paris time zone."""
    import shutil

    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or shutil.which("chromium-browser"), args=CHROMIUM_ARGS
        )
        page = browser.new_context(timezone_id="Europe/Paris", locale="en-US").new_page()
        page.set_content("<!doctype html><title>format</title>")
        page.add_script_tag(path=str(SCRIPT))
        yield lambda expression: page.evaluate(f"(() => {{ const F = window.MonitorFormat; return {expression}; }})()")
        browser.close()


@pytest.mark.parametrize(
    ("number", "unit", "shown"),
    [
        (479_945_052, "bit/s", "480 Mbit/s"),
        (1536, "B", "1.54 kB"),
        (999_700, "bit/s", "1.00 Mbit/s"),  # the rounding carries into the next prefix
        (2100, "IOPS", "2.10k IOPS"),  # a word takes the prefix on the number: never "kIOPS"
        (65, "ms", "65.0 ms"),
        (6.8, "ms", "6.80 ms"),
        (1250, "ms", "1.25 s"),
        (96, "%", "96.0 %"),
        (123_456, "%", "123456 %"),  # percent is never prefixed
        (0.004, "/s", "0.004 /s"),  # small rates keep three significant figures, never "0.00"
        (0.0123, "/s", "0.0123 /s"),
        (0, "bit/s", "0 bit/s"),
        (12_000, "", "12.0k"),
        (-2_500_000, "bit/s", "-2.50 Mbit/s"),
    ],
)
def test_values_take_an_si_prefix_and_three_significant_figures(fmt, number, unit, shown):
    assert fmt(f"F.value({number}, {unit!r})") == shown


def test_a_missing_value_is_a_dash(fmt):
    assert fmt("[F.value(null, 'ms'), F.value(undefined, 'ms'), F.value(NaN, 'ms')]") == ["\u2013"] * 3  # an en dash


def axis_labels(fmt, unit: str, ticks: list[float]) -> list[str]:
    return fmt(f"(() => {{ const t = {ticks}.map(v => ({{value: v}})); const cb = F.axis({unit!r});"
               " return t.map((x, i) => cb(x.value, i, t)); })()")  # fmt: skip


def test_axis_labels_of_small_rates_are_all_different(fmt):
    # The thumbnail that read "0.02, 0.01, 0.01, 0.01, 0.00 /s": a step of 0.005 needs three decimals.
    labels = axis_labels(fmt, "/s", [0.02, 0.015, 0.01, 0.005, 0])
    assert labels == ["0.020 /s", "0.015 /s", "0.010 /s", "0.005 /s", "0.000 /s"]


def test_axis_labels_of_bit_rates_take_a_prefix_each(fmt):
    labels = axis_labels(fmt, "bit/s", [0, 2e8, 4e8, 6e8, 8e8, 1e9])
    assert labels == ["0 bit/s", "200 Mbit/s", "400 Mbit/s", "600 Mbit/s", "800 Mbit/s", "1.0 Gbit/s"]
    assert len(set(axis_labels(fmt, "bit/s", [0, 2.5e8, 5e8, 7.5e8, 1e9, 1.25e9]))) == 6
    assert axis_labels(fmt, "%", [0, 25, 50, 75, 100]) == ["0 %", "25 %", "50 %", "75 %", "100 %"]


def test_outbound_below_the_axis_reads_as_a_positive_rate(fmt):
    labels = fmt("(() => { const t = [-2e6, 0, 2e6].map(v => ({value: v})); const cb = F.axis('bit/s', true);"
                 " return t.map((x, i) => cb(x.value, i, t)); })()")  # fmt: skip
    assert labels == ["2 Mbit/s", "0 bit/s", "2 Mbit/s"]


def test_dates_are_local_with_the_zone_named(fmt):
    # 2026-11-28T03:46:48Z is 04:46:48 in Paris in winter (CET), 2026-07-01T12:00Z is 14:00 in summer (CEST).
    winter, summer = 1795837608000, 1782907200000
    assert fmt(f"F.dateTime({winter})") == "2026-11-28 04:46 CET"
    assert fmt(f"F.dateTime({winter}, true)") == "2026-11-28 04:46:48 CET"
    assert fmt(f"F.dateTime({summer})") == "2026-07-01 14:00 CEST"
    assert fmt(f"F.range({winter}, {winter + 7200_000})") == "2026-11-28 04:46 → 06:46 CET"
    assert fmt(f"F.range({winter}, {winter + 86400_000})") == "2026-11-28 04:46 → 2026-11-29 04:46 CET"


def test_a_time_axis_spans_the_whole_range_with_ticks_in_the_same_format(fmt):
    winter = 1795837608000
    axis = fmt(f"(() => {{ const a = F.timeAxis({winter - 86400_000}, {winter}); return [a.min, a.max, "
               f"a.time.unit, a.ticks.maxRotation, a.ticks.callback({winter})]; }})()")  # fmt: skip
    assert axis == [winter - 86_400_000, winter, "hour", 0, "04:46"]
    week = fmt(f"F.timeAxis({winter - 7 * 86400_000}, {winter}).ticks.callback({winter})")
    assert week == "11-28"
