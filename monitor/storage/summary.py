"""The array page's figures: per volume, member and pool over the range (IOPS, MB/s, latency, read share, I/O
size, queue depth), capacity and its forecast, the array's totals, and the three rankings an admin looks for."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from monitor.storage.forecast import Forecast, forecast
from monitor.timeseries import storage as ts

FIELDS = [
    "read_iops",
    "write_iops",
    "read_bps",
    "write_bps",
    "read_latency_ms",
    "write_latency_ms",
    "read_pct",
    "avg_io_bytes",
    "queue_depth",
]
KINDS = (("volume", "volume", "Volumes"), ("member", "member", "Members"), ("pool", "pool", "Pools"))
RANKED = 5


@dataclass
class Row:
    """One volume, member or pool: mean figures over the range (None where the device does not serve them)."""

    name: str
    figures: dict[str, float] = field(default_factory=dict)
    volumes: int = 0  # a pool's volumes, whose figures make its own where the device serves none for the pool
    used_bytes: float | None = None
    size_bytes: float | None = None
    forecast: Forecast = field(default_factory=lambda: Forecast("no capacity data"))

    def get(self, name: str) -> float | None:
        return self.figures.get(name)

    @property
    def iops(self) -> float | None:
        parts = [self.figures.get("read_iops"), self.figures.get("write_iops")]
        return sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None

    @property
    def bps(self) -> float | None:
        parts = [self.figures.get("read_bps"), self.figures.get("write_bps")]
        return sum(p for p in parts if p is not None) if any(p is not None for p in parts) else None

    @property
    def worst_latency_ms(self) -> float | None:
        parts = [
            p for p in (self.figures.get("read_latency_ms"), self.figures.get("write_latency_ms")) if p is not None
        ]
        return max(parts) if parts else None

    @property
    def free_bytes(self) -> float | None:
        if self.used_bytes is None or self.size_bytes is None:
            return None
        return max(0.0, self.size_bytes - self.used_bytes)


@dataclass
class ArraySummary:
    sections: list[tuple[str, str, list[Row]]]  # (measurement, title, rows)
    totals: dict[str, float | None]
    busiest: list[Row]
    slowest: list[Row]
    fill_first: list[Row]


def array_summary(device: str, start: datetime, end: datetime, now: datetime | None = None) -> ArraySummary:
    """Every figure of the array page for one device over [start, end] read as at `now`; capacity from the 30 days
    before `now`."""
    sections = []
    for measurement, tag, title in KINDS:
        figures = ts.means(measurement, device, tag, FIELDS, start, end, now)
        history = ts.capacity_history(measurement, device, tag, now=now)
        names = sorted({name for name, _ in figures} | set(history))
        rows = []
        for name in names:
            row = Row(name, {f: v for (n, f), v in figures.items() if n == name})
            points = history.get(name, [])
            if points:
                _, row.used_bytes, row.size_bytes = points[-1]
                row.forecast = forecast(points)
            rows.append(row)
        if rows:
            sections.append((measurement, title, rows))
    volumes = next((rows for m, _, rows in sections if m == "volume"), [])
    _pool_figures(sections, volumes, ts.volume_pools(device, start, end, now))
    return ArraySummary(
        sections=sections,
        totals=_totals(volumes),
        busiest=sorted((r for r in volumes if r.iops), key=lambda r: -(r.iops or 0))[:RANKED],
        slowest=sorted(
            (r for r in volumes if r.worst_latency_ms is not None), key=lambda r: -(r.worst_latency_ms or 0)
        )[:RANKED],
        fill_first=sorted((r for r in volumes if r.forecast.days_low is not None), key=lambda r: r.forecast.sort_key)[
            :RANKED
        ],
    )


def _pool_figures(sections: list, volumes: list[Row], pools: dict[str, str]) -> None:
    """Each pool's I/O from its volumes (IOPS, MB/s and queue depth add up, latency weighted by IOPS), where the
    device serves none for the pool itself; a pool only its volumes name gets a row too."""
    members: dict[str, list[Row]] = {}
    for row in volumes:
        if row.name in pools:
            members.setdefault(pools[row.name], []).append(row)
    if not members:
        return
    section = next((s for s in sections if s[0] == "pool"), None)
    if section is None:
        section = ("pool", "Pools", [])
        sections.append(section)
    rows = {row.name: row for row in section[2]}
    for pool, found in sorted(members.items()):
        row = rows.get(pool)
        if row is None:
            row = rows[pool] = Row(pool)
            section[2].append(row)
        row.volumes = len(found)
        totals = {k: v for k, v in _totals(found).items() if v is not None}
        row.figures = totals | row.figures  # the device's own pool figures win
    section[2].sort(key=lambda r: r.name)


def _totals(volumes: list[Row]) -> dict[str, float | None]:
    """The array's figures from its volumes: IOPS and MB/s add up; latency is weighted by each volume's IOPS."""

    def total(name: str) -> float | None:
        values = [r.get(name) for r in volumes if r.get(name) is not None]
        return sum(values) if values else None  # type: ignore[arg-type]

    def weighted(latency: str, ops: str) -> float | None:
        pairs = [(r.get(latency), r.get(ops)) for r in volumes if r.get(latency) is not None and r.get(ops)]
        weight = sum(o for _, o in pairs)  # type: ignore[misc]
        return sum(lat * o for lat, o in pairs) / weight if weight else None  # type: ignore[operator]

    reads, writes = total("read_iops"), total("write_iops")
    read_bps, write_bps = total("read_bps"), total("write_bps")
    ops = (reads or 0) + (writes or 0)
    return {
        "read_iops": reads,
        "write_iops": writes,
        "read_bps": read_bps,
        "write_bps": write_bps,
        "read_latency_ms": weighted("read_latency_ms", "read_iops"),
        "write_latency_ms": weighted("write_latency_ms", "write_iops"),
        "read_pct": 100.0 * (reads or 0) / ops if ops else None,
        "avg_io_bytes": ((read_bps or 0) + (write_bps or 0)) / ops if ops else None,
        "queue_depth": total("queue_depth"),  # outstanding I/Os add up
    }
