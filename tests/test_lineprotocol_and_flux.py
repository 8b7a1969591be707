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
    """Two samples have no spacing beside their one gap: max() of the poll interval alone (it raised TypeError)."""
    from monitor.timeseries.aggregates import _resample

    member = Member("1", "1/g1", 60)
    assert sorted(_resample([(0, 1.0), (60_000, 3.0)], member, 60_000)) == [(0, 1.0), (60_000, 3.0)]
    assert sorted(_resample([(0, 1.0), (60_000, 3.0)], member, 30_000)) == [(0, 1.0), (30_000, 3.0), (60_000, 3.0)]
