"""What one poll's outcome writes and keeps, as the pollers do it: the one rule run.py and the live-path proof share.

A poll writes its samples with the poll's own record (its interval, which totals of its samples go by), and the
rollup windows those samples close once the device's write delay has passed; it keeps its new counters with the
windows still open. A failed poll writes its record and still closes what ended, keeping its last good counters."""

from __future__ import annotations

from dataclasses import dataclass

from collectors.batch import BatchOutcome
from collectors.lineprotocol import format_samples, series_key
from collectors.rollup import write_delay_s
from collectors.samples import CounterState
from monitor.polling.records import poller_sample
from monitor.timeseries.templates import ROLLUP_TOTALS


@dataclass
class Written:
    """A poll's raw lines, the lines of the rollup windows it closed ({tier: lines}), and the state to keep."""

    lines: list[str]
    closed: dict[str, list[str]]
    state: CounterState


def written(
    outcome: BatchOutcome, previous: CounterState | None, tick: int | None, interval_s: float, begun: float
) -> Written:
    """What `outcome` (polled at `interval_s` for `tick`, begun at `begun` or later) writes, after `previous`."""
    samples = [
        *(outcome.result.samples if outcome.result is not None else ()),
        poller_sample(outcome.key, outcome.result, tick, outcome.finished_at, interval_s),
    ]
    state = outcome.result.state if outcome.result is not None else previous or CounterState()
    if previous is not None:
        state.windows = previous.windows
    delay = write_delay_s(outcome.key, interval_s)  # half the fleet writes its windows a minute later
    closed = state.windows.take(samples, interval_s, begun, series_key, ROLLUP_TOTALS, delay)
    return Written(format_samples(samples), closed, state)
