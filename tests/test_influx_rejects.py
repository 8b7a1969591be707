"""Lines InfluxDB refuses as invalid are kept aside, said on the device, and never hold up the spool behind them."""

from __future__ import annotations

import time

import pytest

from collectors.influx import REJECTED_DIR, InfluxWriter, WriteResult
from monitor.polling.records import REJECTED, write_error
from tests import influxq


def writer(influx, spool) -> InfluxWriter:
    return InfluxWriter(influx.url, influx.token, influx.org, influx.bucket, spool)


def values(influx, measurement: str) -> list[float]:
    script = influxq.bind(
        "from(bucket: params.bucket) |> range(start: -1h) |> filter(fn: (r) => r._measurement == params.m)",
        {"bucket": influx.bucket, "m": measurement},
    )
    return sorted(float(r.get_value()) for t in influxq.query(script) for r in t.records)


@pytest.fixture
def typed_field(influx, clean_backends, tmp_path):
    """A series whose field `x` InfluxDB already holds as an integer: a float for it is a type conflict (422)."""
    first = writer(influx, tmp_path / "spool")
    now = int(time.time() * 1000)
    assert first.write_lines([f"conflict,device=1 x=1i {now - 5000}"]) is WriteResult.WRITTEN
    return now


def test_a_write_refused_as_invalid_is_kept_aside_not_spooled_and_the_device_says_so(
    influx, typed_field, tmp_path, caplog
):
    spool = tmp_path / "spool"
    result = writer(influx, spool).write_lines([f"conflict,device=1 x=2.5 {typed_field}"])
    assert result is WriteResult.REJECTED
    assert not list(spool.glob("*.lp"))  # not in the replay queue: sending it again can never work
    (kept,) = (spool / REJECTED_DIR).glob("*.lp")
    assert kept.read_text() == f"conflict,device=1 x=2.5 {typed_field}\n"
    assert "refused 1 lines as invalid (HTTP 422" in caplog.text and str(kept) in caplog.text
    assert write_error(result) == REJECTED


def test_a_refused_file_in_the_spool_does_not_block_the_good_files_behind_it(influx, typed_field, tmp_path):
    spool = tmp_path / "spool"
    spool.mkdir()
    # Files spooled during an outage: the oldest holds a line InfluxDB will refuse, the next ones are good.
    (spool / f"{1:020d}-1.lp").write_text(f"conflict,device=1 x=9.5 {typed_field}\n")
    (spool / f"{2:020d}-1.lp").write_text(f"good,device=1 v=1.0 {typed_field}\n")
    (spool / f"{3:020d}-1.lp").write_text(f"good,device=1 v=2.0 {typed_field + 1}\n")
    assert writer(influx, spool).write_lines([f"good,device=1 v=3.0 {typed_field + 2}"]) is WriteResult.WRITTEN
    assert values(influx, "good") == [1.0, 2.0, 3.0]  # replayed past the refused file, each once
    assert values(influx, "conflict") == [1.0]
    assert not list(spool.glob("*.lp")) and len(list((spool / REJECTED_DIR).glob("*.lp"))) == 1
