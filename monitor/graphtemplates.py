"""Graph templates: which measurement, tag and fields a graph draws, and how to label them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SeriesDef:
    field: str
    label: str


@dataclass(frozen=True)
class GraphTemplate:
    """A kind of graph; `instance_tag` names the tag that the graph's instance selects (e.g. port)."""

    slug: str
    name: str
    measurement: str
    instance_tag: str | None
    series: tuple[SeriesDef, ...]
    unit: str
    totals: bool = False  # legend shows the total transferred (rate integrated over the range)
    total_divisor: float = 1.0  # bits -> bytes for traffic


TEMPLATES = {
    "traffic": GraphTemplate(
        slug="traffic",
        name="In/Out bits per second with total",
        measurement="interface",
        instance_tag="port",
        series=(SeriesDef("in_bps", "In"), SeriesDef("out_bps", "Out")),
        unit="bit/s",
        totals=True,
        total_divisor=8.0,
    ),
}
