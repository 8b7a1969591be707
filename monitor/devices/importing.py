"""Bulk import of devices from CSV: every row is checked and tested like the admin form (monitor.devices.saving),
each bad row is reported with its line number and reason, and the good rows are imported. The file is read as a
whole first (monitor.devices.csvfile); the admin runs this in a worker (monitor.devices.importrun)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import IntegrityError, transaction
from django.dispatch import Signal

from monitor.devices.csvfile import COLUMNS, MAX_BYTES, SECRET_COLUMNS, BadFile, DeviceCsv, read_csv
from monitor.devices.saving import save_device
from monitor.models import Device

__all__ = ["MAX_BYTES", "BadFile", "RowOutcome", "import_devices", "import_rows", "place", "tree_path"]
log = logging.getLogger(__name__)


@dataclass
class RowOutcome:
    line: int
    name: str
    device: Device | None = None
    errors: list[str] = field(default_factory=list)

    @property
    def imported(self) -> bool:
        return self.device is not None


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


CLI_SKIP = "import again with --skip-test"  # how `manage.py import_devices` saves rows it cannot reach
ADMIN_IMPORT_SKIP = 'tick "Save devices that cannot be reached now"'  # the admin's upload form


def import_devices(data: bytes, skip_test: bool = False, skip_hint: str = CLI_SKIP) -> list[RowOutcome]:
    """Check and test every row, import the good ones; raises BadFile when the file itself is unusable."""
    return import_rows(read_csv(data), skip_test, skip_hint=skip_hint)


def import_rows(
    csv_file: DeviceCsv,
    skip_test: bool = False,
    on_row: Callable[[RowOutcome], None] | None = None,
    skip_hint: str = ADMIN_IMPORT_SKIP,
) -> list[RowOutcome]:
    """Each row in turn, its outcome handed to `on_row` as soon as it is known; a row that fails in a way nobody
    expected is refused with the kind of failure, and the rows after it are still imported."""
    outcomes, seen = [], set()
    for line, cells in csv_file.rows:
        outcome = _one_row(csv_file.header, line, cells, seen, skip_test, skip_hint)
        outcomes.append(outcome)
        if on_row is not None:
            on_row(outcome)
    return outcomes


def _one_row(
    header: list[str], line: int, cells: list[str], seen: set[str], skip_test: bool, skip_hint: str
) -> RowOutcome:
    row = dict(zip(header, cells, strict=False))
    name = (row.get("name") or "").strip()
    outcome = RowOutcome(line, name[:100])
    if len(cells) != len(header):
        outcome.errors.append(f"{len(header)} columns expected as in the header")
        return outcome
    if name.lower() in seen:
        outcome.errors.append(f"name {name[:100]!r} appears on an earlier line")
        return outcome
    seen.add(name.lower())
    values = {COLUMNS[k]: v if k in SECRET_COLUMNS else v.strip() for k, v in row.items()}
    values = {k: v for k, v in values.items() if v != ""}
    try:
        parts = tree_path(values.pop("tree")) if "tree" in values else None
    except ValueError as exc:
        outcome.errors.append(str(exc))
        return outcome
    if "enabled" in values:
        values["enabled"] = values["enabled"].lower() in ("1", "true", "yes", "on")
    values["skip_test"] = skip_test
    try:
        with transaction.atomic():
            device, errors = save_device(values, skip_hint=skip_hint)
            if device is not None and parts:
                place(device, parts)
    except IntegrityError:
        device, errors = None, {"name": ["a device of this name was saved meanwhile (by another import?)"]}
    except Exception as exc:  # one row's surprise costs that row, never the rows after it
        log.warning("import: line %d failed: %s", line, type(exc).__name__, exc_info=True)
        device, errors = None, {"__all__": [f"could not be tested or saved ({type(exc).__name__}); see the log"]}
    outcome.device = device
    outcome.errors = [f"{'' if f == '__all__' else f + ': '}{m}" for f, ms in errors.items() for m in ms]
    return outcome
