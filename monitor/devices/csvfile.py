"""Read a device CSV as a whole before anything is imported: size, encoding, NUL bytes, quoting, field and row
counts, and the header's columns. Any of them wrong refuses the file with the line and the reason (BadFile)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 10_000
MAX_FIELD = 10_000  # characters: no column needs more (a name has 100, a host 255, a key a few dozen)
# CSV column -> device form field; several spellings are accepted for the common ones.
COLUMNS = {
    "name": "name",
    "host": "host",
    "port": "port",
    "version": "snmp_version",
    "snmp_version": "snmp_version",
    "community": "community",
    "v3_user": "v3_user",
    "v3_security_level": "v3_security_level",
    "v3_auth_protocol": "v3_auth_protocol",
    "v3_auth_key": "v3_auth_key",
    "v3_priv_protocol": "v3_priv_protocol",
    "v3_priv_key": "v3_priv_key",
    "timeout_s": "timeout_s",
    "retries": "retries",
    "max_repetitions": "max_repetitions",
    "interval": "poll_interval_s",
    "poll_interval_s": "poll_interval_s",
    "group": "poller_group",
    "poller_group": "poller_group",
    "enabled": "enabled",
    "profile": "pinned_profile",
    "tree": "tree",
}
SECRET_COLUMNS = ("community", "v3_auth_key", "v3_priv_key")  # kept as typed (spaces count), never shown back
REQUIRED = ("name", "host")


class BadFile(ValueError):
    """The file as a whole cannot be read (encoding, header, size); no row was imported."""


@dataclass(frozen=True)
class DeviceCsv:
    """A readable device CSV: its header (lower case) and its non-empty rows with their line numbers."""

    header: list[str]
    rows: list[tuple[int, list[str]]]


def read_csv(data: bytes) -> DeviceCsv:
    """The file's header and rows, or BadFile naming what is wrong (and where) when any of it cannot be read."""
    if len(data) > MAX_BYTES:
        raise BadFile(f"the file is larger than {MAX_BYTES // 1024 // 1024} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadFile(f"the file is not UTF-8 text (byte {exc.start})") from None
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise BadFile(f"line {line} holds a NUL byte: this is not a CSV text file")
    lines = _lines(text)
    try:
        _, header = next(lines)
    except StopIteration:
        raise BadFile("the file is empty: it needs a header line (name,host,...)") from None
    header = [name.strip().lower() for name in header]
    _check_header(header)
    rows = []
    for line, cells in lines:
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= MAX_ROWS:
            raise BadFile(f"more than {MAX_ROWS} rows: split the file")
        rows.append((line, cells))
    return DeviceCsv(header, rows)


def _lines(text: str):
    """(first line number, cells) of each record; a quoting error or an over-long field is a BadFile there."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    while True:
        line = reader.line_num + 1
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise BadFile(f"line {line}: {_reason(str(exc))}") from None
        if any(len(cell) > MAX_FIELD for cell in cells):
            raise BadFile(f"line {line}: a field is longer than {MAX_FIELD} characters")
        yield line, cells


def _reason(error: str) -> str:
    if "field larger than field limit" in error:
        return f"a field is longer than {MAX_FIELD} characters"
    if "unexpected end of data" in error:
        return "a quoted field is never closed"
    return f"not valid CSV ({error[:100]})"


def _check_header(header: list[str]) -> None:
    unknown = [name for name in header if name not in COLUMNS]
    if unknown:
        raise BadFile(f"unknown column(s) {', '.join(repr(n[:40]) for n in unknown)}; known: {', '.join(COLUMNS)}")
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise BadFile(f"the header lacks the column(s) {', '.join(missing)}")
    fields: dict[str, str] = {}
    for name in header:
        if name in fields.values():
            raise BadFile(f"the column {name!r} appears twice")
        if COLUMNS[name] in fields:
            raise BadFile(f"the columns {fields[COLUMNS[name]]!r} and {name!r} both set {COLUMNS[name]}")
        fields[COLUMNS[name]] = name
