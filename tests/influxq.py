"""Read InfluxDB back in tests: Flux with `params.name` placeholders bound through influxdb-client's params, and
how many queries it has answered."""

from __future__ import annotations

import re
import urllib.request
from dataclasses import dataclass

from monitor.timeseries.client import client


@dataclass(frozen=True)
class Bound:
    script: str
    params: dict[str, object]


def bind(script: str, params: dict[str, object], imports: tuple[str, ...] = ()) -> Bound:
    """`params.name` in the script becomes the parameter p_name (sent as an extern option, never pasted)."""
    head = "".join(f'import "{package}"\n' for package in imports)
    bound = re.sub(r"\bparams\.([A-Za-z_]\w*)", r"p_\1", script)
    return Bound(head + bound, {f"p_{k}": v for k, v in params.items()})


def query(bound: Bound | str) -> list:
    """The FluxTables of a bound script (or of a script without parameters)."""
    if isinstance(bound, str):
        return client().query_api().query(bound)
    return client().query_api().query(bound.script, params=bound.params)


def records(script: str, params: dict[str, object]) -> list:
    """Every record of the script's tables."""
    return [record for table in query(bind(script, params)) for record in table.records]


def influx_queries(influx, paths: tuple[str, ...] = ("/api/v2/query", "/query")) -> float:
    """How many queries InfluxDB has answered on these paths (Flux's and InfluxQL's by default; its own /metrics
    counter): proof of what reached it."""
    with urllib.request.urlopen(f"{influx.url}/metrics", timeout=10) as response:
        text = response.read().decode()
    lines = re.findall(r"^http_api_requests_total\{([^}]*)\} (\S+)$", text, re.M)
    return sum(float(value) for labels, value in lines if any(f'path="{path}"' in labels for path in paths))


def influx_quiet(influx, still_s: float = 0.5, timeout: float = 15.0) -> float:
    """The query count once nothing else has asked InfluxDB anything for `still_s` (another test's process that is
    still winding down): counts taken from here on are this test's own."""
    import time

    deadline = time.monotonic() + timeout
    count = influx_queries(influx)
    while time.monotonic() < deadline:
        time.sleep(still_s)
        now = influx_queries(influx)
        if now == count:
            return now
        count = now
    raise AssertionError(f"InfluxDB kept answering queries from elsewhere for {timeout:.0f} s")
