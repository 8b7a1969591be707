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
        without a measurement or device has the only one registered (flux.keep_columns leaves it out then)."""
        measurement_of = group.get("_measurement", _only(self._measurements))
        device = group.get("device", _only(self._devices))
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


def _only(values: set[str]) -> str | None:
    """The one value of a set of one; None where there are none or several."""
    return next(iter(values)) if len(values) == 1 else None
