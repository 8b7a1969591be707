"""Render checked Python values as Flux literals (InfluxDB OSS ignores query parameters, so we bind them here)."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone


class FluxValueError(ValueError):
    """A value that cannot be bound into a Flux query."""


def literal(value: object) -> str:
    """A Flux literal for str, bool, int, float, aware datetime, timedelta, or a list of those."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise FluxValueError("non-finite float")
        return repr(value)
    if isinstance(value, str):
        return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise FluxValueError("naive datetime")
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, timedelta):
        micros = int(value / timedelta(microseconds=1))
        if micros <= 0:
            raise FluxValueError("duration must be positive")
        return f"{micros}us"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    raise FluxValueError(f"cannot bind {type(value).__name__}")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "$": "\\$"}


def bind(script: str, params: dict[str, object], imports: tuple[str, ...] = ()) -> str:
    """Prefix the script with its imports and a `params` record so it can refer to params.name."""
    for name in params:
        if not name.isidentifier():
            raise FluxValueError(f"bad parameter name {name!r}")
    for package in imports:
        if not re.fullmatch(r"[a-z][a-z0-9/]*", package):
            raise FluxValueError(f"bad package name {package!r}")
    head = "".join(f'import "{package}"\n' for package in imports)
    record = ", ".join(f"{name}: {literal(value)}" for name, value in params.items())
    return f"{head}params = {{{record}}}\n{script}"
