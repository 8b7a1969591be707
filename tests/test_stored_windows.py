"""A day's stored 5-minute windows read in InfluxQL (monitor.timeseries.influxql): the same windows and legend
figures as Flux's read of them, in one request; hostile tag values bound, never written into the query; a refused
query a clear error without the token."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from collectors.samples import Sample
from monitor.models import Device
from monitor.timeseries import assemble, cache, gather, influxql, pieces
from monitor.timeseries.client import QueryError
from monitor.timeseries.flux import Member, Plot
from monitor.timeseries.history import HistoryWriter
from monitor.timeseries.plan import Window, layout
from monitor.timeseries.templates import TEMPLATES
from tests.influxq import influx_queries

pytestmark = pytest.mark.django_db
DAY = 86400
HOSTILE = "2/x\" OR 'a'='a'; DROP MEASUREMENT interface; --"


@pytest.fixture
def day(clean_backends):
    """Three ports of a switch with two days of 60-s polls (uneven rates, a gap of 40 minutes, errors on one
    port) and a port whose name is an InfluxQL injection, each written with its rollups as a poll writes them."""
    from monitor.core import services

    device = Device.objects.create(name="day-switch", host="127.0.0.1", community="x", poll_interval_s=60)
    history = HistoryWriter(services.influx_writer())
    now = time.time() // 60 * 60
    times = [now - 2 * DAY + 60 * i for i in range(2 * 1440) if not 900 <= i % 1440 < 940]
    for port, rate in (("1/1", 3e6), ("1/2", 7e5), ("1/3", 1.5e7), (HOSTILE, 4e6)):
        for at in times:
            fields = {"in_bps": rate * (1.3 + (at % 3000) / 2000), "out_bps": rate * (0.3 + (at % 1300) / 1000)}
            if port == "1/2":
                fields["in_errors"] = (at % 700) / 100
            history.poll(
                str(device.pk), at, [Sample("interface", {"device": str(device.pk), "port": port}, fields, at)], 60
            )
    history.close(now)
    assert history.failed == 0
    return device


def same(mine: dict, theirs: dict) -> bool:
    """The same figures: present in both or in neither, equal to rounding."""
    assert mine.keys() == theirs.keys()
    assert {k for k, v in mine.items() if v is None} == {k for k, v in theirs.items() if v is None}
    return {k: v for k, v in mine.items() if v is not None} == pytest.approx(
        {k: v for k, v in theirs.items() if v is not None}, rel=1e-12
    )


def plots_of(device: Device, ports: list[str]) -> list[Plot]:
    return [
        Plot(f"{slug}:{port}", TEMPLATES[slug], (Member(str(device.pk), port, 60),), 1.0)
        for port in ports
        for slug in ("traffic", "errors")
    ]


def test_a_days_stored_windows_read_in_influxql_equal_flux_in_one_request(day, influx):
    now = datetime.now(timezone.utc)
    span = Window.of(now - timedelta(days=1), now, 300, now)
    plots = plots_of(day, ["1/1", "1/2", "1/3"])
    shape = layout(plots[0], span, raw_first=False)
    assert shape.tier.name == "5m" and pieces.means_kept(shape)  # a day on a page: one stored window a point
    start, end = cache.aligned(span.start, span.end, now, 300, 60)
    whole = Window(start, end, 300, now)
    asked = {
        "range": pieces.Piece(whole, tail=True),
        "gone": pieces.Piece(Window(start - timedelta(minutes=10), start, 300, now), windows=False, tail=True),
        "head": pieces.Piece(Window(start, start + timedelta(hours=3), 300, now), figures=False),
        "lowest": pieces.Piece(whole, lowest=True),
    }
    before = influx_queries(influx, ("/query",)), influx_queries(influx, ("/api/v2/query",))
    mine = gather.gather_pieces(plots, shape, True, asked)
    assert influx_queries(influx, ("/query",)) - before[0] == 1  # every piece of every graph: one request
    assert influx_queries(influx, ("/api/v2/query",)) - before[1] == 0
    theirs = gather.flux_pieces(plots, shape, True, asked)
    for plot in plots:
        for name in ("range", "head"):
            a, b = (assemble.rollup_part(plot, found[name], shape) for found in (mine, theirs))
            for x, y in zip(a["series"], b["series"], strict=True):
                assert x["cols"]["t"] == y["cols"]["t"]
                assert len(x["cols"]["t"]) > 30 or x["field"] != "in_bps"
                assert x["cols"].keys() == y["cols"].keys()
                for column in x["cols"]:
                    assert list(x["cols"][column]) == pytest.approx(list(y["cols"][column]), rel=1e-12)
                if name == "range":
                    assert same(x["acc"], y["acc"])
        for name in ("gone", "lowest"):
            for field in plot.template.fields:
                a, b = mine[name].get((plot.key, field), {}), theirs[name].get((plot.key, field), {})
                assert same(assemble.figures(a), assemble.figures(b))
    errors = assemble.rollup_part(plots[3], mine["range"], shape)["series"][0]
    assert errors["acc"]["n"] > 1000 and errors["acc"]["hi"] == pytest.approx(6.8)  # 60-s polls: t % 700 reaches 680
    assert len(errors["cols"]["t"]) < 288 - 7  # the 40 silent minutes are no windows, as in Flux


def test_a_port_name_is_bound_so_an_injection_reads_only_its_own_windows(day):
    now = datetime.now(timezone.utc)
    span = Window.of(now - timedelta(days=1), now, 300, now)
    plots = [Plot("hostile", TEMPLATES["traffic"], (Member(str(day.pk), HOSTILE, 60),), 1.0)]
    shape = layout(plots[0], span, raw_first=False)
    start, end = cache.aligned(span.start, span.end, now, 300, 60)
    found = gather.gather_pieces(plots, shape, False, {"": pieces.Piece(Window(start, end, 300, now))})[""]
    part = assemble.rollup_part(plots[0], found, shape)
    means = list(part["series"][0]["cols"]["mean"])
    assert len(means) > 250 and min(means) >= 4e6 * 1.3 - 1 and max(means) <= 4e6 * 2.8 + 1  # its own rates only
    assert part["series"][0]["acc"]["lo"] >= 4e6 * 1.3 - 1
    alone = gather.gather_pieces(
        plots_of(day, ["1/1"])[:1], shape, False, {"": pieces.Piece(Window(start, end, 300, now))}
    )
    assert alone[""]  # the measurement is still there: nothing was dropped


def test_a_refused_influxql_query_is_a_clear_error_without_the_token(day, influx):
    now = int(time.time() * 1e9)
    with pytest.raises(QueryError) as refused:
        influxql.query("no_such_bucket_here", ['SELECT "in_bps_mean" FROM "interface" WHERE time >= $t'], {"t": now})
    assert "InfluxQL" in str(refused.value) and influx.token not in str(refused.value)
    with pytest.raises(QueryError) as broken:
        influxql.query(f"{influx.bucket}_5m", ["SELECT FROM WHERE"], {})
    assert "InfluxQL" in str(broken.value) and influx.token not in str(broken.value)
    with pytest.raises(ValueError, match="stored windows only"):
        span = Window.of(datetime.now(timezone.utc) - timedelta(days=30), datetime.now(timezone.utc), 300)
        plots = plots_of(day, ["1/1"])
        influxql.read_stored(plots, layout(plots[0], span, raw_first=False), False, {"": pieces.Piece(span)})
