"""The path page's data: for one window, on one time axis, a volume's latency and IOPS, the array's ports and the
switch ports on its path (utilisation, discards, errors, pause frames), each switch port marked when it ran near
line rate or discarded. Every point is the largest sample of its step, so a spike survives a week's view. Plain
data; the page draws it with Chart.js (static/js/path.js)."""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime

from django.db.models import QuerySet

from monitor.core.levels import NEAR_LINE_RATE_PCT
from monitor.models import Device, Interface
from monitor.storage.models import HeatmapLevels, PathLink
from monitor.timeseries import storage as ts

VOLUME_FIELDS = ["read_latency_ms", "write_latency_ms", "read_iops", "write_iops"]
# Arrays that split a volume's latency between the array and the network (Synology's iSCSI LUNs): the share of a
# read's and a write's time spent in the array, in percent (docs/storage.md "Disk or network?")
SPLIT_FIELDS = ["read_in_array_pct", "write_in_array_pct"]
COUNT_FIELDS = ["in_discards", "out_discards", "in_errors", "out_errors", "in_pause_pps", "out_pause_pps"]


def _points(found: ts.Series, key: tuple[str, str], scale: float = 1.0) -> list[list[float]]:
    return [[t, v * scale] for t, v in found.get(key, [])]


def slowest_volume(array: Device, start: datetime, end: datetime, now: datetime | None = None) -> str:
    """The volume with the highest mean latency (read or write) in the window; where the array serves no latency in
    time (a Synology LUN), the busiest by IOPS; "" when none has either."""
    for fields in (["read_latency_ms", "write_latency_ms"], ["read_iops", "write_iops"]):
        means = ts.means("volume", str(array.pk), "volume", fields, start, end, now)
        worst: dict[str, float] = defaultdict(float)
        for (volume, _), value in means.items():
            worst[volume] = max(worst[volume], value)
        if worst:
            return max(worst, key=lambda v: worst[v])
    return ""


def path_data(
    array: Device,
    volume: str,
    start: datetime,
    end: datetime,
    points: int,
    switches: QuerySet | None = None,
    now: datetime | None = None,
) -> dict:
    """Everything the path page draws for [start, end] read as at `now` (`points` columns at most); `switches`: the
    devices the reader may see (a switch outside it is left off the path)."""
    every = max(array.poll_interval_s, math.ceil((end - start).total_seconds() / max(points, 2)))
    volume = volume or slowest_volume(array, start, end, now)
    found, step = ts.windows(
        "volume", str(array.pk), "volume", [volume] if volume else [], VOLUME_FIELDS, start, end, every, True, now
    )
    volumes = sorted(
        {v for v, _ in ts.means("volume", str(array.pk), "volume", ["read_iops"], start, end, now)} | ({volume} - {""})
    )
    charts = [
        _chart(
            "latency",
            f"Volume {volume} latency" if volume else "Volume latency",
            "ms",
            [
                ("Read", _points(found, (volume, "read_latency_ms"))),
                ("Write", _points(found, (volume, "write_latency_ms"))),
            ],
        ),
        _chart(
            "iops",
            f"Volume {volume} IOPS" if volume else "Volume IOPS",
            "IOPS",
            [("Read", _points(found, (volume, "read_iops"))), ("Write", _points(found, (volume, "write_iops")))],
        ),
    ]
    split = _split_chart(array, volume, start, end, every, now)
    if split:
        charts.insert(1, split)
    links = PathLink.objects.filter(array=array, switch__enabled=True)  # a disabled switch is off the path
    links = links.select_related("switch").order_by("switch__name", "switch_port")
    links = list(links if switches is None else links.filter(switch__in=switches))
    array_ports = sorted({link.array_port for link in links})
    if array_ports:
        own, _ = ts.windows(
            "interface", str(array.pk), "port", array_ports, ["in_bps", "out_bps"], start, end, every, True, now
        )
        series = []
        for port in array_ports:
            series += [(f"{port} in", _points(own, (port, "in_bps"))), (f"{port} out", _points(own, (port, "out_bps")))]
        charts.append(_chart("array_ports", f"{array.name} ports", "bit/s", series))
    ports, util_series, count_series = _switch_ports(links, start, end, every, now)
    if ports:
        charts.append(_chart("utilisation", "Switch ports on the path (% of line rate)", "%", util_series))
        charts.append(_chart("counts", "Discards, errors and pause frames on the path", "/s", count_series))
    warning, problem = HeatmapLevels.for_device(array.pk)
    return {
        "array": {"id": array.pk, "name": array.name},
        "volume": volume,
        "volumes": volumes,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "step_s": step,
        "levels": {"warning_ms": warning, "problem_ms": problem},
        "charts": charts,
        "ports": ports,
        "near_line_rate_pct": NEAR_LINE_RATE_PCT,
    }


def _split_chart(array: Device, volume: str, start: datetime, end: datetime, every: int, now) -> dict | None:
    """Where a volume's time went, where its array says (the mean share of each step: in the array, and on the network
    the rest); None where it does not."""
    if not volume:
        return None
    found, _ = ts.windows("volume", str(array.pk), "volume", [volume], SPLIT_FIELDS, start, end, every, False, now)
    series = []
    for op, field in (("Read", "read_in_array_pct"), ("Write", "write_in_array_pct")):
        shares = [[t, v] for t, v in found.get((volume, field), []) if 0.0 <= v <= 100.0]  # a garbage latency: no point
        if shares:  # an op without a share this window draws no empty legend lines
            series += [(f"{op}: in the array", shares), (f"{op}: on the network", [[t, 100.0 - v] for t, v in shares])]
    if not series:
        return None
    return _chart("where", f"Volume {volume}: where the time went, in the array or on the network", "%", series)


def _chart(key: str, title: str, unit: str, series: list[tuple[str, list]]) -> dict:
    return {"key": key, "title": title, "unit": unit, "series": [{"label": s, "points": p} for s, p in series]}


def _switch_ports(
    links: list[PathLink], start: datetime, end: datetime, every: int, now: datetime | None
) -> tuple[list, list, list]:
    """Each switch port on the path with its figures and marks; the utilisation and count series of all of them."""
    by_switch: dict[Device, list[PathLink]] = defaultdict(list)
    for link in links:
        by_switch[link.switch].append(link)
    ports, util_series, count_series = [], [], []
    for switch, switch_links in by_switch.items():
        names = sorted({link.switch_port for link in switch_links})
        speeds = dict(Interface.objects.filter(device=switch, name__in=names).values_list("name", "speed_bps"))
        key = str(switch.pk)
        peaks, _ = ts.windows(
            "interface", key, "port", names, ["in_bps", "out_bps", *COUNT_FIELDS], start, end, every, True, now
        )
        for name in names:
            speed = speeds.get(name) or 0
            label = f"{switch.name} {name}"
            if speed:
                for direction in ("in", "out"):
                    util_series.append(
                        (f"{label} {direction}", _points(peaks, (name, f"{direction}_bps"), 100.0 / speed))
                    )
            for field in COUNT_FIELDS:
                if peaks.get((name, field)) and any(v for _, v in peaks[(name, field)]):
                    count_series.append(
                        (f"{label} {field.replace('_pps', '').replace('_', ' ')}", _points(peaks, (name, field)))
                    )
            peak_bps = max((v for f in ("in_bps", "out_bps") for _, v in peaks.get((name, f), [])), default=None)
            peak_util = 100.0 * peak_bps / speed if speed and peak_bps is not None else None
            discards = max(
                (v for f in ("in_discards", "out_discards") for _, v in peaks.get((name, f), [])), default=0.0
            )
            errors = max((v for f in ("in_errors", "out_errors") for _, v in peaks.get((name, f), [])), default=0.0)
            pause = max(
                (v for f in ("in_pause_pps", "out_pause_pps") for _, v in peaks.get((name, f), [])), default=None
            )
            marks = []
            if peak_util is not None and peak_util >= NEAR_LINE_RATE_PCT:
                marks.append("near line rate")
            if discards > 0:
                marks.append("discarding")
            carried = sorted({link.array_port for link in switch_links if link.switch_port == name})
            via = sorted({link.via for link in switch_links if link.switch_port == name})
            ports.append(
                {
                    "switch": switch.name,
                    "switch_id": switch.pk,
                    "port": name,
                    "array_ports": carried,
                    "via": ", ".join(via),
                    "speed_bps": speed,
                    "peak_util_pct": peak_util,
                    "peak_discards_per_s": discards,
                    "peak_errors_per_s": errors,
                    "peak_pause_per_s": pause,
                    "marks": marks,
                }
            )
    return ports, util_series, count_series
