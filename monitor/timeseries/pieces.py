"""What a read of ranges of a rollup tier asks for (monitor.timeseries.gather reads it): each range's windows (the
stored mean where a point is one window of a tier that keeps it, else Σ sum and Σ count) and the figures of the
range behind a legend."""

from __future__ import annotations

from dataclasses import dataclass

from monitor.timeseries.plan import Layout, Window

# A batch with this many instances (ports...) of one device and template reads all of that device's instances
# (a batch of most of a switch's ports: the extra series cost less than a predicate naming each port).
EVERY_INSTANCE_AT = 48
# Tiers whose windows keep their mean (collectors/rollup.py): a chart of one window a point reads it, one column
# instead of sums and counts, and the range's Σ sum and Σ count as two numbers (a third fewer values to send).
MEANS_KEPT = ("5m",)


@dataclass(frozen=True)
class Piece:
    """One range of a rollup tier's read: its windows, the figures of the range behind a legend, or both; `tail`:
    raw samples after the newest window stand for its last value (no last() read); `lowest`: the minimum alone."""

    span: Window
    windows: bool = True
    figures: bool = True
    tail: bool = False
    lowest: bool = False


@dataclass(frozen=True)
class Read:
    """One result of a piece: its name, the aggregate (per window, or over the range), the stored field's suffix."""

    name: str
    fn: str
    suffix: str
    windowed: bool


def means_kept(shape: Layout) -> bool:
    """Whether a chart's points are each one window of a tier that keeps its windows' means."""
    return shape.every_s == shape.tier.step_s and shape.tier.name in MEANS_KEPT


def reads_last(shape: Layout, tail: bool) -> bool:
    """Whether a rollup read takes last() of sums and counts for the legend's current value: not where a point is
    one window (the newest point is it) or where raw samples after the newest window stand for it (`tail`)."""
    return shape.every_s != shape.tier.step_s and not tail


def reads_of(shape: Layout, detail: bool, piece: Piece) -> list[Read]:
    """What a piece reads: windows (mean or Σ sum and Σ count, maximum, minimum with `detail`) and figures (the
    range's Σ sum and Σ count where no windows give them, minimum, last() where needed, total)."""
    if piece.lowest:
        return [Read("lo", "min", "_min", False)]
    out, means = [], means_kept(shape)
    if piece.windows:
        if means:
            out.append(Read("wmean", "max", "_mean", True))  # the window's one stored mean
        else:
            out += [Read("wsum", "sum", "_sum", True), Read("wcount", "sum", "_count", True)]
        out.append(Read("wmax", "max", "_max", True))
        if detail:
            out.append(Read("wmin", "min", "_min", True))
    if not piece.figures:
        return out
    if means or not piece.windows:  # the range's Σ sum and Σ count, where no windows' sums give them
        out += [Read("ssum", "sum", "_sum", False), Read("scount", "sum", "_count", False)]
    out.append(Read("lo", "min", "_min", False))
    if reads_last(shape, piece.tail):
        out += [Read("lastsum", "last", "_sum", False), Read("lastcount", "last", "_count", False)]
    out.append(Read("total", "sum", "_total", False))  # templates with totals only
    return out
