"""The InfluxDB client for pages, and Flux results read as plain tables (a lean CSV reader, values bound as
parameters by influxdb-client's `params=`, which OSS 2.7 honours as `extern` options)."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from itertools import repeat

import orjson
from django.conf import settings
from influxdb_client import Dialect, InfluxDBClient

# The "default" annotation names a block's result once, and its rows leave their result column empty: a page's window
# rows were a sixth shorter for InfluxDB to write and for `parse` to read (docs/performance.md).
_DIALECT = Dialect(header=True, annotations=["default"], delimiter=",", comment_prefix="#", date_time_format="RFC3339")
_TYPED = Dialect(
    header=True, annotations=["datatype", "default"], delimiter=",", comment_prefix="#", date_time_format="RFC3339"
)


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


# A table of an untimed block: its first line's ",result,table," prefix repeated on every line that follows (the
# backreference keeps "1," from matching "10,").
_TABLE_RUN = re.compile(r"^(,[^,\r\n]*,\d+,)[^\r\n]*(?:\r\n\1[^\r\n]*)*", re.M)
# The value column of each line of "\n" + lines: the newline written out, since a search for "^" in MULTILINE mode
# tries every character of the text (2.3x slower).
_VALUE_AFTER_NEWLINE = re.compile(r"\n,[^,\r\n]*,\d+,([^,\r\n]*)")


def parse(text: str) -> list[Table]:
    """Tables of Flux's CSV: a header starts each block; `result` (empty where the block's "#default" line names
    it), `table`, `_time` (when kept) and `_value` come first, then the group columns (field, tags), which may be
    quoted device strings and are read once per table.
    Blocks without times (windows on a grid, one value a window) are read in bulk (`_untimed`): a page's
    windows are most of what it reads, and a loop per row cost as much as InfluxDB took to answer."""
    tables: list[Table] = []
    for block in text.split("\r\n\r\n"):
        types: list[str] = []
        result = ""
        while block.startswith(("#", "\r\n")):  # annotations; a blank line of an empty result
            line, _, block = block.partition("\r\n")
            if line.startswith("#datatype"):
                types = line.split(",")
            elif line.startswith("#default"):
                result = next(csv.reader([line]))[1]
        head, _, body = block.rstrip("\r\n").partition("\r\n")
        if not body:
            continue
        names = next(csv.reader([head]))
        if "error" in names and "_value" not in names:  # a query that failed part-way: no partial data
            raise QueryError("InfluxDB could not finish the query")
        at_time = names.index("_time") if "_time" in names else -1
        at_value = names.index("_value")
        lead = max(at_time, at_value) + 1
        value_type = types[at_value] if at_value < len(types) else ""
        if sorted({0, 1, 2, at_value, max(at_time, 0)}) != list(range(lead)):
            lead = 0  # an unexpected column order: read every row as CSV
        if at_time < 0 and lead == 4 and at_value == 3:
            tables += _untimed(body, names, value_type, result)
        else:
            tables += _rows(body.split("\r\n"), names, at_time, at_value, lead, value_type, result)
    return tables


def _untimed(body: str, names: list[str], value_type: str, result: str = "") -> list[Table]:
    """The rows of a block of ",result,table,value,group..." lines: every value by one regular expression and
    read as JSON in one call, each table's lines by slicing (a table of windows on a grid has as many lines as the
    one before it, checked at both ends), its group from its first line. A third of the time of a regular expression
    per table (docs/performance.md); lines it cannot slice so are read by `_table_runs`."""
    lines = body.split("\r\n")
    texts = _VALUE_AFTER_NEWLINE.findall("\n" + body)
    if len(texts) != len(lines):  # a line not of that shape (a quoted group value over two lines)
        return _table_runs(body, names, value_type, result)
    values = _numbers(texts)
    tables, at, size = [], 0, 1
    while at < len(lines):
        first = lines[at]
        prefix = first[: first.index(",", first.index(",", 1) + 1) + 1]  # ",result,table,"
        end = at + size
        if not (end <= len(lines) and lines[end - 1].startswith(prefix) and not _starts(lines, end, prefix)):
            end = at + 1  # not the size of the table before: find its end line by line
            while _starts(lines, end, prefix):
                end += 1
            size = end - at
        tables.append(Table(*_named(first, names, result), list(zip(repeat(None), values[at:end])), value_type))
        at = end
    return tables


def _named(line: str, names: list[str], result: str = "") -> tuple[str, dict[str, str]]:
    """A table's result name (the line's own, else the block's `result`) and group (the columns after its value)
    from one of its lines, read as CSV: group values are device strings and may be quoted."""
    full = next(csv.reader([line]))
    return full[1] or result, {name: full[i] for i, name in enumerate(names) if i > 3}


def _starts(lines: list[str], at: int, prefix: str) -> bool:
    return at < len(lines) and lines[at].startswith(prefix)


def _numbers(texts: list[str]) -> list[float | int | None]:
    """Values as written by InfluxDB ("" for none) as numbers, parsed as one JSON array (a loop of float() per
    value took twice as long; a whole number comes back an int); NaN or infinities, which JSON has no words for,
    are read one by one."""
    if not texts:
        return []
    text = ("[" + ",".join(texts) + "]").replace(",,", ",null,").replace(",,", ",null,")  # twice: ",,," too
    text = text.replace("[,", "[null,").replace(",]", ",null]") if len(texts) > 1 else f"[{texts[0] or 'null'}]"
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return [float(value) if value else None for value in texts]


def _table_runs(body: str, names: list[str], value_type: str, result: str = "") -> list[Table]:
    """`_untimed`'s rows a table at a time: its lines found by one regular expression, its values by another."""
    tables = []
    for run in _TABLE_RUN.finditer(body):
        lines = run.group(0)
        values = [float(value) if value else None for value in _VALUE_AFTER_NEWLINE.findall("\n" + lines)]
        named = _named(lines.partition("\r\n")[0], names, result)
        tables.append(Table(*named, list(zip(repeat(None), values)), value_type))
    return tables


def _rows(
    lines: list[str], names: list[str], at_time: int, at_value: int, lead: int, value_type: str, result: str = ""
) -> list[Table]:
    """A block's lines (after its header) read row by row; a row's empty result is the block's `result`."""
    tables: list[Table] = []
    current: Table | None = None
    number: tuple[str, str] | None = None
    for line in lines:
        parts = line.split(",", lead) if lead else next(csv.reader([line]))
        if current is None or (parts[1], parts[2]) != number:
            number = (parts[1], parts[2])
            full = parts if not lead else next(csv.reader([line]))
            group = {name: full[i] for i, name in enumerate(names) if i > 2 and i not in (at_time, at_value)}
            current = Table(parts[1] or result, group, value_type=value_type)
            tables.append(current)
        value = parts[at_value]
        current.rows.append((_ms(parts[at_time]) if at_time >= 0 else None, float(value) if value else None))
    return tables
