"""/metrics: the pollers' health in Prometheus' exposition format (prometheus-client), from the same figures as
the health page; counts cover the page's window (the last five minutes and the running one)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

from monitor.health.figures import GROUP_ONLY, Health

PREFIX = "snmp_monitor_"
PER_ROW = (  # (figure, metric name, help)
    ("devices", "devices", "Enabled devices"),
    ("polls_per_min", "polls_per_minute", "Polls a minute over the window"),
    ("p50_s", "poll_duration_p50_seconds", "Median poll duration over the window (histogram bucket bound)"),
    ("p95_s", "poll_duration_p95_seconds", "95th percentile poll duration over the window (histogram bucket bound)"),
    ("failures", "poll_failures_window", "Failed polls in the window"),
    ("timeouts", "poll_timeouts_window", "Polls with no answer at all in the window"),
    ("overruns", "ticks_overrun_window", "Ticks skipped because the previous poll still ran, in the window"),
    ("resting", "ticks_backing_off_window", "Ticks sat out by unreachable devices, in the window"),
    ("write_errors", "write_errors_window", "Polls whose samples were spooled, refused or lost, in the window"),
    ("backing_off", "devices_backing_off", "Devices polled less often because they do not answer"),
    ("queued", "queue_messages", "Messages waiting in the group's Celery queue"),
    ("spool_bytes", "spool_bytes", "Bytes waiting in the worker's spool for InfluxDB"),
    ("spool_age_s", "spool_age_seconds", "Age of the oldest spool file"),
    ("seen_s", "worker_last_batch_age_seconds", "Seconds since the worker's last batch"),
    ("rollup_lag_s", "rollup_lag_seconds", "How long ago the group's oldest rollup window still open ended"),
)


class _Collector:
    def __init__(self, figures: Health):
        self.figures = figures

    def collect(self):
        for attribute, name, text in PER_ROW:
            family = GaugeMetricFamily(PREFIX + name, text, labels=["group", "worker"])
            for label, rows in (("group", self.figures.groups), ("worker", self.figures.workers)):
                for row in rows:
                    value = getattr(row, attribute)
                    if value is not None and (label == "group" or attribute not in GROUP_ONLY):
                        labels = [row.name, ""] if label == "group" else ["", row.name]
                        family.add_metric(labels, float(value))
            yield family
        stale = GaugeMetricFamily(PREFIX + "devices_stale", "Devices without a good poll for two intervals")
        stale.add_metric([], float(len(self.figures.stale)))
        yield stale
        lag = GaugeMetricFamily(PREFIX + "rollup_lag_all_seconds", "The oldest open rollup window of any device")
        lag.add_metric([], self.figures.rollup_lag_s)
        yield lag


def exposition(figures: Health) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(figures))
    return generate_latest(registry)
