"""The SNMP session interface's types, free of any SNMP library: targets, values, errors, OIDs."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

Oid = tuple[int, ...]


MALFORMED_TEXT = "malformed SNMP response from the agent"


class SnmpError(Exception):
    """The agent could not be read; the message is safe to show (no secrets)."""


class SnmpTimeout(SnmpError):
    """The agent did not answer in time."""


class SnmpValue(NamedTuple):
    """A decoded SNMP value: kind is int, counter32, counter64, gauge, timeticks, octets, oid, ip or missing.

    A NamedTuple, not a frozen dataclass: one is built per varbind, and this is several times cheaper.
    """

    kind: str
    value: Any = None

    @property
    def missing(self) -> bool:
        return self.kind == "missing"

    def printable(self, limit: int = 255) -> str:
        """Device text made safe to keep: octets decoded leniently, control characters dropped, capped."""
        if self.kind != "octets":
            return ""
        text = self.as_text()
        if not text.isprintable():
            text = "".join(ch for ch in text if ch.isprintable())
        return text.strip()[:limit]

    def as_text(self) -> str:
        """Return the value as printable text (octets decoded leniently, never raising)."""
        if isinstance(self.value, bytes):
            return self.value.decode("utf-8", errors="replace")
        return "" if self.value is None else str(self.value)


MISSING = SnmpValue("missing")
END_OF_MIB = SnmpValue("missing")  # same kind as MISSING, told apart by identity: a walk column ends here


@dataclass(frozen=True)
class SnmpTarget:
    """Where and how to reach an agent. Secrets are kept out of repr()."""

    host: str
    port: int = 161
    version: str = "2c"
    community: str = field(default="public", repr=False)
    v3_user: str = ""
    v3_auth_protocol: str = ""
    v3_auth_key: str = field(default="", repr=False)
    v3_priv_protocol: str = ""
    v3_priv_key: str = field(default="", repr=False)
    timeout: float = 2.0
    retries: int = 1
    max_repetitions: int = 25


@lru_cache(maxsize=4096)
def parse_oid(text: str) -> Oid:
    """Turn '1.3.6.1...' (leading dot allowed) into a tuple of ints (cached: polls ask for the same columns)."""
    return tuple(int(part) for part in text.strip().lstrip(".").split("."))


def format_oid(oid: Iterable[int]) -> str:
    return ".".join(str(part) for part in oid)


class ColumnWalk:
    """The bookkeeping of walking table columns side by side, shared by every engine.

    An engine asks for `asked()`, hands each response to `absorb()`, and stops when `active` is empty.
    A walk ends a column at endOfMibView, when the agent leaves its subtree or answers the asked OID itself
    with an exception (noSuchObject, noSuchInstance), and fails on OIDs out of order (a looping table) or
    more than `max_rows` rows.
    """

    def __init__(
        self,
        columns: list[str],
        max_rows: int,
        expected_rows: int | dict[str, int] | None = None,
        timed: Iterable[str] = (),
    ):
        self.columns = columns
        self.max_rows = max_rows
        known = expected_rows if isinstance(expected_rows, dict) else dict.fromkeys(columns, expected_rows)
        self.expected = [known.get(column) for column in columns]
        self.roots = [parse_oid(column) for column in columns]
        self.last: list[Oid] = [() for _ in columns]  # the index of the last row read in each column
        self.tables: list[dict[Oid, SnmpValue]] = [{} for _ in columns]
        self.active = list(range(len(columns)))
        wanted = set(timed)
        self.times: list[dict[Oid, float] | None] = [{} if column in wanted else None for column in columns]

    def asked(self) -> list[Oid]:
        return [self.roots[i] + self.last[i] for i in self.active]

    def repetitions(self, most: int) -> int:
        """GETBULK max-repetitions for the next request: what is left of the tables whose size is known from
        the last poll, plus one row to see their end (rows past a table's end cost the agent and the decoder
        for nothing); `most` when a size is unknown or a table has grown."""
        need = 0
        for column in self.active:
            expected = self.expected[column]
            left = expected - len(self.tables[column]) if expected else -1
            if left < 0:
                return most
            need = max(need, left + 1)
        return min(most, need) if need else most

    def absorb(self, answers: list[tuple[Oid, SnmpValue]], at: float | None = None) -> None:
        """Take one response's (oid, value) varbinds, in request order, row after row; END_OF_MIB ends a column.

        `at` is when the agent's answer arrived: kept per row for the `timed` columns, so a
        counter's rate is timed by the response that carried it."""
        finished: set[int] = set()
        active, roots, last, tables, times = self.active, self.roots, self.last, self.tables, self.times
        width = len(active)
        for offset, (oid, value) in enumerate(answers):
            column = active[offset % width]
            if column in finished:
                continue
            root = roots[column]
            size = len(root)
            if value is END_OF_MIB or oid[:size] != root:
                finished.add(column)
                continue
            index = oid[size:]
            if index <= last[column]:
                if value.missing and index == last[column]:  # noSuchObject/noSuchInstance: column ended
                    finished.add(column)
                    continue
                raise self.looping(column)
            last[column] = index
            table = tables[column]
            table[index] = value
            if at is not None and times[column] is not None:
                times[column][index] = at  # type: ignore[index]
            if len(table) > self.max_rows:
                raise self.too_long(column)
        self.active = [i for i in self.active if i not in finished]

    def looping(self, column: int) -> SnmpError:
        return SnmpError(f"agent returned OIDs out of order in {format_oid(self.roots[column])} (looping table)")

    def too_long(self, column: int) -> SnmpError:
        root = format_oid(self.roots[column])
        return SnmpError(f"table {root} has more than {self.max_rows} rows; walk stopped")

    def read_times(self) -> dict[str, dict[Oid, float]]:
        """When each row of the timed columns was read."""
        return {column: t for column, t in zip(self.columns, self.times, strict=True) if t is not None}

    def result(self) -> dict[str, dict[Oid, SnmpValue]]:
        return dict(zip(self.columns, self.tables, strict=True))
