"""Play scenarios' polls through the product's own poll path on a controlled clock, and write what the pollers write.

Each poll is `collectors.poll.poll_device` against the scenario agent, its clock the poll's moment; its outcome goes
through `monitor.polling.written.written` (the poller's own rule: samples, the poll's record, windows closed after
the device's write delay) with the counters kept in the product's counter store between polls, as the pollers keep
them. Polls of different devices due by a moment run concurrently, a round at a time; raw lines older than what the
raw bucket still holds at the first read (`raw_from`) are left out, as InfluxDB would have deleted them.

The harness is the outer edge here, and it must not lose what the scenario says happened: a poll the scenario answers
that the agent did not answer in time, wholly or a table of it (a loaded machine), is asked again, at the same
moment, before anything is written; a write InfluxDB did not take stops the batch (the model assumes every line
landed)."""

from __future__ import annotations

import asyncio
import math
from datetime import datetime, timezone
from itertools import pairwise

from django.conf import settings

from collectors.batch import BatchOutcome
from collectors.influx import WriteResult
from collectors.poll import poll_device
from collectors.snmptypes import SnmpError, SnmpTarget, SnmpTimeout
from monitor.core import aio, services
from monitor.polling.written import written
from tests.model.scenario import Poll, Scenario
from tests.proof.agent import ScenarioAgent, profile_of

ASKS = 4  # tries of an answered poll before the harness gives up on its own agent
ENGINE = "fast"  # the lean engine (collectors/fastsnmp.py): the counter maths are the same on both, it costs less


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


def _short(outcome: BatchOutcome) -> bool:
    """Whether a poll the scenario answers in full came back short: no answer in time, or a walk of its interfaces
    or of a profile table timed out part way (the agent serves every object of a scenario, and nothing it serves is
    an error)."""
    return outcome.result is None or bool(outcome.result.errors)


class Player:
    """Plays `scenarios` (device ids are their keys) in time order up to each moment it is asked for."""

    def __init__(self, scenarios: list[Scenario], agent: ScenarioAgent, writer, raw_from: float):
        self.scenarios = {s.key: s for s in scenarios}
        self.profiles = {s.key: profile_of(s) for s in scenarios}
        self.agent, self.writer, self.raw_from = agent, writer, raw_from
        self.next = dict.fromkeys(self.scenarios, 0)
        self.store = services.counter_store()
        self.polls = 0
        self.asked_again = 0  # answered polls the agent was too slow for, asked again

    def play_until(self, until: float) -> None:
        """Every poll before `until` not played yet, then their lines written (a poll takes time: one begun at a
        read's very moment has not written its samples by then)."""
        lines: dict[str, list[str]] = {"raw": [], "5m": [], "1h": []}
        while True:
            due = [(key, s.polls[self.next[key]]) for key, s in self.scenarios.items() if self._due(key, until)]
            if not due:
                break
            states = self.store.load_many([key for key, _ in due])
            for key, poll in due:
                self.agent.at(key, poll.t, poll.answered)
            outcomes = aio.run(self._poll_all(due, states))
            for tries in range(1, ASKS):
                late = [i for i, (_, poll) in enumerate(due) if poll.answered and _short(outcomes[i])]
                if not late:
                    break
                self.asked_again += len(late)
                again = aio.run(self._poll_all([due[i] for i in late], states, patience=2.0 * tries))
                for i, outcome in zip(late, again, strict=True):
                    outcomes[i] = outcome
            pairs = zip(due, outcomes, strict=True)
            lost = [(key, o.error or o.result.errors) for (key, poll), o in pairs if poll.answered and _short(o)]
            assert not lost, f"harness: the scenario agent did not answer polls it should have: {lost[:3]}"
            kept = {}
            for (key, poll), outcome in zip(due, outcomes, strict=True):
                done = written(outcome, states[key], math.floor(poll.t), poll.interval_s, float(math.floor(poll.t)))
                kept[key] = done.state
                if poll.t >= self.raw_from:
                    lines["raw"] += done.lines
                for tier, more in done.closed.items():
                    lines[tier] += more
                self.next[key] += 1
            self.store.save_many(kept)
            self.polls += len(due)
        for tier, batch in lines.items():
            result = self.writer.write_lines(batch, tier)
            assert result is WriteResult.WRITTEN, f"harness: {len(batch)} {tier} lines {result.value}, not written"

    def _due(self, key: str, until: float) -> bool:
        polls = self.scenarios[key].polls
        return self.next[key] < len(polls) and polls[self.next[key]].t < until

    async def _poll_all(self, due: list[tuple[str, Poll]], states: dict, patience: float = 1.0) -> list[BatchOutcome]:
        return list(await asyncio.gather(*(self._poll(key, poll, states[key], patience) for key, poll in due)))

    async def _poll(self, key: str, poll: Poll, previous, patience: float = 1.0) -> BatchOutcome:
        """One poll as the poller makes it (an unanswered one times out fast: nothing answers it anyway)."""
        timeout, retries = (3.0 * patience, 1) if poll.answered else (0.02, 0)
        target = SnmpTarget(
            "127.0.0.1", self.agent.port, community=self.agent.community(key), timeout=timeout, retries=retries
        )
        profile = self.profiles[key]
        try:
            result = await poll_device(
                target,
                key,
                previous,
                profile=profile,
                tolerance=settings.MONITOR_LINE_RATE_TOLERANCE,
                engine=ENGINE,
                clock=lambda: poll.t,
                interval_s=poll.interval_s,
            )
        except SnmpError as exc:
            return BatchOutcome(key, None, str(exc), finished_at=poll.t, silent=isinstance(exc, SnmpTimeout))
        return BatchOutcome(key, result, profile=profile, finished_at=poll.t)

    def set_rows(self, moment: float) -> None:
        """Every device's row as its newest poll before `moment` left it: when it last polled and answered, and the
        interval in force. An interval change is made right after the last poll at the old interval (the scheduler
        would have polled again at it otherwise): from then on the row holds the new interval, the old one and when
        it changed."""
        from monitor.models import Device

        for key, scenario in self.scenarios.items():
            begun = [p for p in scenario.polls if p.t < moment]
            newest = begun[-1] if begun else None
            answered = [p for p in begun if p.answered]
            coming = next((p for p in scenario.polls if p.t >= moment), None)
            interval = (coming or newest).interval_s
            known = [*begun, coming] if coming is not None else begun
            changes = [a for a, b in pairwise(known) if a.interval_s != b.interval_s]
            previous = changes[-1] if changes else None
            Device.objects.filter(pk=int(key)).update(
                previous_poll_interval_s=previous.interval_s if previous else None,
                poll_interval_changed_at=at(previous.t) if previous else None,
                poll_interval_s=interval,
                last_poll_at=at(newest.t) if newest else None,
                last_success_at=at(answered[-1].t) if answered else None,
                last_poll_duration_s=0.0 if newest else None,
            )
