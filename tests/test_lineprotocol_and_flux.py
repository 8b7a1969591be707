"""Device strings and request values cannot break line protocol or Flux queries."""

import time
from datetime import datetime, timedelta, timezone

import pytest

from collectors.lineprotocol import format_sample
from collectors.samples import Sample
from monitor.core import services
from monitor.timeseries import series
from monitor.timeseries.flux import Member, Params, series_predicate
from monitor.timeseries.templates import TEMPLATES


def test_tag_values_are_escaped_and_field_types_are_stable():
    sample = Sample(
        "interface",
        {"device": "1", "port": "Gi 1/0/1,x=y\nz"},
        {"in_bps": 0.0, "speed_bps": 10, "oper_up": True},
        1_700_000_000.5,
    )
    line = format_sample(sample)
    assert line == r"interface,device=1,port=Gi\ 1/0/1\,x\=y\ z in_bps=0.0,speed_bps=10i,oper_up=1i 1700000000500"


def test_sample_without_finite_fields_is_not_written():
    assert format_sample(Sample("interface", {"device": "1"}, {"in_bps": float("nan")}, 1.0)) is None


HOSTILE = ['") |> drop() //', "${secret}", 'a"b\\c\nd', "x == x or r.device =~ /.*/"]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_request_values_reach_flux_only_as_parameters(hostile):
    bind = Params()
    predicate = series_predicate(TEMPLATES["traffic"], Member("7", hostile, 60), ["in_bps"], bind)
    assert predicate == "(r._measurement == p0 and r.device == p1 and r.port == p2 and r._field == p3)"
    assert bind.values == {"p0": "interface", "p1": "7", "p2": hostile, "p3": "in_bps"}  # values travel apart


@pytest.mark.django_db
def test_a_graph_of_a_hostile_port_name_reads_exactly_its_series(clean_backends):
    """Port names that look like Flux are stored (escaped) and read back as plain values: no more, no less."""
    now = int(time.time())
    writer = services.influx_writer()
    hostile = HOSTILE[0]
    samples = [
        Sample("interface", {"device": "55", "port": p}, {"in_bps": float(i + 1)}, now)
        for i, p in enumerate([hostile, "other"])
    ]
    assert writer.write(samples)
    end = datetime.now(timezone.utc) + timedelta(seconds=5)
    data = series.one(TEMPLATES["traffic"], "55", hostile, end - timedelta(minutes=5), end, 100, 60)
    assert [p[2] for p in data["series"][0]["points"]] == [1.0]


def test_an_aggregate_member_with_only_two_samples_is_resampled():
    """Two samples have no spacing beside their one gap: max() of the poll interval alone (it raised TypeError).
    The first stands for the poll interval before it (its own interval), the second for the one since the first."""
    from monitor.timeseries.aggregates import _resample

    member = Member("1", "1/g1", 60)
    two = [(0, 1.0), (60_000, 3.0)]
    assert sorted(_resample(two, member, 60_000)) == [(-60_000, 1.0), (0, 1.0), (60_000, 3.0)]
    assert sorted(_resample(two, member, 30_000)) == [
        (-60_000, 1.0),
        (-30_000, 1.0),
        (0, 1.0),
        (30_000, 3.0),
        (60_000, 3.0),
    ]
    # the newest sample stands until its next poll is due, at the live edge only
    assert sorted(_resample(two, member, 30_000, now_ms=100_000))[-1] == (90_000, 3.0)
    assert sorted(_resample(two, member, 30_000, now_ms=130_000))[-1] == (60_000, 3.0)


@pytest.mark.django_db
def test_window_rows_are_read_back_to_their_own_series(clean_backends):
    """The bulk reader of window rows (no time column): twelve ports, so tables 1 and 10 follow each other, some
    named with commas and quotes (quoted in InfluxDB's CSV), and an empty window at the end."""
    from django.conf import settings

    from monitor.timeseries.client import run
    from monitor.timeseries.flux import chain, window

    now = int(time.time()) // 600 * 600
    names = [f'Gi1/0/{i}, "uplink"' if i % 3 == 0 else f"1/g{i}" for i in range(12)]
    samples = [
        Sample("interface", {"device": "56", "port": name}, {"in_bps": float(100 * i + k)}, now - 600 + 60 * k)
        for i, name in enumerate(names)
        for k in range(10)
    ]
    assert services.influx_writer().write(samples)
    bind = Params()
    predicate = series_predicate(TEMPLATES["traffic"], Member("56", "", 60), ["in_bps"], bind, every_instance=True)
    keep = '["_value", "_field", "_measurement", "device", "port"]'
    script = chain(bind(settings.INFLUXDB_BUCKET), predicate, window("max"), keep, "wmax")
    start, stop = datetime.fromtimestamp(now - 600, timezone.utc), datetime.fromtimestamp(now + 120, timezone.utc)
    tables = run(script, {"p_start": start, "p_stop": stop, "p_every": timedelta(seconds=120)} | bind.values)
    found = {table.group["port"]: [value for _, value in table.rows] for table in tables}
    assert found == {name: [100.0 * i + 2 * j + 1 for j in range(5)] + [None] for i, name in enumerate(names)}
    assert {table.result for table in tables} == {"wmax"}
    assert all(table.group["_field"] == "in_bps" and table.group["device"] == "56" for table in tables)


@pytest.mark.django_db
@pytest.mark.parametrize("points", [100, 6])  # raw samples as they are; 5-minute windows
def test_a_read_names_device_and_measurement_only_where_its_graphs_span_several(clean_backends, points):
    """Every row of Flux's CSV carries its table's group: a read whose graphs share one device and one kind leaves
    both out (a device page's batch), and the lookup gives them back. Two switches with the same port names, read
    apart and together: each graph gets its own switch's values."""
    from monitor.timeseries.flux import Plot, keep_columns
    from monitor.timeseries.plan import Window

    now = int(time.time()) // 60 * 60
    rates = {("57", "1/g1"): 100.0, ("57", "1/g2"): 200.0, ("58", "1/g1"): 300.0}
    samples = [
        Sample("interface", {"device": device, "port": port}, {"in_bps": rate, "out_bps": rate + 1}, now - 60 * k)
        for (device, port), rate in rates.items()
        for k in range(1, 6)
    ]
    assert services.influx_writer().write(samples)
    traffic = TEMPLATES["traffic"]
    plots = {key: Plot("/".join(key), traffic, (Member(key[0], key[1], 60),)) for key in rates}
    alone = [plots[("57", "1/g1")], plots[("57", "1/g2")]]
    assert keep_columns(alone, timed=False) == '["_value", "_field", "port"]'
    assert keep_columns(list(plots.values())) == '["_time", "_value", "_field", "device", "port"]'
    end = datetime.fromtimestamp(now, timezone.utc)
    span = Window.of(end - timedelta(minutes=10), end, points, end)
    for batch in (alone, list(plots.values())):
        out = series.read(batch, span)
        for plot in batch:
            wanted = rates[(plot.members[0].device, plot.members[0].instance)]
            inn, out_ = out[plot.key]["series"]
            assert inn["points"] and {p[2] for p in inn["points"]} == {wanted}, plot.key
            assert {p[2] for p in out_["points"]} == {wanted + 1}, plot.key
            assert inn["stats"]["minimum"] == inn["stats"]["maximum"] == wanted


def test_a_table_without_its_device_is_not_given_one_of_several():
    """The lookup fills in a device or measurement left out only where one was registered: with two switches it
    cannot tell, and says so (a read whose columns and lookup disagree is an error in the code, not data to drop)."""
    from monitor.timeseries.flux import Plot
    from monitor.timeseries.lookup import Lookup

    lookup = Lookup()
    for device in ("57", "58"):
        plot = Plot(device, TEMPLATES["traffic"], (Member(device, "1/g1", 60),))
        lookup.register(plot, plot.members[0], "in_bps_sum", "in_bps")
    group = {"_field": "in_bps_sum", "port": "1/g1"}
    with pytest.raises(RuntimeError, match="no device column"):
        lookup.target(group)
    assert lookup.target(group | {"device": "58"}) == ("58", "in_bps")
    assert lookup.target(group | {"device": "58", "_measurement": "cpu"}) is None
