"""Shared clients built from settings: Redis, the InfluxDB writer, the counter store (one per process)."""

from __future__ import annotations

import atexit
from functools import lru_cache
from urllib.parse import urlsplit

import redis
from django.conf import settings

from collectors.influx import InfluxWriter
from collectors.state import CounterStore
from monitor.timeseries import cache, tiers


@lru_cache(maxsize=1)
def redis_client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=5, socket_connect_timeout=5)


def redis_address() -> str:
    """REDIS_URL without its password, for messages: host:port/db."""
    where = urlsplit(settings.REDIS_URL)
    return f"{where.hostname}:{where.port or 6379}{where.path}" if where.hostname else where.path


@lru_cache(maxsize=1)
def influx_writer() -> InfluxWriter:
    return InfluxWriter(
        settings.INFLUXDB_URL,
        settings.INFLUXDB_TOKEN,
        settings.INFLUXDB_ORG,
        settings.INFLUXDB_BUCKET,
        settings.VAR_DIR / "spool",
        timeout_ms=settings.INFLUXDB_TIMEOUT_MS,
        rollup_buckets=tiers.rollup_buckets(),
        on_replayed=cache.note_late_writes,
    )


def counter_store() -> CounterStore:
    return CounterStore(redis_client())


def reset_clients() -> None:
    """Close and forget the cached clients (settings changed, or the process is exiting)."""
    from monitor.timeseries import client

    for cached in (influx_writer, client.client):
        if cached.cache_info().currsize:
            cached().close()
        cached.cache_clear()
    if redis_client.cache_info().currsize:
        redis_client().close()
    redis_client.cache_clear()


atexit.register(reset_clients)
