"""Pages viewed lately are read again after each rollup window (monitor.graphs.warming): their next view finds
every window in the cache and reaches InfluxDB not at all, with the same numbers; only what moves with time is
remembered, for MONITOR_WARM_VIEWED_S, newest first."""

from __future__ import annotations

import time

import pytest
from django.conf import settings
from django.http import QueryDict
from django.utils import timezone as dj_timezone

from monitor.core import services
from monitor.graphs import viewed
from monitor.graphs.warming import warm_viewed
from monitor.models import Device
from monitor.timeseries.cache import WRITE_GRACE_S
from tests.test_bad_input import influx_queries
from tests.test_page_series import page  # noqa: F401 (fixture: a 16-port switch with 40 days of history)

pytestmark = pytest.mark.django_db


def clear_of_a_window() -> None:
    """Wait out the seconds around the moment a newer 5-minute window becomes readable (its end + grace), so a warm
    read and the view after it fall on the same side."""
    while (time.time() - WRITE_GRACE_S) % 300 > 270 or (time.time() - WRITE_GRACE_S) % 300 < 2:
        time.sleep(1)


def empty_cache() -> None:
    """Drop the charts' cached windows and edges, as when the windows moved on (cache.clear() would empty the
    whole Redis database, the remembered views with it)."""
    redis = services.redis_client()
    for key in redis.scan_iter(f"{settings.CACHES['default']['KEY_PREFIX']}:*", count=1000):
        redis.delete(key)


def query(graphs, **extra) -> list[tuple[str, str]]:
    return [("graph", str(g.pk)) for g in graphs] + list(extra.items())


def test_a_viewed_page_is_read_again_and_its_next_view_reaches_influxdb_not_at_all(admin_client, page, influx):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    Device.objects.filter(pk=page["device"].pk).update(last_poll_at=dj_timezone.now())  # its tail cached by poll
    clear_of_a_window()
    asks = {
        rng: query(page["graphs"], range=rng, points="300", p95=p95, shape="columns")
        for rng, p95 in (("1d", "later"), ("1y", "later"))
    }
    first = {rng: admin_client.get("/api/series", ask).json() for rng, ask in asks.items()}
    assert all(len(data["graphs"]) == len(page["graphs"]) for data in first.values())

    empty_cache()
    figures = warm_viewed()
    assert figures["requests"] == 2 and figures["failed"] == 0 and figures["graphs"] == 2 * len(page["graphs"])

    before = influx_queries(influx)
    again = {rng: admin_client.get("/api/series", ask).json() for rng, ask in asks.items()}
    assert influx_queries(influx) == before  # every window and every edge came from the cache
    for rng in asks:  # the same windows (the first point, at the range's start, moved on with the clock)
        for key, data in first[rng]["graphs"].items():
            for mine, theirs in zip(again[rng]["graphs"][key]["series"], data["series"], strict=True):
                assert {n: c[1:] for n, c in mine["cols"].items()} == {n: c[1:] for n, c in theirs["cols"].items()}
                assert mine["stats"]["maximum"] == theirs["stats"]["maximum"], (rng, key)

    empty_cache()  # the control: without warming the same views read InfluxDB
    admin_client.get("/api/series", asks["1d"])
    assert influx_queries(influx) > before


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
    figures = warm_viewed()
    # The newest four: the refused range, the deleted graph (answered with an error, read as nothing), 300 and 200.
    assert figures == {"requests": 3, "graphs": 4, "failed": 1, "seconds": pytest.approx(figures["seconds"])}


def test_a_run_stops_at_its_budget_and_says_how_many_requests_it_left(admin_client, page, settings):  # noqa: F811
    services.redis_client().delete(viewed.KEY)
    for points in ("100", "200", "300"):
        admin_client.get("/api/series", query(page["graphs"][:2], range="1d", points=points))
    settings.MONITOR_WARM_BUDGET_S = 0  # spent before the first request: the next run's pages read when viewed
    figures = warm_viewed()
    assert (figures["requests"], figures["graphs"], figures["left"]) == (0, 0, 3)
    settings.MONITOR_WARM_BUDGET_S = 150
    figures = warm_viewed()
    assert (figures["requests"], figures["graphs"], "left" in figures) == (3, 6, False)


def test_beat_runs_a_registered_warming_task_just_after_each_5_minute_window_is_written(settings):
    from monitor.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["graphs-warm-viewed"]
    assert entry["schedule"].minute == {m for m in range(60) if m % 5 == WRITE_GRACE_S // 60}
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks
