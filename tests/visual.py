"""What the visual check measures on a drawn page (tests/test_browser_visual.py): each finding a line of text.

Run in the page (Playwright's evaluate): page-wide horizontal overflow, text cut off by its box, table cells whose
text spills over their neighbours, overlapping controls in the bars of the page, and per Chart.js chart a plot
squashed below a sensible height, tick labels outside the canvas or two ticks of an axis that read the same; the
heatmap drawn at its element's size in device pixels with its time labels inside it; time axes that span the page's
range; titles in words (no field names, no unit said twice)."""

from __future__ import annotations

from pathlib import Path

PLOT_MIN_PX = 60  # the least height of a chart's plot area (a thumbnail's plot is 80 px)
PLOT_MIN_SHARE = 0.45  # and of its canvas: a legend or axis may not take more than the rest

CHECKS = (Path(__file__).resolve().parent / "visualcheck.js").read_text()
