"""Keep each device's last counters in Redis so rate maths survives worker restarts."""

from __future__ import annotations

from collectors.samples import CounterState

KEY = "monitor:counters:{device}"
TTL_S = 7 * 24 * 3600  # stale state older than a week is useless for rates


class CounterStore:
    """Load and save CounterState per device key in Redis."""

    def __init__(self, redis_client):
        self.redis = redis_client

    def load(self, device_key: str) -> CounterState | None:
        return CounterState.from_json(self.redis.get(KEY.format(device=device_key)))

    def save(self, device_key: str, state: CounterState) -> None:
        self.redis.set(KEY.format(device=device_key), state.to_json(), ex=TTL_S)

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
        for key, state in states.items():
            pipe.set(KEY.format(device=key), state.to_json(), ex=TTL_S)
        pipe.execute()

    def forget(self, device_key: str) -> None:
        self.redis.delete(KEY.format(device=device_key))
