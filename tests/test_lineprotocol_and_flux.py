"""Device strings and request values cannot break line protocol or Flux queries."""

from datetime import datetime, timedelta, timezone

import pytest

from collectors.lineprotocol import format_sample
from collectors.samples import Sample
from monitor.flux import FluxValueError, bind, literal


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


@pytest.mark.parametrize("hostile", ['") |> drop() //', "${secret}", 'a"b\\c\nd'])
def test_flux_strings_cannot_escape_their_literal(hostile):
    text = literal(hostile)
    assert text.startswith('"') and text.endswith('"')
    inner = text[1:-1]
    # Every quote and interpolation start inside is escaped.
    assert '"' not in inner.replace('\\"', "")
    assert "${" not in inner.replace("\\${", "")


def test_bind_renders_typed_parameters():
    start = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    script = bind("x", {"bucket": "b", "start": start, "every": timedelta(seconds=60), "fields": ["a", "b"]})
    assert script.splitlines()[0] == (
        'params = {bucket: "b", start: 2026-01-02T03:04:05.000000Z, every: 60000000us, fields: ["a", "b"]}'
    )


def test_bind_refuses_values_it_cannot_check():
    with pytest.raises(FluxValueError):
        literal(datetime(2026, 1, 1))  # naive datetime
    with pytest.raises(FluxValueError):
        literal(object())
    with pytest.raises(FluxValueError):
        bind("x", {"bad name": 1})
