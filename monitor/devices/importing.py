"""Bulk import of devices from CSV: every row is checked and tested like the admin form (monitor.devices.saving),
each bad row is reported with its line number and reason, and the good rows are imported."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.db import transaction
from django.dispatch import Signal

from monitor.devices.saving import save_device
from monitor.models import Device

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 10_000
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
REQUIRED = ("name", "host")


class BadFile(ValueError):
    """The file as a whole cannot be read (encoding, header, size); no row was imported."""


@dataclass
class RowOutcome:
    line: int
    name: str
    device: Device | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def imported(self) -> bool:
        return self.device is not None


def _rows(data: bytes) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if len(data) > MAX_BYTES:
        raise BadFile(f"the file is larger than {MAX_BYTES // 1024 // 1024} MB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise BadFile(f"the file is not UTF-8 text (byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        raise BadFile("the file is empty: it needs a header line (name,host,...)") from None
    unknown = [name for name in header if name not in COLUMNS]
    if unknown:
        raise BadFile(f"unknown column(s) {', '.join(repr(n[:40]) for n in unknown)}; known: {', '.join(COLUMNS)}")
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise BadFile(f"the header lacks the column(s) {', '.join(missing)}")
    rows = []
    for cells in reader:
        if not any(cell.strip() for cell in cells):
            continue
        if len(rows) >= MAX_ROWS:
            raise BadFile(f"more than {MAX_ROWS} rows: split the file")
        rows.append((reader.line_num, cells))
    return header, rows


def tree_path(text: str) -> list[str]:
    """ "Network/Site A/Switches" -> the tree and its headers; a ValueError for an empty part."""
    parts = [part.strip() for part in text.split("/")]
    if any(not part for part in parts) or len(parts) < 2:
        raise ValueError(f"tree {text[:100]!r} must be 'Tree/Header[/Header...]' with no empty part")
    if any(len(part) > 100 for part in parts):
        raise ValueError("a tree or header name is longer than 100 characters")
    return parts


# Sent for a device given a tree path: graph trees (monitor.graphs.trees, above this package) place it there, so
# the inventory of devices knows nothing of trees. An import sends it inside the row's transaction (a failure undoes
# both); a subnet discovery after the device is saved, as it placed devices before.
tree_path_given = Signal()  # device, parts


def place(device: Device, parts: list[str]) -> None:
    """Put the device under the path's last header (the trees app creates what does not exist)."""
    tree_path_given.send(sender=Device, device=device, parts=parts)


def import_devices(data: bytes, skip_test: bool = False) -> list[RowOutcome]:
    """Check and test every row, import the good ones; raises BadFile when the file itself is unusable."""
    header, rows = _rows(data)
    outcomes, seen = [], set()
    for line, cells in rows:
        row = dict(zip(header, cells, strict=False))
        name = (row.get("name") or "").strip()
        outcome = RowOutcome(line, name)
        outcomes.append(outcome)
        if len(cells) != len(header):
            outcome.errors.append(f"{len(header)} columns expected as in the header")
            continue
        if name.lower() in seen:
            outcome.errors.append(f"name {name[:100]!r} appears on an earlier line")
            continue
        seen.add(name.lower())
        values = {
            COLUMNS[k]: v.strip() if k not in ("community", "v3_auth_key", "v3_priv_key") else v for k, v in row.items()
        }
        values = {k: v for k, v in values.items() if v != ""}
        try:
            parts = tree_path(values.pop("tree")) if "tree" in values else None
        except ValueError as exc:
            outcome.errors.append(str(exc))
            continue
        if "enabled" in values:
            values["enabled"] = values["enabled"].lower() in ("1", "true", "yes", "on")
        values["skip_test"] = skip_test
        with transaction.atomic():
            device, errors = save_device(values)
            if device is not None and parts:
                place(device, parts)
        outcome.device = device
        outcome.errors = [f"{'' if f == '__all__' else f + ': '}{m}" for f, ms in errors.items() for m in ms]
    return outcomes
