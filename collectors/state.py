"""Keep each device's last counters in Redis so rate maths survives worker restarts."""

from __future__ import annotations

from collectors.samples import CounterState

KEY = "monitor:counters:{device}"
TTL_S = 7 * 24 * 3600  # stale state older than a week is useless for rates
OPEN_KEY = "monitor:rollups:open"  # sorted set: device key -> when its earliest open window ends (or line is due)


class CounterStore:
    """Load and save CounterState per device key in Redis."""

    def __init__(self, redis_client):
        self.redis = redis_client

    def load(self, device_key: str) -> CounterState | None:
        return CounterState.from_json(self.redis.get(KEY.format(device=device_key)))

    def save(self, device_key: str, state: CounterState) -> None:
        self.save_many({device_key: state})

    def load_many(self, device_keys: list[str]) -> dict[str, CounterState | None]:
        """Every device's state in one round trip."""
        if not device_keys:
            return {}
        raw = self.redis.mget([KEY.format(device=key) for key in device_keys])
        return {key: CounterState.from_json(text) for key, text in zip(device_keys, raw, strict=True)}

    def save_many(self, states: dict[str, CounterState]) -> None:
        """Store several devices' states in one round trip."""
        if not states:
            return
        pipe = self.redis.pipeline(transaction=False)
        ends = {}
        for key, state in states.items():
            pipe.set(KEY.format(device=key), state.to_json(), ex=TTL_S)
            due = state.windows.due_at()
            if due is not None:
                ends[key] = due
            else:
                pipe.zrem(OPEN_KEY, key)
        if ends:
            pipe.zadd(OPEN_KEY, ends)
        pipe.execute()

    def open_until(self, moment: float) -> list[str]:
        """Devices with a rollup window that ended before `moment` and is still open (no poll closed it)."""
        return [
            key.decode() if isinstance(key, bytes) else key for key in self.redis.zrangebyscore(OPEN_KEY, 0, moment)
        ]

    def forget(self, device_key: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(KEY.format(device=device_key))
        pipe.zrem(OPEN_KEY, device_key)
        pipe.execute()
