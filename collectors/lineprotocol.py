"""Format samples as InfluxDB line protocol (millisecond precision), escaping device strings."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache

from collectors.samples import Sample

_MEASUREMENT = str.maketrans({",": r"\,", " ": r"\ ", "\n": r"\ ", "\r": r"\ "})
_TAG = str.maketrans({",": r"\,", " ": r"\ ", "=": r"\=", "\n": r"\ ", "\r": r"\ ", "\\": "\\\\"})


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """Field and tag names repeat on every line: escape each once."""
    return name.translate(_TAG)


def format_sample(sample: Sample) -> str | None:
    """One line of line protocol, or None when the sample has no finite field to write."""
    fields = []
    for name, value in sample.fields.items():
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, int):
            fields.append(f"{_key(name)}={value}i")
        elif isinstance(value, float) and math.isfinite(value):
            fields.append(f"{_key(name)}={value!r}")
    if not fields:
        return None
    tags = "".join(f",{_key(key)}={value.translate(_TAG)}" for key, value in sorted(sample.tags.items()) if value != "")
    return f"{sample.measurement.translate(_MEASUREMENT)}{tags} {','.join(fields)} {round(sample.time * 1000)}"


def format_samples(samples: Iterable[Sample]) -> list[str]:
    return [line for line in map(format_sample, samples) if line is not None]
