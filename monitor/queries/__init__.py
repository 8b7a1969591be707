"""InfluxDB queries as plain data; request values reach Flux only through monitor.flux."""

from __future__ import annotations

from functools import lru_cache

from django.conf import settings
from influxdb_client import InfluxDBClient


def connect(timeout_ms: int) -> InfluxDBClient:
    """A new client for the configured InfluxDB (its token from the settings only)."""
    return InfluxDBClient(
        url=settings.INFLUXDB_URL, token=settings.INFLUXDB_TOKEN, org=settings.INFLUXDB_ORG, timeout=timeout_ms
    )


@lru_cache(maxsize=1)
def client() -> InfluxDBClient:
    """The pages' shared client, with a page's timeout (INFLUXDB_TIMEOUT_MS)."""
    return connect(settings.INFLUXDB_TIMEOUT_MS)


from monitor.queries.series import MAX_POINTS, Selection, build_flux, graph_series, series  # noqa: E402

__all__ = ["MAX_POINTS", "Selection", "build_flux", "client", "connect", "graph_series", "series"]
