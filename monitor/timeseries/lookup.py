"""Which graph and field a result table belongs to: tables carry tags, graphs carry templates and members."""

from __future__ import annotations

from collections import defaultdict

from monitor.timeseries.client import Table
from monitor.timeseries.flux import Member, Plot


class Lookup:
    """Registered (graph, member, stored field) → (graph key, field); `index` sorts a script's tables by them."""

    def __init__(self) -> None:
        self._targets: dict[tuple, tuple[str, str]] = {}
        self._variants: set[tuple[str, str | None, tuple[str, ...]]] = set()
        self._measurements: set[str] = set()
        self._devices: set[str] = set()

    def register(self, plot: Plot, member: Member, stored: str, field: str) -> None:
        template = plot.template
        self._variants.add((template.measurement, template.instance_tag, tuple(sorted(template.filters))))
        instance = member.instance if template.instance_tag else ""
        self._measurements.add(template.measurement)
        self._devices.add(member.device)
        key = (template.measurement, member.device, instance, tuple(sorted(template.filters.items())), stored)
        self._targets[key] = (plot.key, field)

    def index(self, tables: list[Table]) -> dict[tuple[str, str], dict[str, list]]:
        """{(graph key, field): {result name: rows}}; tables of no registered series are ignored."""
        found: dict[tuple[str, str], dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for table in tables:
            target = self.target(table.group)
            if target is not None:
                found[target][table.result].extend(table.rows)
        return found

    def target(self, group: dict[str, str]) -> tuple[str, str] | None:
        """The (graph key, field) registered for a table's group (tags, `_measurement`, `_field`), if any. A group
        without a measurement or device has the only one registered (flux.keep_columns leaves it out then); a table
        without a field is none of them (the polls' records read in the same script: intervals.flux)."""
        if "_field" not in group:
            return None
        measurement_of = _filled(group, "_measurement", self._measurements)
        device = _filled(group, "device", self._devices)
        for measurement, tag, filters in self._variants:
            if measurement_of != measurement:
                continue
            key = (
                measurement,
                device,
                group.get(tag, "") if tag else "",
                tuple((name, group.get(name, "")) for name in filters),
                group.get("_field", ""),
            )
            target = self._targets.get(key)
            if target is not None:
                return target
        return None


def _filled(group: dict[str, str], column: str, registered: set[str]) -> str | None:
    """A group's `column`, else the only value registered for it. A table without it while several were registered
    was read with fewer columns than its script's lookup needs (keep_columns given fewer graphs than were
    registered): an error in the code, raised rather than its values dropped without a word."""
    if column in group:
        return group[column]
    if len(registered) > 1:
        raise RuntimeError(f"a result table has no {column} column and the read registered {len(registered)}")
    return next(iter(registered), None)
