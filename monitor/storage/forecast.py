"""When a volume, pool or member fills up: a least-squares line through the last 30 days of its used share, with
the spread of that fit, so the answer is a range ("full in 24-31 days") and a flat or noisy series says "not
growing" rather than a date it cannot support. A cleanup (the share falling by more than LARGE_DROP_PCT points
within DROP_WINDOW_DAYS) starts the trend again: the line goes through the points after the last one only."""

from __future__ import annotations

import math
from dataclasses import dataclass

DAY = 86400.0
MIN_POINTS = 4
MIN_SPAN_DAYS = 1.0
FLAT_PCT_PER_DAY = 0.01  # growth below a hundredth of a point a day is no growth
SPREAD = 2.0  # the range spans the slope and level ± 2 standard errors (about 95 %)
LARGE_DROP_PCT = 10.0  # a fall of more than 10 points of capacity (98 % -> 87 %) ...
DROP_WINDOW_DAYS = 1.0  # ... from the highest point of the day before is a cleanup, not noise or churn


@dataclass(frozen=True)
class Forecast:
    """The used share now, its growth, and when it reaches 100 % (a range of days), in words for the page."""

    text: str
    used_pct: float | None = None
    growth_pct_per_day: float | None = None
    days_low: float | None = None
    days_high: float | None = None
    drop: tuple[float, float] | None = None  # (from %, to %) of the cleanup the trend starts after

    @property
    def sort_key(self) -> float:
        """Sooner first; never-full last."""
        return self.days_low if self.days_low is not None else math.inf


def forecast(points: list[tuple[float, float, float]]) -> Forecast:
    """From [(epoch s, used, size)] (any unit, same for both): the share now and when it is full."""
    usable = sorted((t, 100.0 * used / size) for t, used, size in points if size and size > 0 and used >= 0)
    if not usable:
        return Forecast("no capacity data")
    used_now = usable[-1][1]
    if used_now >= 100.0:
        return Forecast("full", used_now, None, 0.0, 0.0)
    usable, drop = since_last_drop(usable)
    since = f" since the drop from {drop[0]:.0f} % to {drop[1]:.0f} %" if drop else ""
    if len(usable) < MIN_POINTS or (usable[-1][0] - usable[0][0]) / DAY < MIN_SPAN_DAYS:
        return Forecast(f"not enough history{since or ' for a forecast'}", used_now, drop=drop)
    t0 = usable[-1][0]
    xs = [(t - t0) / DAY for t, _ in usable]  # days, 0 = the newest point
    ys = [pct for _, pct in usable]
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sxx
    level = mean_y - slope * mean_x  # the fitted share now (x = 0)
    residual = math.sqrt(sum((y - (level + slope * x)) ** 2 for x, y in zip(xs, ys, strict=True)) / max(n - 2, 1))
    slope_error = residual / math.sqrt(sxx)
    level_error = residual * math.sqrt(1.0 / n + mean_x**2 / sxx)
    fast, slow = slope + SPREAD * slope_error, slope - SPREAD * slope_error
    if slope <= FLAT_PCT_PER_DAY or slow <= 0:
        return Forecast(f"not growing{since}", used_now, slope, drop=drop)
    high_level = min(100.0, level + SPREAD * level_error)
    low_level = max(0.0, level - SPREAD * level_error)
    soonest = max(0.0, (100.0 - high_level) / fast)
    latest = max(soonest, (100.0 - low_level) / slow)
    text = _words(soonest, latest) + (f" ({since.strip()})" if since else "")
    return Forecast(text, used_now, slope, soonest, latest, drop)


def since_last_drop(usable: list[tuple[float, float]]) -> tuple[list[tuple[float, float]], tuple[float, float] | None]:
    """The points from the last cleanup on (all of them without one), and (from %, to %) of that cleanup: a point
    more than LARGE_DROP_PCT below the highest of its trend within DROP_WINDOW_DAYS before it. A cleanup spread over
    several points (a window that caught half of it) ends at its last one and is named from the peak before it."""
    window = DROP_WINDOW_DAYS * DAY
    start, low, drop = 0, 0, None
    for i in range(1, len(usable)):
        t, pct = usable[i]
        while usable[low][0] < t - window:
            low += 1
        trend_peak = max((p for _, p in usable[max(low, start) : i]), default=pct)
        if trend_peak - pct > LARGE_DROP_PCT:
            start, drop = i, (max(p for _, p in usable[low:i]), pct)
    return usable[start:], drop


def _words(soonest: float, latest: float) -> str:
    low, high = math.floor(soonest), math.ceil(latest)
    if high <= 1:
        return "full within a day"
    if high > 3650:
        return f"full in more than {low} days" if low < 3650 else "not full within ten years"
    return f"full in {low} days" if low == high else f"full in {low}\u2013{high} days"
