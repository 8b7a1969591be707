"""The InfluxDB client for pages, and Flux results read as plain tables (a lean CSV reader, values bound as
parameters by influxdb-client's `params=`, which OSS 2.7 honours as `extern` options)."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import groupby, repeat
from operator import itemgetter

from django.conf import settings
from influxdb_client import Dialect, InfluxDBClient

_DIALECT = Dialect(header=True, annotations=[], delimiter=",", comment_prefix="#", date_time_format="RFC3339")
_TYPED = Dialect(header=True, annotations=["datatype"], delimiter=",", comment_prefix="#", date_time_format="RFC3339")


class QueryError(RuntimeError):
    """InfluxDB answered the query with an error (the message is InfluxDB's, which never holds the token)."""


def connect(timeout_ms: int) -> InfluxDBClient:
    """A new client for the configured InfluxDB (its token from the settings only)."""
    return InfluxDBClient(
        url=settings.INFLUXDB_URL, token=settings.INFLUXDB_TOKEN, org=settings.INFLUXDB_ORG, timeout=timeout_ms
    )


@lru_cache(maxsize=1)
def client() -> InfluxDBClient:
    """The pages' shared client, with a page's timeout (INFLUXDB_TIMEOUT_MS)."""
    return connect(settings.INFLUXDB_TIMEOUT_MS)


@dataclass
class Table:
    """One result table: the yield's name, its group columns (field, tags), and (time ms or None, value) rows."""

    result: str
    group: dict[str, str]
    rows: list[tuple[int | None, float | None]] = field(default_factory=list)
    value_type: str = ""  # "double" or "long" (InfluxDB's words) when the types were asked for


def run(
    script: str, params: dict[str, object], influx: InfluxDBClient | None = None, typed: bool = False
) -> list[Table]:
    """Run a Flux script (every request value in `params`, referred to by name) and read its tables; `typed`
    also tells each table's value type (cheaper than filtering on types in Flux, which is not pushed down)."""
    dialect = _TYPED if typed else _DIALECT
    response = (influx or client()).query_api().query_raw(script, params=params, dialect=dialect)
    return parse(response.data.decode())


_TIMES: dict[str, int] = {}


def _ms(text: str) -> int:
    """Epoch milliseconds of an RFC 3339 time; window times repeat across series, so they are remembered."""
    found = _TIMES.get(text)
    if found is None:
        if len(_TIMES) > 100_000:
            _TIMES.clear()
        found = _TIMES[text] = int(datetime.fromisoformat(text).timestamp() * 1000)
    return found


def parse(text: str) -> list[Table]:
    """Tables of Flux's CSV: a header starts each block; `result`, `table`, `_time` (when kept) and `_value` come
    first, then the group columns (field, tags), which may be quoted device strings and are read once per table.
    Blocks without times (windows on a grid, one value a window) are read in bulk (`_untimed`): a page's
    windows are most of what it reads, and a loop per row cost as much as InfluxDB took to answer."""
    tables: list[Table] = []
    for block in text.split("\r\n\r\n"):
        lines = block.split("\r\n")
        types: list[str] = []
        while lines and (not lines[0] or lines[0].startswith("#")):  # annotations; a blank line of an empty result
            if lines[0].startswith("#datatype"):
                types = lines[0].split(",")
            lines.pop(0)
        while lines and not lines[-1]:
            lines.pop()
        if len(lines) < 2:
            continue
        names = next(csv.reader([lines[0]]))
        if "error" in names and "_value" not in names:  # a query that failed part-way: no partial data
            raise QueryError("InfluxDB could not finish the query")
        at_time = names.index("_time") if "_time" in names else -1
        at_value = names.index("_value")
        lead = max(at_time, at_value) + 1
        value_type = types[at_value] if at_value < len(types) else ""
        if sorted({0, 1, 2, at_value, max(at_time, 0)}) != list(range(lead)):
            lead = 0  # an unexpected column order: read every row as CSV
        if at_time < 0 and lead == 4 and at_value == 3:
            tables += _untimed(lines, names, value_type)
        else:
            tables += _rows(lines, names, at_time, at_value, lead, value_type)
    return tables


def _untimed(lines: list[str], names: list[str], value_type: str) -> list[Table]:
    """A block of ",result,table,value,group..." rows: split once each, cut into tables where the table number
    changes, each table's group from its first row."""
    rows = [line.split(",", 4) for line in lines[1:]]
    tables, start = [], 0
    for _, run in groupby(rows, key=itemgetter(2)):
        size = sum(1 for _ in run)
        full = next(csv.reader([lines[1 + start]]))
        group = {name: full[i] for i, name in enumerate(names) if i > 3}
        values = [float(row[3]) if row[3] else None for row in rows[start : start + size]]
        tables.append(Table(full[1], group, list(zip(repeat(None), values)), value_type))
        start += size
    return tables


def _rows(lines: list[str], names: list[str], at_time: int, at_value: int, lead: int, value_type: str) -> list[Table]:
    """A block read row by row."""
    tables: list[Table] = []
    current: Table | None = None
    number: tuple[str, str] | None = None
    for line in lines[1:]:
        parts = line.split(",", lead) if lead else next(csv.reader([line]))
        if current is None or (parts[1], parts[2]) != number:
            number = (parts[1], parts[2])
            full = parts if not lead else next(csv.reader([line]))
            group = {name: full[i] for i, name in enumerate(names) if i > 2 and i not in (at_time, at_value)}
            current = Table(parts[1], group, value_type=value_type)
            tables.append(current)
        value = parts[at_value]
        current.rows.append((_ms(parts[at_time]) if at_time >= 0 else None, float(value) if value else None))
    return tables
