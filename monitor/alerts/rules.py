"""The registry of metrics a rule may watch, and how each is read from a poll's samples."""

from __future__ import annotations

from dataclasses import dataclass

from collectors import histograms
from collectors.profileschema import STATES
from collectors.samples import Sample
from monitor.core.durations import duration_text

NOT_ANSWERING = "not_answering"
EVENT = "event"  # rules on events (traps, syslog, the monitor's own): monitor/alerts/eventrules.py
ARRAY_HEALTH = "array_health"  # the states of the parts a profile reads a status of (monitor/storage/health.py)
# How the detail of a clear that closed a target its device stopped serving begins (monitor/alerts/evaluator.py)
GONE = "no longer reported by the device"


@dataclass(frozen=True)
class Metric:
    """A number in the samples: a (measurement, field) pair, or the max of several fields."""

    key: str
    label: str
    measurement: str
    fields: tuple[str, ...]
    unit: str
    instance_tag: str = ""  # the tag that names a series (port, volume, sensor name); "" for device-wide
    match: tuple[tuple[str, str], ...] = ()  # tags a sample must carry (e.g. sensor kind)
    speed_field: str = ""  # allows levels in percent of this field (ports)
    warning_field: str = ""  # allows levels relative to the device's own threshold
    quantile: float = 0.0  # a percentile of a latency histogram's buckets (`fields`, fastest first) in the poll
    floor: float | None = None  # values below it are "not reported" (a disk without a wear figure serves -1): gaps
    owner_tags: tuple[str, ...] = ()  # tags naming what a series belongs to, put before its name where a sample has
    # them: a Dell SC's two controllers each have a "CPU One" temperature, two series, not one flipping between them


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric("port_in", "Port In (bit/s)", "interface", ("in_bps",), "bit/s", "port", speed_field="speed_bps"),
        Metric("port_out", "Port Out (bit/s)", "interface", ("out_bps",), "bit/s", "port", speed_field="speed_bps"),
        Metric(
            "port_util",
            "Port utilisation (max of In and Out)",
            "interface",
            ("in_bps", "out_bps"),
            "bit/s",
            "port",
            speed_field="speed_bps",
        ),
        Metric("cpu", "CPU utilisation", "system", ("cpu_util",), "%"),
        Metric(
            "optic_rx",
            "Transceiver receive power (dBm)",
            "optics",
            ("rx_power_dbm",),
            "dBm",
            "optic",
            warning_field="rx_low_warning_dbm",
        ),
        Metric(
            "optic_tx",
            "Transceiver transmit power (dBm)",
            "optics",
            ("tx_power_dbm",),
            "dBm",
            "optic",
            warning_field="tx_low_warning_dbm",
        ),
        Metric(
            "optic_temperature",
            "Transceiver temperature",
            "optics",
            ("temperature_c",),
            "°C",
            "optic",
            warning_field="temperature_high_warning_c",
        ),
        Metric(
            "temperature",
            "Temperature sensor",
            "sensor",
            ("value",),
            "°C",
            "name",
            match=(("kind", "temperature"),),
            warning_field="warning_high",
            owner_tags=("controller", "enclosure"),
        ),
        Metric(
            "volume_latency",
            "Volume latency (max of read and write)",
            "volume",
            ("read_latency_ms", "write_latency_ms"),
            "ms",
            "volume",
        ),
        Metric("volume_read_latency", "Volume read latency", "volume", ("read_latency_ms",), "ms", "volume"),
        *(
            Metric(
                f"volume_{op}_p{round(q * 100)}",
                f"Volume {op} latency, {round(q * 100)}th percentile of the poll's I/Os (arrays with histograms)",
                "volume",
                tuple(histograms.fields(op)),
                "ms",
                "volume",
                quantile=q,
            )
            for op in ("read", "write")
            for q in (0.95, 0.99)
        ),
        Metric("volume_write_latency", "Volume write latency", "volume", ("write_latency_ms",), "ms", "volume"),
        Metric(
            "snapshot_reserve",
            "Volume snapshot reserve used (% of the reserve)",
            "volume",
            ("snapshot_used_pct",),
            "%",
            "volume",
            warning_field="snapshot_warning_pct",
        ),
        Metric(
            "replication_lag",
            "Replication lag: how far a mirror's destination is behind its source (NetApp, EqualLogic)",
            "replication",
            ("lag_s",),
            "s",
            "partner",
            owner_tags=("volume",),  # a source sends to several destinations, a site takes many volumes
        ),
        Metric(
            "disk_life",
            "Disk remaining life (SSD wear, % left; Synology, EqualLogic)",
            "disk",
            ("remaining_life_pct",),
            "%",
            "disk",
            floor=0.0,
        ),
        Metric(NOT_ANSWERING, "Device not answering (1 when a poll fails)", "", (), ""),
        Metric(
            ARRAY_HEALTH,
            "Array part state (disks, RAID sets, fans, power supplies: 0 ok, 1 warning, 2 degraded, 3 rebuilding, "
            "4 failed)",
            "",
            (),
            "",
        ),
        Metric(EVENT, "Events: traps, syslog or the monitor's own (kind, severity, pattern below)", "", (), ""),
    )
}
METRIC_CHOICES = [(m.key, m.label) for m in METRICS.values()]


@dataclass(frozen=True)
class Observation:
    """One target's value from one poll, with what levels may be relative to."""

    instance: str
    value: float
    speed: float | None = None
    warning: float | None = None


def observe(metric: Metric, samples: list, error: str, profile=None) -> list[Observation]:
    """The values of a metric in one poll's samples; empty where a value is absent (a gap). `profile`: the device's
    (collectors.profiles.Profile), whose state maps say what an array part's status code means."""
    if metric.key == NOT_ANSWERING:
        return [Observation("", 1.0 if error else 0.0)]
    if error or metric.key == EVENT:  # event rules are fed by stored events, never by polls
        return []
    if metric.key == ARRAY_HEALTH:
        from monitor.storage.health import states_in

        return [Observation(part, float(STATES.index(state))) for part, state in states_in(profile, samples)]
    found = []
    for sample in samples:
        if not _holds(metric, sample):
            continue
        values = [float(sample.fields[f]) for f in metric.fields if isinstance(sample.fields.get(f), int | float)]
        if metric.quantile:
            values = _histogram_value(metric, sample.fields)
        if metric.floor is not None:
            values = [v for v in values if v >= metric.floor]
        if not values:
            continue
        speed = sample.fields.get(metric.speed_field) if metric.speed_field else None
        warning = sample.fields.get(metric.warning_field) if metric.warning_field else None
        found.append(
            Observation(
                _instance(metric, sample.tags),
                max(values),
                float(speed) if isinstance(speed, int | float) and speed > 0 else None,
                float(warning) if isinstance(warning, int | float) else None,
            )
        )
    return found


def present(metric: Metric, samples: list, profile=None) -> set[str]:
    """The targets a poll's samples hold, with a value or not (an idle volume's latency, a counter after a reset, a
    disk's wear it does not report): what is absent from them is no longer reported by the device."""
    if metric.key == ARRAY_HEALTH:
        from monitor.storage.health import states_in

        return {part for part, _ in states_in(profile, samples)}
    return {_instance(metric, sample.tags) for sample in samples if _holds(metric, sample)}


def closed_as_gone(event) -> bool:
    """Whether an alert event is the clear that closed a target its device stopped serving, not a recovery (an event
    rule's clear quotes its clearing event, whatever that says)."""
    return event.kind == "clear" and event.rule.metric != EVENT and event.detail.startswith(GONE)


def _holds(metric: Metric, sample) -> bool:
    """Whether a sample is one of the metric's series: its measurement, with the tags it must carry."""
    return (
        isinstance(sample, Sample)
        and sample.measurement == metric.measurement
        and all(sample.tags.get(tag) == want for tag, want in metric.match)
    )


def _instance(metric: Metric, tags: dict) -> str:
    """The series' name in the rule: its instance tag, after what it belongs to where the sample says ("ctrl-1 CPU
    One")."""
    if not metric.instance_tag:
        return ""
    return " ".join([tags[t] for t in metric.owner_tags if tags.get(t)] + [tags.get(metric.instance_tag, "")])


def _histogram_value(metric: Metric, fields: dict) -> list[float]:
    """[the upper bound (ms) of the bucket holding the metric's percentile of the poll's I/Os], [] for a poll
    without I/O or without the histogram."""
    counts = [fields.get(f) for f in metric.fields]
    if not all(isinstance(c, int | float) for c in counts):
        return []
    bound = histograms.percentile([float(c) for c in counts], metric.quantile)
    return [] if bound is None else [min(bound, histograms.OVER_LAST_MS)]  # finite: JSON has no infinity


def comparable(unit: str, obs: Observation, fire: float, clear: float) -> tuple[float, float, float] | None:
    """(value, fire, clear) in the rule's unit, or None when the target lacks what the unit needs."""
    if unit == "percent":
        return None if obs.speed is None else (100.0 * obs.value / obs.speed, fire, clear)
    if unit == "warning":
        return None if obs.warning is None else (obs.value, obs.warning + fire, obs.warning + clear)
    return obs.value, fire, clear


def format_value(metric: Metric, unit: str, value: float | None) -> str:
    """A value as people read it: percent, bit/s with a prefix, or the metric's own unit."""
    if value is None:
        return "n/a"
    if metric.key == NOT_ANSWERING:
        return "not answering" if value >= 0.5 else "answering"
    if metric.key == EVENT:
        return "matching" if value >= 0.5 else "quiet"
    if metric.quantile:
        return histograms.bound_text(value)
    if metric.key == ARRAY_HEALTH:
        return STATES[max(0, min(len(STATES) - 1, round(value)))]
    if unit == "percent":
        return f"{value:.1f} %"
    if metric.unit == "s":
        return duration_text(value)
    if metric.unit == "bit/s":
        for factor, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= factor:
                return f"{value / factor:.2f} {prefix}bit/s"
        return f"{value:.0f} bit/s"
    return f"{value:.1f} {metric.unit}".strip()
