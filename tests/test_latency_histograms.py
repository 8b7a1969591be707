"""Latency percentiles that add up (issue 43): an array's latency histogram kept as counts per poll, summed over a
range for one volume and for several together, gives the bucket that holds the true percentile of the planted
per-I/O latencies, over a range in the raw samples and over one that reaches past the raw retention (read from
the 5-minute rollups). The truth is the planted latencies themselves, sorted (nearest rank), never the histogram."""

from __future__ import annotations

import bisect
import math
import random
from datetime import datetime, timezone

import pytest

from collectors.samples import Sample
from monitor.timeseries import histogram
from monitor.timeseries.history import HistoryWriter
from tests.tsbuckets import own_buckets, raw_kept_from

DAY, HOUR, POLL = 86400, 3600, 300
NOW_S = int(datetime.now(timezone.utc).timestamp()) // HOUR * HOUR - HOUR  # an hour boundary, an hour ago
START_S = NOW_S - 20 * DAY
BOUNDS = [bound for _, bound in histogram.BUCKETS]
# vol-a: quick (median ~0.7 ms), vol-b: slower with a tail (median ~4 ms); a bad hour on vol-b 10 days ago
SHAPES = {"vol-a": (math.log(0.7), 0.6), "vol-b": (math.log(4.0), 0.9)}


def plant() -> tuple[dict[str, list[tuple[float, float]]], list[tuple[float, dict[str, dict[str, float]]]]]:
    """({volume: [(poll time, latency ms) of every read]}, [(poll time, {volume: bucket counts as fields})])."""
    rng = random.Random(43)
    ios: dict[str, list[tuple[float, float]]] = {name: [] for name in SHAPES}
    polls = []
    for at in range(START_S + 17, NOW_S, POLL):  # off the window boundaries
        fields = {}
        for name, (mu, sigma) in SHAPES.items():
            slow = name == "vol-b" and NOW_S - 10 * DAY <= at < NOW_S - 10 * DAY + HOUR
            taken = [rng.lognormvariate(mu + (2.5 if slow else 0.0), sigma) for _ in range(rng.randint(5, 40))]
            ios[name] += [(at, ms) for ms in taken]
            counts = [0.0] * len(BOUNDS)
            for ms in taken:
                counts[bisect.bisect_left(BOUNDS, ms)] += 1  # the bucket whose upper bound is the first >= ms
            fields[name] = dict(zip(histogram.fields("read"), counts, strict=True))
        polls.append((at, fields))
    return ios, polls


IOS, POLLS = plant()


@pytest.fixture(scope="module")
def planted(stack_env, tmp_path_factory):
    kept_from = raw_kept_from()
    with own_buckets("latency_histograms", tmp_path_factory.mktemp("spool")) as writer:
        history = HistoryWriter(writer)
        for at, fields in POLLS:
            samples = [Sample("volume", {"device": "nim", "volume": v}, f, at) for v, f in fields.items()]
            history.poll("nim", at, samples, POLL, raw=at >= kept_from)
        history.close(NOW_S)
        assert history.failed == 0
        yield writer


def truth(volumes: list[str], start: int, end: int, q: float) -> float:
    """The nearest-rank q-th percentile of the planted reads of these volumes in [start, end)."""
    taken = sorted(ms for v in volumes for at, ms in IOS[v] if start <= at < end)
    return taken[math.ceil(q * len(taken)) - 1]


RANGES = {
    "three hours, raw samples": (NOW_S - 4 * HOUR, NOW_S - HOUR),
    "two days, from the 5-minute sums": (NOW_S - 2 * DAY, NOW_S - HOUR),
    "twenty days, past the raw retention": (START_S, NOW_S - HOUR),
    "the bad hour alone": (NOW_S - 10 * DAY, NOW_S - 10 * DAY + HOUR),
}


@pytest.mark.parametrize("span", list(RANGES))
@pytest.mark.parametrize("volumes", [["vol-a"], ["vol-b"], ["vol-a", "vol-b"]], ids=["a", "b", "a+b"])
def test_percentiles_are_the_bucket_holding_the_planted_percentile(planted, span, volumes):
    start, end = RANGES[span]
    found = histogram.counts("nim", *(datetime.fromtimestamp(t, timezone.utc) for t in (start, end, NOW_S)))
    read = histogram.percentiles(*(found[v] for v in volumes))["read"]
    planted_reads = sum(1 for v in volumes for at, _ in IOS[v] if start <= at < end)
    assert read.ios == planted_reads  # counts add up exactly, raw or rolled up
    for q in histogram.QUANTILES:
        true, bound = truth(volumes, start, end, q), read.at[q]
        below = BOUNDS[BOUNDS.index(bound) - 1] if BOUNDS.index(bound) else 0.0
        assert below < true <= bound, (q, true, bound)


def test_a_range_past_the_raw_retention_is_read_from_the_rollups(planted):
    """The twenty-day range starts where the raw bucket holds nothing: only the rollups can answer it."""
    from monitor.timeseries import tiers

    start = datetime.fromtimestamp(RANGES["twenty days, past the raw retention"][0], timezone.utc)
    assert tiers.finest_holding(start, datetime.fromtimestamp(NOW_S, timezone.utc)).step_s == 300
    assert raw_kept_from() > START_S


@pytest.mark.django_db
def test_the_array_page_shows_the_whole_array_then_each_volume(planted, admin_user):
    """An hour of reads on two volumes of a real device's series: the page's table for the last day says what the
    planted reads say (nearest rank, by bucket), the whole array first."""
    import re

    from django.test import Client

    from monitor.models import Device

    array = Device.objects.create(name="nimble-1", host="127.0.0.1", community="x", profile="hpe-nimble")
    history = HistoryWriter(planted)
    recent = [(at, fields) for at, fields in POLLS if at >= NOW_S - HOUR]
    for at, fields in recent:
        samples = [Sample("volume", {"device": str(array.pk), "volume": v}, f, at) for v, f in fields.items()]
        history.poll(str(array.pk), at, samples, POLL)
    history.close(NOW_S + HOUR)  # every window of that hour written, as the pollers write them after its end
    client = Client()
    client.force_login(admin_user)
    page = client.get(f"/storage/arrays/{array.pk}/", {"range": "1d"}).content.decode()
    table = page.split('id="latency-percentiles"')[1].split("</table>")[0]
    rows = [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td>(.*?)</td>", row)]
            for row in table.split("<tr")[2:]]  # fmt: skip
    assert [row[0] for row in rows] == ["the whole array", "vol-a", "vol-b"]
    for row, volumes in zip(rows, (["vol-a", "vol-b"], ["vol-a"], ["vol-b"]), strict=True):
        true = [truth(volumes, NOW_S - HOUR, NOW_S, q) for q in histogram.QUANTILES]
        expected = [histogram.bound_text(BOUNDS[bisect.bisect_left(BOUNDS, ms)]) for ms in true]
        assert row[2:5] == expected, (row, true)

    from monitor.models import Graph  # the volume's latency graph says its own

    graph = Graph.objects.create(device=array, template="volume_latency", instance="vol-b", title="vol-b latency")
    page = client.get(f"/graphs/{graph.pk}/", {"range": "1d"}).content.decode()
    cells = [
        re.sub(r"<[^>]+>", "", c).strip()
        for c in re.findall(r"<td>(.*?)</td>", page.split('id="volume-percentiles"')[1])
    ]
    true = [truth(["vol-b"], NOW_S - HOUR, NOW_S, q) for q in histogram.QUANTILES]
    assert cells[:5] == ["Reads", f"{len([1 for at, _ in IOS['vol-b'] if at >= NOW_S - HOUR])}"] + [
        histogram.bound_text(BOUNDS[bisect.bisect_left(BOUNDS, ms)]) for ms in true
    ]
