"""A page's graphs in one request (GET /api/series): one query per tier however many graphs, percentiles from
rollups in a second request, long ranges cached until a newer window lands, bad requests refused clearly."""

from __future__ import annotations

import time
from datetime import datetime
from datetime import timezone as dt_timezone

import pytest
from django.utils import timezone

from monitor.graphs.trees.models import Tree, TreeNode, place_device
from monitor.models import Device, Graph
from monitor.timeseries.cache import HOUR_GRACE_S
from monitor.timeseries.history import HistoryWriter
from tests.influxq import influx_queries, influx_quiet
from tests.tsbuckets import port_polls

pytestmark = pytest.mark.django_db
PORTS = 16
DAY = 86400


@pytest.fixture
def page(clean_backends, tmp_path):
    """A 16-port switch with 40 days of history (rollups only past the raw bucket's two weeks), polled every 60 s."""
    from monitor.core import services

    device = Device.objects.create(name="page-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    graphs = []
    for port in range(1, PORTS + 1):
        for slug in ("traffic", "errors"):
            graphs.append(
                Graph.objects.create(device=device, template=slug, instance=f"p/{port}", title=f"{slug} {port}")
            )
    history = HistoryWriter(services.influx_writer())
    now = time.time() // 60 * 60
    for port in range(1, PORTS + 1):
        rate = port * 1e6
        old = [now - 40 * DAY + 300 * i for i in range(38 * 288)]
        port_polls(
            history, str(device.pk), f"p/{port}", old, lambda t, r=rate: r * (1 + (t % 3600) / 3600), 300, raw=False
        )
        recent = [now - 2 * DAY + 60 * i for i in range(2 * 1440)]
        wave = lambda t, r=rate: r * (1 + (t % 3600) / 3600)  # noqa: E731
        port_polls(history, str(device.pk), f"p/{port}", recent, wave, 60, spans=True)  # as the pollers write now
        port_polls(history, str(device.pk), f"p/{port}", recent, lambda t: 0.5, 60, field="in_errors")
    history.close(now)
    assert history.failed == 0
    return {"device": device, "graphs": graphs}


def same(mine: dict, theirs: dict) -> bool:
    """The same legend: the same figures present, equal to rounding."""
    assert mine.keys() == theirs.keys()
    return all((mine[k] is None) == (theirs[k] is None) for k in mine) and {
        k: v for k, v in mine.items() if v is not None
    } == pytest.approx({k: v for k, v in theirs.items() if v is not None}, rel=1e-9)


def batch(client, graphs, **query):
    params = [("graph", str(g.pk)) for g in graphs] + list(query.items())
    response = client.get("/api/series", params)
    assert response.status_code == 200, response.content[:300]
    return response.json()


def test_a_page_of_graphs_is_one_query_and_its_numbers_are_the_single_graph_apis(admin_client, page, influx):
    before = influx_queries(influx)
    # 360 points: a 240-s step, finer than the 5-minute windows, so raw samples (300 points would read the windows).
    window = {"start": str(int(time.time()) - DAY + 7), "end": str(int(time.time()) - 7), "points": "360"}
    data = batch(admin_client, page["graphs"], **window)
    assert influx_queries(influx) - before == 2  # every graph's points and legend; then their percentiles
    assert data["errors"] == {} and len(data["graphs"]) == 2 * PORTS
    traffic = next(g for g in page["graphs"] if g.template == "traffic" and g.instance == "p/5")
    alone = admin_client.get(f"/api/graphs/{traffic.pk}/series", window).json()
    together = data["graphs"][str(traffic.pk)]
    for mine, single in zip(together["series"], alone["series"], strict=True):
        assert same(mine["stats"], single["stats"])  # the same legend, percentile included
        assert [v for p in mine["points"] for v in p[2:]] == pytest.approx([v for p in single["points"] for v in p[2:]])
        assert all(p[1] is None for p in mine["points"])  # a page draws means and maxima: minima stay home
        assert all(p[1] is not None for p in single["points"])
    assert together["p95_source"] == "raw samples"
    errors = data["graphs"][str(next(g for g in page["graphs"] if g.template == "errors").pk)]
    assert errors["p95_source"] is None and errors["series"][0]["stats"]["p95"] is None  # no p95 of error counts
    assert errors["series"][0]["stats"]["average"] == pytest.approx(0.5)


def test_a_year_defers_its_percentiles_and_is_kept_until_a_newer_window(admin_client, page, influx):
    traffic = [g for g in page["graphs"] if g.template == "traffic"]
    before = influx_quiet(influx)
    first = batch(admin_client, traffic, range="1y", p95="later")
    assert influx_queries(influx) - before == 2  # one read of the hourly tier for every graph, one of raw since
    for data in first["graphs"].values():
        assert data["tier"] == "1h" and data["p95_pending"] and data["p95_source"] == "5-minute means"
        assert data["series"][0]["stats"]["p95"] is None and data["series"][0]["stats"]["average"] > 0
    again = influx_quiet(influx)
    assert batch(admin_client, traffic, range="1y", p95="later")["graphs"] == first["graphs"]
    assert influx_queries(influx) == again + 1  # the hourly tier's windows cached: only the samples since are read
    percentiles = batch(admin_client, traffic, range="1y", p95="only")
    assert influx_queries(influx) - again == 3  # a bound from hourly minima, then the means above it
    single = admin_client.get(f"/api/graphs/{traffic[4].pk}/series", {"range": "1y"}).json()
    found = percentiles["graphs"][str(traffic[4].pk)]["series"][0]["stats"]["p95"]
    assert found == pytest.approx(single["series"][0]["stats"]["p95"]) and found > 5e6
    cached = influx_quiet(influx)
    assert batch(admin_client, traffic, range="1y", p95="only")["graphs"] == percentiles["graphs"]
    assert influx_queries(influx) == cached


def test_bad_batches_are_refused_with_a_message(admin_client, page, django_user_model, client):
    graph = page["graphs"][0]
    cases = [
        ({}, "name at least one graph"),
        ({"graph": "abc"}, "is not an id"),
        ({"graph": str(graph.pk), "p95": "sometimes"}, "p95 must be one of"),
        ({"graph": str(graph.pk), "range": "2h"}, "is not one of"),
        ({"graph": str(graph.pk), "unit": "furlongs"}, "is not available"),
        ({"graph": str(graph.pk), "shape": "rows"}, "shape must be one of points, columns"),
    ]
    for query, message in cases:
        response = admin_client.get("/api/series", query)
        assert response.status_code == 400 and message in response.json()["error"], (query, response.content)
    too_many = [("graph", str(i)) for i in range(1, 302)]
    assert admin_client.get("/api/series", too_many).status_code == 400
    unknown = batch(admin_client, [graph], graph="999999")
    assert unknown["errors"] == {"graph:999999": "no such graph"} and str(graph.pk) in unknown["graphs"]
    outsider = django_user_model.objects.create_user("outsider", password="s3cret-pass-123")
    client.force_login(outsider)  # reads no tree: the graph is as unknown to them as one that does not exist
    hidden = client.get("/api/series", {"graph": str(graph.pk)}).json()
    assert hidden == {**hidden, "graphs": {}, "errors": {f"graph:{graph.pk}": "no such graph"}}
    tree = Tree.objects.create(name="Page")
    place_device(page["device"], TreeNode.objects.create(tree=tree, kind="header", title="Switches"))
    tree.read_users.add(outsider)
    assert str(graph.pk) in client.get("/api/series", {"graph": str(graph.pk)}).json()["graphs"]
    assert client.get("/api/series", {"graph": str(graph.pk)}).status_code == 200
    client.logout()
    assert client.get("/api/series", {"graph": str(graph.pk)}).status_code == 401


def test_a_day_on_a_page_reads_the_five_minute_windows_and_keeps_every_peak(admin_client, page):
    """A chart of 592 px asks for 296 points (a 292-s step): it gets 288 five-minute windows, 3 % fewer points,
    cached, and each window's maximum is the largest raw sample in it."""
    traffic = next(g for g in page["graphs"] if g.template == "traffic" and g.instance == "p/3")
    window = {"start": str(int(time.time()) - DAY), "end": str(int(time.time())), "points": "296"}
    snapped = batch(admin_client, [traffic], **window)["graphs"][str(traffic.pk)]
    raw = admin_client.get(f"/api/graphs/{traffic.pk}/series", {**window, "points": "1440"}).json()
    assert snapped["tier"] == "5m" and raw["tier"] == "raw"
    assert 288 <= len(snapped["series"][0]["points"]) <= 290
    peak = max(p[3] for p in raw["series"][0]["points"] if p[3] is not None)
    assert max(p[3] for p in snapped["series"][0]["points"] if p[3] is not None) == pytest.approx(peak)
    assert snapped["series"][0]["stats"]["maximum"] == pytest.approx(raw["series"][0]["stats"]["maximum"])


def test_a_page_gets_its_points_as_columns(admin_client, page):
    """`shape=columns`: each series' points as lists of times, means and maxima, the rows' numbers to 5 significant
    digits (what a chart can draw: monitor.graphs.api.drawn), the legends the same."""
    graphs, now = page["graphs"][:10], int(time.time())
    for span in (DAY, 365 * DAY, 6 * 3600):  # a day and a year from rollup windows, 6 hours from raw samples
        window = {"start": str(now - span), "end": str(now), "points": "300"}
        rows = batch(admin_client, graphs, p95="later", **window)
        cols = batch(admin_client, graphs, p95="later", shape="columns", **window)
        assert rows["graphs"].keys() == cols["graphs"].keys()
        for key, data in rows["graphs"].items():
            for mine, theirs in zip(cols["graphs"][key]["series"], data["series"], strict=True):
                assert "points" not in mine and mine["stats"] == theirs["stats"], window
                assert mine["cols"]["t"] == [p[0] for p in theirs["points"]]
                assert mine["cols"]["mean"] == pytest.approx([p[2] for p in theirs["points"]], rel=5e-5, abs=0)
                assert mine["cols"]["max"] == pytest.approx([p[3] for p in theirs["points"]], rel=5e-5, abs=0)
        assert any(s["cols"]["t"] for g in cols["graphs"].values() for s in g["series"])


def test_a_devices_newest_samples_are_read_once_per_poll(admin_client, page, influx):
    """The raw samples after the newest window are read for the whole device at once and kept until the device's
    next poll: the other requests of its page read none, and the next poll's sample shows at once."""
    from monitor.core import services

    device, traffic = page["device"], [g for g in page["graphs"] if g.template == "traffic"]
    Device.objects.filter(pk=device.pk).update(last_poll_at=timezone.now())
    batch(admin_client, traffic[:10], range="1d", points="300", p95="later", shape="columns")  # more than a screen
    before = influx_queries(influx)
    batch(admin_client, traffic[10:], range="1d", points="300", p95="later", shape="columns")
    assert influx_queries(influx) - before == 1  # their windows; the device's edges were read with the first
    again = influx_queries(influx)
    shown = batch(admin_client, traffic[10:], range="1d", points="300", p95="later", shape="columns")
    assert influx_queries(influx) == again  # windows and edges cached: nothing read
    port = traffic[10]
    assert shown["graphs"][str(port.pk)]["series"][0]["stats"]["current"] != pytest.approx(123e6)
    history = HistoryWriter(services.influx_writer())
    port_polls(history, str(device.pk), port.instance, [time.time() - 1], lambda t: 123e6, 60)
    history.close(time.time() - 1)
    Device.objects.filter(pk=device.pk).update(last_poll_at=timezone.now())  # the poll's row, after its samples
    fresh = batch(admin_client, traffic[10:], range="1d", points="300", p95="later", shape="columns")
    assert fresh["graphs"][str(port.pk)]["series"][0]["stats"]["current"] == pytest.approx(123e6)


def test_a_first_screen_reads_its_own_graphs_tails_and_the_page_the_devices(admin_client, page, influx):
    began = time.time()
    device = page["device"]
    device.last_poll_at = timezone.now()  # polled: its newest samples are cached by poll
    device.save(update_fields=["last_poll_at"])
    first_screen, request = page["graphs"][:6], page["graphs"][:20]
    query = {"range": "1y", "p95": "later", "shape": "columns"}
    before = influx_queries(influx)
    alone = batch(admin_client, first_screen, **query)
    assert influx_queries(influx) - before == 2  # their hourly windows; the hour since, of their series only
    before = influx_queries(influx)
    batch(admin_client, first_screen, **query)
    assert influx_queries(influx) - before == 1  # windows cached; a first screen's own tails are not
    before = influx_queries(influx)
    together = batch(admin_client, request, **query)
    assert influx_queries(influx) - before == 2  # 14 more graphs' windows; the whole device's hour, cached
    before = influx_queries(influx)
    batch(admin_client, first_screen, **query)
    assert influx_queries(influx) - before == 0
    for graph in first_screen:
        mine, theirs = alone["graphs"][str(graph.pk)], together["graphs"][str(graph.pk)]
        assert mine["series"] == theirs["series"]
    traffic = alone["graphs"][str(first_screen[0].pk)]["series"][0]
    assert 1e6 <= traffic["stats"]["current"] <= 2e6  # port 1's newest sample (1 Mbit/s, rising over the hour)
    hour_ends = {(moment - HOUR_GRACE_S) // 3600 * 3600 * 1000 for moment in (began, time.time())}
    every = alone["graphs"][str(first_screen[0].pk)]["resolution_s"] * 1000
    # the samples since the newest hourly window (seen 7 min after it) are in the point of their grid interval
    assert traffic["cols"]["t"][-1] in {end - end % every for end in hour_ends}


@pytest.fixture
def hour_tail(clean_backends):
    """A switch's port polled every 60 s for 3 hours up to 50 minutes into an hour, at 2 Mbit/s but for its last
    15 minutes at 5 Mbit/s; pages read it as at that moment (its year chart ends with the hour before)."""
    from monitor.core import services

    device = Device.objects.create(name="tail-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    graphs = [
        Graph.objects.create(device=device, template="traffic", instance=f"p/{port}", title=f"traffic {port}")
        for port in range(1, 10)  # more than a first screen: the request reads and keeps the device's tail
    ]
    hour = (time.time() // 3600 - 2) * 3600
    at = hour + 50 * 60
    history = HistoryWriter(services.influx_writer())
    times = [hour - 3 * 3600 + 60 * i for i in range(3 * 60 + 50)]
    port_polls(history, str(device.pk), "p/1", times, lambda t: 5e6 if t >= at - 15 * 60 else 2e6, 60)
    history.close(at)
    rates = {t: 5e6 if t >= at - 15 * 60 else 2e6 for t in times}
    return {"device": device, "graphs": graphs, "at": at, "hour": hour, "history": history, "rates": rates}


def year_tail(fixture: dict, at: float, polled: float | None = None) -> dict:
    """The year chart's last point (the raw samples after its newest hourly window) and legend, read as at `at`
    after a poll of the device at `polled` (default `at`)."""
    from django.http import QueryDict

    from monitor.graphs.access import Access
    from monitor.graphs.api import batch as read_batch

    when = datetime.fromtimestamp(at, dt_timezone.utc)
    poll = datetime.fromtimestamp(at if polled is None else polled, dt_timezone.utc)
    Device.objects.filter(pk=fixture["device"].pk).update(last_poll_at=poll)
    graphs = "".join(f"graph={graph.pk}&" for graph in fixture["graphs"])
    params = QueryDict(f"{graphs}range=1y&points=300&p95=later&shape=columns")
    series = read_batch(Access.server(), params, when)["graphs"][str(fixture["graphs"][0].pk)]["series"][0]
    cols = series["cols"]
    every = read_batch(Access.server(), params, when)["graphs"][str(fixture["graphs"][0].pk)]["resolution_s"]
    return {
        "t": cols["t"][-1],
        "mean": cols["mean"][-1],
        "max": cols["max"][-1],
        "current": series["stats"]["current"],
    } | {"slot": cols["t"][-1] // 1000 // every * every}


def in_slot(fixture: dict, read: dict, until: float, since: float | None = None) -> list[float]:
    """The planted rates of the chart's last grid interval (from its start, or `since`) up to `until`: its point
    holds every sample there, from the hourly windows and from the raw tail alike."""
    first = read["slot"] if since is None else since
    return [rate for t, rate in sorted(fixture["rates"].items()) if first <= t < until]


def poll_once(fixture: dict, at: float, rate: float) -> None:
    port_polls(fixture["history"], str(fixture["device"].pk), "p/1", [at], lambda t: rate, 60)
    fixture["history"].flush()
    fixture["rates"][at] = rate


def delete_raw(device: Device, since: float, until: float) -> None:
    """The device's raw samples between two moments (epoch seconds), gone from InfluxDB."""
    from django.conf import settings

    from monitor.timeseries import tiers
    from monitor.timeseries.client import connect

    with connect(10_000) as client:
        client.delete_api().delete(
            datetime.fromtimestamp(since, dt_timezone.utc),
            datetime.fromtimestamp(until, dt_timezone.utc),
            f'device="{device.pk}"',
            bucket=tiers.tiers()[0].bucket,
            org=settings.INFLUXDB_ORG,
        )


def test_a_devices_tail_is_kept_and_only_its_newest_samples_read_at_each_poll(hour_tail):
    """After a poll, the kept tail gets the samples since its newest one (from two intervals before it): samples
    older than that are not read again (deleted here, they still show) until the tail is read in full."""
    from django.core.cache import cache

    at = hour_tail["at"]
    first = year_tail(hour_tail, at - 1)
    before = in_slot(hour_tail, first, at - 1)
    assert first["mean"] == pytest.approx(sum(before) / len(before))  # 2 Mbit/s, and the last 15 minutes' 5
    hour = at - 50 * 60
    delete_raw(hour_tail["device"], hour - 600, at - 5 * 60)  # the raw samples of the hour's first 45 minutes
    poll_once(hour_tail, at, 7e6)
    kept = year_tail(hour_tail, at)
    assert kept["current"] == pytest.approx(7e6) and kept["max"] == pytest.approx(7e6)
    assert kept["mean"] == pytest.approx((sum(before) + 7e6) / (len(before) + 1))  # the kept samples and the new
    cache.clear()
    full = year_tail(hour_tail, at)
    assert full["current"] == pytest.approx(7e6)
    # read in full: what InfluxDB holds now (the hourly windows as written, the raw samples left since the hour)
    held = in_slot(hour_tail, full, hour) + in_slot(hour_tail, full, at + 1, since=at - 5 * 60 + 1)  # to its end
    assert full["mean"] == pytest.approx(sum(held) / len(held))


def test_a_tail_kept_across_polls_and_an_hours_end_is_the_tail_read_in_full(hour_tail):
    """Kept and extended poll by poll, then cut when the chart's newest hourly window moves on (7 minutes after the
    hour): the same chart as read from InfluxDB in full."""
    from django.core.cache import cache

    at = hour_tail["at"]
    year_tail(hour_tail, at - 1)
    moments = [at + 60 * minute - 59 for minute in range(1, 20)]  # to 09 past the next hour: its window is drawn
    kept = []
    for moment in moments:
        poll_once(hour_tail, moment - 1, 3e6 + (moment - at) * 1e3)
        kept.append(year_tail(hour_tail, moment))
    assert moments[-1] >= at + 10 * 60 + HOUR_GRACE_S  # the chart's newest hourly window moved on
    for moment, mine in zip(moments, kept, strict=True):
        cache.clear()
        assert mine == pytest.approx(year_tail(hour_tail, moment)), moment - at  # later samples lie after it


def test_a_tail_kept_as_at_a_later_moment_shows_no_sample_after_an_earlier_one(hour_tail):
    """A tail kept by a read as at a later moment of the same poll (a run reading ahead, a test's past moment)
    holds samples after an earlier one: read as at the earlier moment they are left out, as a cold read leaves them."""
    from django.core.cache import cache

    at = hour_tail["at"]
    poll_once(hour_tail, at + 20, 9e6)
    later = year_tail(hour_tail, at + 30, polled=at)
    assert later["current"] == pytest.approx(9e6) and later["max"] == pytest.approx(9e6)
    earlier = year_tail(hour_tail, at + 10, polled=at)  # from the tail kept as at `at + 30`
    assert earlier["current"] == pytest.approx(5e6) and earlier["max"] == pytest.approx(5e6)
    cache.clear()
    assert earlier == pytest.approx(year_tail(hour_tail, at + 10, polled=at))


def test_samples_replayed_late_from_the_spool_show_in_a_kept_tail(hour_tail, influx):
    """A poll written while InfluxDB was away is spooled and replayed after a later poll's write: a tail kept
    before reads again from the oldest replayed sample (its newest samples are past it), not in full (older
    samples, deleted here from InfluxDB, still show), and shows the live poll's sample too."""
    from collectors.influx import InfluxWriter, WriteResult
    from collectors.lineprotocol import format_samples
    from collectors.samples import Sample
    from monitor.core import services

    at = hour_tail["at"]
    first = year_tail(hour_tail, at - 1)
    n = len(in_slot(hour_tail, first, at - 1))
    assert first["max"] == pytest.approx(5e6)  # kept
    live = services.influx_writer()
    away = InfluxWriter("http://127.0.0.1:9", "none", influx.org, live.bucket, live.spool_dir, timeout_ms=2000)
    late = Sample("interface", {"device": str(hour_tail["device"].pk), "port": "p/1"}, {"in_bps": 40e6}, at - 1800)
    try:
        assert away.write_lines(format_samples([late])) is WriteResult.SPOOLED  # over the 2 Mbit/s sample then
    finally:
        away.close()
    delete_raw(hour_tail["device"], at - 4000, at - 2100)  # samples older than the replayed one
    poll_once(hour_tail, at, 7e6)  # written, then the spool replayed
    assert not list(live.spool_dir.glob("*.lp"))
    after = year_tail(hour_tail, at)
    assert after["max"] == pytest.approx(40e6)  # the replayed sample, 30 minutes before the newest kept
    assert after["current"] == pytest.approx(7e6)
    assert after["mean"] == pytest.approx((first["mean"] * n - 2e6 + 40e6 + 7e6) / (n + 1))
