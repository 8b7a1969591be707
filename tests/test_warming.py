"""Pages viewed lately are read again around each rollup window (monitor.graphs.warming): ahead of the moment pages
see a window, for the devices that have written it, so the first view after that moment finds every window in the
cache and reaches InfluxDB not at all, with the same numbers; only what moves with time is remembered, for
MONITOR_WARM_VIEWED_S, newest first."""

from __future__ import annotations

import time
from datetime import datetime, timezone
from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.http import QueryDict

from collectors.rollup import SPREAD_S, write_delay_s
from monitor.core import services
from monitor.graphs import viewed
from monitor.graphs.access import Access
from monitor.graphs.api import batch
from monitor.graphs.trees.models import AggregateGraph
from monitor.graphs.warming import WAIT_S, Run, pause, warm_viewed
from monitor.models import Device, Graph
from monitor.timeseries.cache import WRITE_GRACE_S
from tests.influxq import influx_queries
from tests.test_page_series import delete_raw, page  # noqa: F401 (page: a 16-port switch with 40 days of history)

pytestmark = pytest.mark.django_db


def moments() -> tuple[float, float, float]:
    """A 5-minute window's end, a run ahead of the moment pages see that window, and that moment: all in the past,
    so the page's history reaches them."""
    ended = (time.time() - WRITE_GRACE_S - 5) // 300 * 300
    return ended, ended + WRITE_GRACE_S - 30, ended + WRITE_GRACE_S


def writes_at(device, ended: float) -> float:
    """When the device's polls write the window that ended at `ended` (half the fleet a minute later)."""
    return ended + write_delay_s(str(device.pk), float(device.poll_interval_s))


def forget_runs() -> None:
    """Drop what earlier runs noted as read ahead (a test's windows may be those of the test before)."""
    redis = services.redis_client()
    for key in redis.scan_iter("monitor:warmed*"):
        redis.delete(key)


def polled(device, finished: float, took: float = 0.5) -> None:
    """The device's newest good poll: finished at `finished` (epoch seconds), after `took` seconds."""
    at = datetime.fromtimestamp(finished, timezone.utc)
    Device.objects.filter(pk=device.pk).update(last_poll_at=at, last_success_at=at, last_poll_duration_s=took)


def polled_last(device, finished: float) -> None:
    """The device's newest good poll at `finished`, and no sample of it after then. The page's history runs to the
    real now, past the moments these tests read as at; a tail kept as of a poll holds what that poll wrote, so one
    kept as at an earlier moment lacked samples after it, found by a cold read as at a later one."""
    polled(device, finished)
    delete_raw(device, finished + 1, time.time() + 3600)


def as_at(ask: list[tuple[str, str]], moment: float) -> dict:
    """The batch endpoint's answer to `ask` as at `moment`."""
    return batch(Access.server(), QueryDict(urlencode(ask)), datetime.fromtimestamp(moment, timezone.utc))


def empty_cache() -> None:
    """Drop the charts' cached windows and edges, as when the windows moved on (cache.clear() would empty the
    whole Redis database, the remembered views with it)."""
    redis = services.redis_client()
    for key in redis.scan_iter(f"{settings.CACHES['default']['KEY_PREFIX']}:*", count=1000):
        redis.delete(key)


def query(graphs, **extra) -> list[tuple[str, str]]:
    return [("graph", str(g.pk)) for g in graphs] + list(extra.items())


def test_a_page_read_ahead_of_its_window_is_cached_when_pages_see_the_window(admin_client, page, influx):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    forget_runs()
    ended, ahead, visible = moments()
    polled_last(page["device"], writes_at(page["device"], ended) + 30)  # its window to `ended` is written
    asks = {rng: query(page["graphs"], range=rng, points="300", p95="later", shape="columns") for rng in ("1d", "1y")}
    for ask in asks.values():  # viewed: remembered
        assert admin_client.get("/api/series", ask).status_code == 200

    empty_cache()
    figures = warm_viewed(now=ahead)  # read as at `visible`, the moment pages see the window to `ended`
    assert (figures["requests"], figures["waiting"], figures["failed"]) == (2, 0, 0)
    assert figures["graphs"] == 2 * len(page["graphs"])

    before = influx_queries(influx)
    warm = {rng: as_at(ask, visible) for rng, ask in asks.items()}
    assert influx_queries(influx) == before  # every window and every edge came from the cache
    figures = warm_viewed(now=visible)  # the run after: nothing left; every request as at the next window's end
    assert (figures["requests"], figures["next"]) == (0, 2)
    before = influx_queries(influx)
    turned = {rng: as_at(ask, ended + 301) for rng, ask in asks.items()}  # the ranges' starts have moved on
    assert influx_queries(influx) == before

    empty_cache()  # the control: without warming the same views read InfluxDB, and give the same answers
    assert {rng: as_at(ask, visible) for rng, ask in asks.items()} == warm
    assert {rng: as_at(ask, ended + 301) for rng, ask in asks.items()} == turned
    assert influx_queries(influx) > before
    assert len(warm["1d"]["graphs"]) == len(page["graphs"]) and warm["1d"]["graphs"] != warm["1y"]["graphs"]
    assert warm["1d"]["start"] != turned["1d"]["start"]


def test_a_page_whose_device_has_not_written_the_window_waits_for_the_run_after(admin_client, page, influx):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    forget_runs()
    ended, ahead, visible = moments()
    other = Device.objects.create(name="late-switch", host="127.0.0.2", community="x", poll_interval_s=60)
    late = Graph.objects.create(device=other, template="traffic", instance="p/1", title="late p/1")
    summed = AggregateGraph.objects.create(title="both switches", template="traffic")
    summed.members.set([page["graphs"][0], late])
    one = query(page["graphs"][:4], range="1d", points="300")
    both = [("aggregate", str(summed.pk)), ("range", "1d"), ("points", "300")]
    for ask in (one, both):
        assert admin_client.get("/api/series", ask).status_code == 200
    polled(other, ended - 40)  # not polled since the window's end

    written = writes_at(page["device"], ended)
    polled(page["device"], written + 0.8, took=1.0)  # its poll began before the window was due: not written
    figures = warm_viewed(now=ahead)
    assert (figures["requests"], figures["waiting"]) == (0, 2)
    polled(page["device"], written + 3, took=1.0)  # polled since: its page is read ahead, not the aggregate, whose
    # other member's device has not polled since the window's end
    figures = warm_viewed(now=ahead)
    assert (figures["requests"], figures["graphs"], figures["waiting"]) == (1, 4, 1)
    figures = warm_viewed(now=visible)  # the run after: what the run ahead left
    assert (figures["requests"], figures["graphs"], "waiting" in figures) == (1, 1, False)


def test_a_device_that_writes_its_windows_a_minute_later_is_read_ahead_only_once_it_has(admin_client, page):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    forget_runs()
    ended, ahead, _ = moments()
    for i in range(64):  # a device that writes a minute later (by its key: about one in two)
        late = Device.objects.create(name=f"spread-{i}", host="127.0.0.2", community="x", poll_interval_s=60)
        if write_delay_s(str(late.pk), 60.0) == SPREAD_S:
            break
    graph = Graph.objects.create(device=late, template="traffic", instance="p/1", title="late p/1")
    assert admin_client.get("/api/series", query([graph], range="1d", points="300")).status_code == 200
    polled(late, ended + 30)  # polled since the window's end, but it writes that window a minute later
    figures = warm_viewed(now=ahead)
    assert (figures["requests"], figures["waiting"]) == (0, 1)
    polled(late, ended + SPREAD_S + 3, took=1.0)  # the poll that wrote it
    figures = warm_viewed(now=ahead)
    assert (figures["requests"], figures["graphs"], figures["waiting"]) == (1, 1, 0)


def test_only_ranges_that_move_with_time_are_remembered_and_only_for_a_while(admin_client, page, settings):  # noqa: F811
    redis = services.redis_client()
    redis.delete(viewed.KEY)
    graphs = page["graphs"][:3]
    now = int(time.time())
    admin_client.get("/api/series", query(graphs, start=str(now - 86400), end=str(now - 60)))
    admin_client.get("/api/series", query(graphs, start="now-1d", end=str(now)))
    assert redis.zcard(viewed.KEY) == 0  # a range ending at a fixed instant: its answer never changes
    admin_client.get("/api/series", query(graphs, start="now-6h"))
    admin_client.get("/api/series", query(graphs, range="1w", points="300", _="1764000000"))
    admin_client.get("/api/series", query(graphs, range="1d", points="300"))
    found = viewed.recent()
    assert [q.get("range") or q.get("start") for q in found] == ["1d", "1w", "now-6h"]  # newest first
    assert "_" not in found[1] and found[1].getlist("graph") == [str(g.pk) for g in graphs]

    assert viewed.recent(now=time.time() + settings.MONITOR_WARM_VIEWED_S + 1) == []  # forgotten after the while
    assert redis.zcard(viewed.KEY) == 0

    settings.MONITOR_WARM_VIEWED_S = 0  # off: nothing remembered, nothing warmed
    admin_client.get("/api/series", query(graphs, range="1d"))
    assert redis.zcard(viewed.KEY) == 0


def test_a_run_reads_the_newest_requests_up_to_its_limit_and_skips_one_that_fails(admin_client, page, settings):  # noqa: F811
    redis = services.redis_client()
    redis.delete(viewed.KEY)
    graphs = page["graphs"]
    for points in ("100", "200", "300"):
        admin_client.get("/api/series", query(graphs[:2], range="1d", points=points))
    gone = QueryDict(mutable=True)
    gone.setlist("graph", ["999999"])
    gone["range"] = "1d"
    bad = QueryDict("graph=1&range=forever")
    redis.zadd(viewed.KEY, {gone.urlencode(): time.time() + 1, bad.urlencode(): time.time() + 2})

    settings.MONITOR_WARM_MAX_REQUESTS = 4
    forget_runs()
    figures = warm_viewed(now=moments()[2])
    # The newest four: the refused range, the deleted graph (answered with an error, read as nothing), 300 and 200;
    # then, as at the next window's end, those whose devices have written the window: the deleted graph's.
    seconds = pytest.approx(figures["seconds"])
    assert figures == {"requests": 3, "next": 1, "graphs": 4, "failed": 1, "seconds": seconds}


def test_a_run_stops_at_its_budget_and_says_how_many_requests_it_left(admin_client, page, settings):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    for points in ("100", "200", "300"):
        admin_client.get("/api/series", query(page["graphs"][:2], range="1d", points=points))
    settings.MONITOR_WARM_BUDGET_S = 0  # spent before the first request: the next run's pages read when viewed
    forget_runs()
    figures = warm_viewed(now=moments()[2])
    assert (figures["requests"], figures["graphs"], figures["left"]) == (0, 0, 3)
    settings.MONITOR_WARM_BUDGET_S = 150
    figures = warm_viewed(now=moments()[2])
    assert (figures["requests"], figures["graphs"], "left" in figures) == (3, 6, False)


def test_beat_runs_the_warming_ahead_of_each_5_minute_window_once_pages_see_it_and_after(settings):
    from monitor.celery import app

    names = ("graphs-warm-ahead", "graphs-warm-viewed", "graphs-warm-since")
    ahead, after, since = (settings.CELERY_BEAT_SCHEDULE[name] for name in names)
    assert WRITE_GRACE_S > 120  # two minutes after the window, pages still see the one before
    assert ahead["schedule"].minute == {m for m in range(60) if m % 5 == 1}  # one run, looking again as devices write
    assert after["schedule"].minute == {m for m in range(60) if m % 5 == WRITE_GRACE_S // 60}
    assert since["schedule"].minute == {m for m in range(60) if m % 5 == 4}
    assert since["options"]["expires"] < 60  # a run late by a minute would be the next one's
    app.loader.import_default_modules()
    assert ahead["task"] == after["task"] == since["task"] and after["task"] in app.tasks


def test_a_page_first_viewed_after_the_run_is_read_as_at_the_next_window_by_a_run_after_it(admin_client, page, influx):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    forget_runs()
    ended, _, visible = moments()
    polled_last(page["device"], writes_at(page["device"], ended) + 30)
    early = query(page["graphs"][:6], range="1d", points="300", shape="columns")
    assert admin_client.get("/api/series", early).status_code == 200
    figures = warm_viewed(now=visible)  # the run once pages see the window: the page viewed before it
    assert (figures["requests"], figures["next"]) == (1, 1)

    late = query(page["graphs"], range="1d", points="300", p95="later", shape="columns")  # opened after that run
    assert admin_client.get("/api/series", late).status_code == 200
    figures = warm_viewed(now=visible + 60)  # a run after it reads only what no run has
    assert (figures["requests"], figures["next"], figures["graphs"]) == (1, 1, len(page["graphs"]))
    figures = warm_viewed(now=visible + 90)  # and the next run nothing
    assert (figures["requests"], figures["next"]) == (0, 0)

    before = influx_queries(influx)
    turned = as_at(late, ended + 301)  # the range's start has moved on: read ahead, so cached
    assert influx_queries(influx) == before
    empty_cache()
    assert as_at(late, ended + 301) == turned  # the same numbers as read cold
    assert influx_queries(influx) > before


def test_a_run_ahead_stops_looking_for_devices_once_every_device_polled_each_minute_has_written_the_window():
    forget_runs()
    ended, _, visible = moments()
    down = Device.objects.create(name="down-switch", host="127.0.0.2", community="x", poll_interval_s=60)
    graph = Graph.objects.create(device=down, template="traffic", instance="p/1", title="down p/1")
    polled(down, ended - 40)  # not polled since the window's end: not answering
    params = QueryDict(mutable=True)
    params.setlist("graph", [str(graph.pk)])
    params["range"] = "1d"
    run = Run(time.monotonic(), visible - 10, paced=True)  # reading ahead as at the next window's end, 2 minutes off
    began = time.monotonic()
    assert run.ahead([params], ended + 301, "next", claim="monitor:warmed-test") == [params]
    assert time.monotonic() - began < WAIT_S  # not a look every 5 s until its deadline, holding a worker process


def test_the_run_ahead_rests_as_long_as_each_read_took_unless_that_would_miss_its_deadline():
    assert pause([0.2], remaining=10, until_deadline=30.0) == 0.2  # room: at most half of a core's time
    assert pause([0.2], remaining=10, until_deadline=3.0) == pytest.approx((3.0 - 10 * 0.2) / 11)  # less room
    assert pause([0.5, 0.1], remaining=10, until_deadline=3.0) == 0.0  # at the pace so far the rest ends late
    assert pause([0.2], remaining=0, until_deadline=-1.0) == 0.0  # past the deadline: read on
    assert pause([], remaining=5, until_deadline=30.0) == 0.0


def test_a_remembered_request_naming_no_valid_id_is_counted_as_failed_not_the_end_of_the_run(page):  # noqa: F811
    redis = services.redis_client()
    redis.delete(viewed.KEY)
    forget_runs()
    ended, ahead, _ = moments()
    polled(page["device"], writes_at(page["device"], ended) + 30)
    good = QueryDict(mutable=True)
    good.setlist("graph", [str(page["graphs"][0].pk)])
    good["range"] = "1d"
    odd = QueryDict(mutable=True)
    odd.setlist("graph", ["²", "9" * 30])  # isdigit() says yes to both; neither is a row id
    odd["range"] = "1d"
    redis.zadd(viewed.KEY, {good.urlencode(): time.time(), odd.urlencode(): time.time() + 1})
    figures = warm_viewed(now=ahead)
    assert (figures["requests"], figures["failed"], figures["waiting"]) == (1, 1, 0)
