"""A per-device "poll running" lock in Redis that a crashed poller cannot keep: its owner is host:pid."""

from __future__ import annotations

import os
import socket

from collectors.procs import gone

DEVICE_RUNNING = "monitor:running:{device}"  # held while a device is polled (or its windows swept)

_STEAL = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('set', KEYS[1], ARGV[2], 'EX', ARGV[3])
end
return false
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


def owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def acquire(redis, key: str, ttl_s: int) -> bool:
    """Take the lock; or take it over from a process on this host that no longer exists (killed mid-poll)."""
    me = owner()
    if redis.set(key, me, nx=True, ex=ttl_s):
        return True
    holder = redis.get(key)
    if holder is None:
        return bool(redis.set(key, me, nx=True, ex=ttl_s))
    holder = holder.decode(errors="replace")
    if _dead_here(holder):
        return bool(redis.eval(_STEAL, 1, key, holder, me, ttl_s))
    return False


def release(redis, key: str) -> None:
    """Release the lock only if this process still holds it."""
    redis.eval(_RELEASE, 1, key, owner())


def acquire_many(redis, keys: list[str], ttl_s: dict[str, int]) -> set[str]:
    """Take many locks in one round trip; a lock held by someone else gets the one-by-one takeover check."""
    me = owner()
    pipe = redis.pipeline(transaction=False)
    for key in keys:
        pipe.set(key, me, nx=True, ex=ttl_s[key])
    won = {key for key, ok in zip(keys, pipe.execute(), strict=True) if ok}
    return won | {key for key in keys if key not in won and acquire(redis, key, ttl_s[key])}


def release_many(redis, keys: list[str]) -> None:
    """Release the locks this process still holds, in one round trip."""
    if not keys:
        return
    me = owner()
    pipe = redis.pipeline(transaction=False)
    for key in keys:
        pipe.eval(_RELEASE, 1, key, me)
    pipe.execute()


def _dead_here(holder: str) -> bool:
    host, _, pid = holder.rpartition(":")
    return host == socket.gethostname() and pid.isdigit() and gone(int(pid))
