"""Graph templates: which measurement, tag and fields a graph draws, and how to label them.

Profiles offer templates by slug (collectors/profiles/*.yaml `graphs:`); the system check refuses a
profile that offers a template missing here. Discovery creates a Graph for every series a poll returns
that a template of the device's profile can draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from collectors.rollup import MOVED, SPAN


@dataclass(frozen=True)
class SeriesDef:
    field: str
    label: str


@dataclass(frozen=True)
class GraphTemplate:
    """A kind of graph; `instance_tag` names the tag that the graph's instance selects (e.g. port)."""

    slug: str
    name: str
    measurement: str
    instance_tag: str | None
    series: tuple[SeriesDef, ...]
    unit: str
    totals: bool = False  # legend shows the total transferred (rate integrated over the range)
    total_divisor: float = 1.0  # bits -> bytes for traffic
    group: str = ""  # page section: "ports", "system" or "storage"; empty = derived from the measurement
    percent_of_speed: bool = False  # may be drawn as a percentage of the port's speed (Interface.speed_bps)
    filters: dict[str, str] = field(default_factory=dict)  # fixed tag values (e.g. kind=temperature)
    percentile: bool = True  # the legend shows a 95th percentile (of rates and loads; not of counts or sizes)

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(s.field for s in self.series)

    @property
    def moved(self) -> tuple[str, ...]:
        """The stored fields of what each rate moved (collectors/rollup.py MOVED), where the legend shows a total."""
        return tuple(MOVED[f] for f in self.fields if f in MOVED) if self.totals else ()

    @property
    def sample_fields(self) -> tuple[str, ...]:
        """What a read of raw samples asks for: the fields and, where the legend shows a total, each sample's span
        and what its rates moved (monitor/timeseries/stats.py `total`)."""
        return (*self.fields, SPAN, *self.moved) if self.totals else self.fields


def _t(
    slug: str,
    name: str,
    measurement: str,
    tag: str | None,
    series: list[tuple[str, str]],
    unit: str,
    group: str,
    **extra,
) -> GraphTemplate:
    return GraphTemplate(
        slug, name, measurement, tag, tuple(SeriesDef(f, label) for f, label in series), unit, group=group, **extra
    )


_ALL = [
    _t(
        "traffic",
        "In/Out bits per second with total",
        "interface",
        "port",
        [("in_bps", "In"), ("out_bps", "Out")],
        "bit/s",
        "ports",
        totals=True,
        total_divisor=8.0,
        percent_of_speed=True,
    ),
    _t(
        "errors",
        "Errors, discards and pause frames",
        "interface",
        "port",
        [
            ("in_errors", "In errors"),
            ("out_errors", "Out errors"),
            ("in_discards", "In discards"),
            ("out_discards", "Out discards"),
            ("in_pause_pps", "In pause frames"),
            ("out_pause_pps", "Out pause frames"),
        ],
        "/s",
        "ports",
        percentile=False,
    ),
    _t(
        "packets",
        "Unicast and broadcast packets",
        "interface",
        "port",
        [
            ("in_ucast_pps", "In unicast"),
            ("out_ucast_pps", "Out unicast"),
            ("in_bcast_pps", "In broadcast"),
            ("out_bcast_pps", "Out broadcast"),
        ],
        "pkt/s",
        "ports",
        percentile=False,
    ),
    _t(
        "optics",
        "Transceiver light levels",
        "optics",
        "optic",
        [("rx_power_dbm", "Rx"), ("tx_power_dbm", "Tx"), ("rx_low_warning_dbm", "Rx low warning")],
        "dBm",
        "ports",
        percentile=False,
    ),
    _t(
        "optic_temperature",
        "Transceiver temperature",
        "optics",
        "optic",
        [("temperature_c", "°C"), ("temperature_high_warning_c", "Warning level")],
        "°C",
        "ports",
        percentile=False,
    ),
    _t("cpu", "CPU utilisation", "system", None, [("cpu_util", "CPU")], "%", "system"),
    _t(
        "memory",
        "Memory",
        "system",
        None,
        [("mem_used_bytes", "Used"), ("mem_total_bytes", "Total")],
        "B",
        "system",
        percentile=False,
    ),
    _t(
        "load",
        "Load average",
        "system",
        None,
        [("load_1m", "1 min"), ("load_5m", "5 min"), ("load_15m", "15 min")],
        "",
        "system",
    ),
    _t("processor_load", "Processor load", "processor", "cpu", [("load", "Load")], "%", "system"),
    _t(
        "storage_used",
        "Storage used",
        "storage",
        "storage",
        [("used_bytes", "Used"), ("size_bytes", "Size")],
        "B",
        "storage",
        percentile=False,
    ),
    _t(
        "temperature",
        "Temperature",
        "sensor",
        "name",
        [("value", "°C"), ("warning_high", "Warning level")],
        "°C",
        "system",
        filters={"kind": "temperature"},
    ),
    _t(
        "fans",
        "Fan speed",
        "sensor",
        "name",
        [("value", "rpm")],
        "rpm",
        "system",
        filters={"kind": "fan"},
        percentile=False,
    ),
    _t(
        "disk_throughput",
        "Disk throughput",
        "disk_io",
        "disk",
        [("read_bps", "Read"), ("write_bps", "Write")],
        "B/s",
        "storage",
    ),
    _t(
        "disk_iops",
        "Disk operations",
        "disk_io",
        "disk",
        [("read_iops", "Read"), ("write_iops", "Write")],
        "IOPS",
        "storage",
    ),
    _t("disk_temperature", "Disk temperature", "disk", "disk", [("temperature_c", "°C")], "°C", "storage"),
    _t(
        "volume_iops",
        "Volume IOPS",
        "volume",
        "volume",
        [("read_iops", "Read"), ("write_iops", "Write")],
        "IOPS",
        "storage",
    ),
    _t(
        "volume_throughput",
        "Volume throughput",
        "volume",
        "volume",
        [("read_bps", "Read"), ("write_bps", "Write")],
        "B/s",
        "storage",
    ),
    _t(
        "volume_latency",
        "Volume latency",
        "volume",
        "volume",
        [("read_latency_ms", "Read"), ("write_latency_ms", "Write")],
        "ms",
        "storage",
    ),
    _t(
        "volume_read_share",
        "Volume reads (% of operations)",
        "volume",
        "volume",
        [("read_pct", "Reads")],
        "%",
        "storage",
    ),
    _t(
        "volume_io_size",
        "Volume average I/O size",
        "volume",
        "volume",
        [("avg_io_bytes", "Average I/O")],
        "B",
        "storage",
    ),
    _t(
        "volume_queue_depth",
        "Volume queue depth",
        "volume",
        "volume",
        [("queue_depth", "Average queue depth")],
        "",
        "storage",
    ),
    _t(
        "volume_capacity",
        "Volume capacity",
        "volume",
        "volume",
        [("used_bytes", "Used"), ("size_bytes", "Size")],
        "B",
        "storage",
        percentile=False,
    ),
    _t(
        "member_iops",
        "Member IOPS",
        "member",
        "member",
        [("read_iops", "Read"), ("write_iops", "Write")],
        "IOPS",
        "storage",
    ),
    _t(
        "member_throughput",
        "Member throughput",
        "member",
        "member",
        [("read_bps", "Read"), ("write_bps", "Write")],
        "B/s",
        "storage",
    ),
    _t(
        "member_latency",
        "Member latency",
        "member",
        "member",
        [("read_latency_ms", "Read"), ("write_latency_ms", "Write")],
        "ms",
        "storage",
    ),
    _t(
        "pool_capacity",
        "Pool capacity",
        "pool",
        "pool",
        [("used_bytes", "Used"), ("size_bytes", "Size")],
        "B",
        "storage",
        percentile=False,
    ),
    _t(
        "raid_capacity",
        "RAID capacity",
        "raid",
        "raid",
        [("free_bytes", "Free"), ("size_bytes", "Size")],
        "B",
        "storage",
        percentile=False,
    ),
]
TEMPLATES: dict[str, GraphTemplate] = {t.slug: t for t in _ALL}

# {measurement: fields} whose rollup windows keep a total (rate x each sample's own interval), for the legends.
ROLLUP_TOTALS: dict[str, frozenset[str]] = {}
for _template in _ALL:
    if _template.totals:
        ROLLUP_TOTALS[_template.measurement] = ROLLUP_TOTALS.get(_template.measurement, frozenset()) | frozenset(
            _template.fields
        )
