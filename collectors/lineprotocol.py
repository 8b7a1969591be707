"""Format samples as InfluxDB line protocol (millisecond precision), escaping device strings."""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from collectors.tags import tag_value

if TYPE_CHECKING:
    from collectors.samples import Sample

_MEASUREMENT = str.maketrans({",": r"\,", " ": r"\ ", "\n": r"\ ", "\r": r"\ "})
_TAG = str.maketrans({",": r"\,", " ": r"\ ", "=": r"\=", "\n": r"\ ", "\r": r"\ ", "\\": "\\\\"})
# InfluxDB unescapes only "\,", "\ " and "\=" in tag values and keeps any other backslash as it is, so a
# backslash is written bare ("C:\ Label" -> "C:\\ Label", read back as "C:\ Label").
_TAG_VALUE = str.maketrans({",": r"\,", " ": r"\ ", "=": r"\=", "\n": r"\ ", "\r": r"\ "})


@lru_cache(maxsize=4096)
def _key(name: str) -> str:
    """Field and tag names repeat on every line: escape each once."""
    return name.translate(_TAG)


@lru_cache(maxsize=65536)
def series_key(measurement: str, tags: tuple[tuple[str, str], ...]) -> str:
    """Measurement and tag set, escaped: the same series comes back every poll, so each is escaped once."""
    rendered = "".join(
        f",{_key(key)}={tag_value(value).translate(_TAG_VALUE)}" for key, value in sorted(tags) if value != ""
    )
    return measurement.translate(_MEASUREMENT) + rendered


def format_sample(sample: Sample) -> str | None:
    """One line of line protocol, or None when the sample has no finite field to write."""
    fields = []
    prefixes = _PREFIXES
    for name, value in sample.fields.items():
        prefix = prefixes.get(name) or _prefix(name)
        if type(value) is float:
            if value - value == 0.0:  # finite: inf - inf and nan - nan are nan
                fields.append(prefix + repr(value))
        elif isinstance(value, int):  # bool and other int subclasses: written as the integer they are
            fields.append(f"{prefix}{int(value)}i")
        elif isinstance(value, float) and math.isfinite(value):
            fields.append(prefix + repr(float(value)))
    if not fields:
        return None
    series = series_key(sample.measurement, tuple(sample.tags.items()))
    return f"{series} {','.join(fields)} {round(sample.time * 1000)}"


_PREFIXES: dict[str, str] = {}


def _prefix(name: str) -> str:
    """`name=` with the name escaped; field names repeat on every line, so each is escaped once."""
    if len(_PREFIXES) > 4096:
        _PREFIXES.clear()
    prefix = _PREFIXES[name] = _key(name) + "="
    return prefix


def format_samples(samples: Iterable[Sample]) -> list[str]:
    return [line for line in map(format_sample, samples) if line is not None]
