"""An array's health as its own tools show it first: every part its profile reads a status of (member, RAID set,
disk, fan, temperature, power supply, controller, enclosure), each status code mapped by the profile's state maps
(docs/profiles.md "States") to one vocabulary, what is failed, rebuilding, degraded or warning first."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from collectors.profiles import Profile
from collectors.profileschema import STATES
from monitor.core.levels import REPLICATION_LAG_S
from monitor.timeseries import tiers
from monitor.timeseries.client import run

# How far back a part's newest status is looked for: a few polls of the slowest device (an hour's poll and two more)
LOOK_BACK = timedelta(hours=3)
# A rebuild's rate: its progress over the last half hour
RATE_OVER = timedelta(minutes=30)
# A replication's lag (seconds its destination is behind), shown beside its status (docs/schema.md `replication`)
LAG = "lag_s"
# A volume's snapshot reserve used and the array's own warning level for it (EqualLogic), beside its status
RESERVE_USED, RESERVE_WARNING = "snapshot_used_pct", "snapshot_warning_pct"
# What a part is called: by its table's `kind` tag where it has one (sensor tables), else by its measurement
LABELS = {
    "member": "Member",
    "raid": "RAID set",
    "disk": "Disk",
    "sensor": "Sensor",
    "pool": "Pool",
    "volume": "Volume",
    "system": "System",
    "temperature": "Temperature",
    "fan": "Fan",
    "psu": "Power supply",
    "controller": "Controller",
    "enclosure": "Enclosure",
    "io_module": "I/O module",
    "cache": "Cache",
    "replication": "Replication",
    "process": "Process",
    "filesystem": "File system",
    "alert": "Alert",
    "server": "Server",
    "ups": "UPS",
    "voltage": "Voltage",
    "alarm": "Audible alarm",
    "storage_center": "Storage Center",
}
# A status field's name beside its part's, where a part has several (a member's health and its RAID set's)
FIELDS = {
    "status": "",
    "health": "health",
    "raid_status": "RAID",
    "system_status": "status",
    "power_status": "power",
    "system_fan_status": "fan",
    "global_status": "status",
    "failover_status": "failover",
    "over_temperature": "temperature",
    "nvram_battery": "NVRAM battery",
    "online": "",
    "healthy": "health",
    "battery_status": "battery",
    "state": "state",
    "bad_sectors": "bad sectors",
    "smart": "SMART",
    "role": "role",
    "connectivity": "",
    "ports_balanced": "ports",
    "disks_failed": "failed disks",
    "disks_prefailed": "pre-failed disks",
    "disks_reconstructing": "disks reconstructing",
    "parity_disks_reconstructing": "parity disks reconstructing",
    "disks_spare": "spare disks",
    "fans_failed": "failed fans",
    "psus_failed": "failed power supplies",
    "cluster_health": "cluster health",
    "ha_state": "HA state",
    "ha_partner": "HA partner",
}


@dataclass(frozen=True)
class Part:
    """One part's newest status: what it is, its name, the state and the vendor's word, when it was read."""

    kind: str
    name: str
    field: str
    state: str
    word: str
    at: datetime
    progress: float | None = None  # percent done of what the state says is under way (a rebuild)
    ends_at: datetime | None = None  # when it will be done at the rate of the last half hour
    behind_s: float | None = None  # a replication's lag: how far its destination is behind (beside its status)
    concern: str = ""  # an ok part that wants looking at all the same: "lagging", "near its reserve"
    reserve_pct: float | None = None  # a volume's snapshot reserve used, where the array has a warning level for it

    @property
    def rank(self) -> float:
        return -STATES.index(self.state) + (-0.5 if self.concern and self.state == "ok" else 0)  # the worst first

    @property
    def attention(self) -> bool:
        """Listed first on the page: not ok, or ok and lagging or near its reserve."""
        return self.state != "ok" or bool(self.concern)


@dataclass(frozen=True)
class _Watched:
    measurement: str
    static: tuple[tuple[str, str], ...]
    tags: tuple[str, ...]
    metric: object  # collectors.profiles.Metric with states
    needed: tuple[str, ...] = ()  # the tags every row of the table has (all but lookups by a column, which may fail)

    def holds(self, measurement: str | None, tags: dict) -> bool:
        """Whether a series (its measurement, its tags) is one of this table's rows: a Dell SC's controller fans
        and enclosure fans share a measurement and a kind, and differ by the tag naming their owner."""
        return (
            measurement == self.measurement
            and all(tags.get(k) == v for k, v in self.static)
            and all(tags.get(k) for k in self.needed)
        )

    def row(self, tags: dict) -> tuple[str, ...]:
        return tuple(tags.get(tag, "") for tag in self.tags)

    def part(self, tags: dict) -> str:
        """The row's name, as the page names it ("the device" for a scalar)."""
        return " ".join(tag for tag in self.row(tags) if tag) or "the device"  # a lookup that failed: no tag


def watched(profile: Profile | None) -> list[_Watched]:
    """The profile's status metrics: those with a state map."""
    if profile is None:
        return []
    out = [_Watched(profile.scalar_measurement, (), (), m) for m in profile.scalars if m.states]
    for table in profile.tables:
        static = tuple(sorted(table.static_tags.items()))
        names = tuple(tag.name for tag in table.tags if not tag.into)  # an `into` tag is part of another's text
        needed = tuple(tag.name for tag in table.tags if not tag.attribute and not tag.into)
        out += [_Watched(table.measurement, static, names, m, needed) for m in table.metrics if m.states]
    return out


def parts(device: str, profile: Profile | None, now: datetime | None = None) -> list[Part]:
    """Every watched part's newest status on `device` (its key), the worst first, then by kind and name."""
    watching = watched(profile)
    if not watching:
        return []
    now = now or datetime.now(timezone.utc)
    script = (
        "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n"
        "  |> filter(fn: (r) => r.device == p_device and contains(value: r._measurement, set: p_measurements)"
        " and contains(value: r._field, set: p_fields))\n"
        "  |> last()\n"
    )
    params = {
        "p_bucket": tiers.tiers()[0].bucket,
        "p_start": now - LOOK_BACK,
        "p_stop": now + timedelta(seconds=1),
        "p_device": device,
        "p_measurements": sorted({w.measurement for w in watching}),
        "p_fields": sorted(
            {w.metric.name for w in watching}
            | {w.metric.active for w in watching} - {""}
            | {LAG, RESERVE_USED, RESERVE_WARNING}
        ),
    }
    progress = _progress(device, watching, now)
    found: list[Part] = []
    tables = run(script, params)
    newest = {(_series(t.group), t.group.get("_field")): _number(t.rows[-1][1]) for t in tables if t.rows}
    for table in tables:
        group = table.group
        for watch in watching:
            if group.get("_field") != watch.metric.name or not watch.holds(group.get("_measurement"), group):
                continue
            series = _series(group)
            for t_ms, value in table.rows:
                meaning = _cleared(
                    watch, watch.metric.state_of(_number(value)), newest.get((series, watch.metric.active))
                )
                if meaning is None:
                    continue
                at = datetime.fromtimestamp((t_ms or 0) / 1000, timezone.utc)
                done = progress.get((watch.measurement, watch.metric.progress, watch.row(group)))
                behind = newest.get((series, LAG)) if watch.metric.name == "status" else None
                done = done or (None, None)
                concern, reserve = _concern(watch, newest, series, behind)
                found.append(
                    Part(
                        _kind(watch),
                        watch.part(group),
                        watch.metric.name,
                        *meaning,
                        at,
                        *done,
                        behind,
                        concern,
                        reserve,
                    )
                )
            break
    return sorted(found, key=lambda p: (p.rank, p.kind, p.name, p.field))


def _progress(device: str, watching: list[_Watched], now: datetime) -> dict[tuple, tuple[float, datetime | None]]:
    """{(measurement, progress field, row tags): (percent done now, when it will be done)} of the statuses with a
    progress, from its first and last value of the last RATE_OVER (no end while it does not move on)."""
    fields = sorted({w.metric.progress for w in watching if w.metric.progress})
    if not fields:
        return {}
    params = {"p_bucket": tiers.tiers()[0].bucket, "p_start": now - RATE_OVER, "p_stop": now + timedelta(seconds=1)}
    params |= {"p_device": device, "p_fields": fields}
    ends: dict[tuple, dict[str, tuple[float, float]]] = {}
    for which in ("first", "last"):
        script = (
            "from(bucket: p_bucket) |> range(start: p_start, stop: p_stop)\n"
            "  |> filter(fn: (r) => r.device == p_device and contains(value: r._field, set: p_fields))\n"
            f"  |> {which}()\n"
        )
        for table in run(script, params):
            for watch in watching:
                field = table.group.get("_field")
                if field == watch.metric.progress and watch.holds(table.group.get("_measurement"), table.group):
                    key = (watch.measurement, field, watch.row(table.group))
                    for t_ms, value in table.rows:
                        if _number(value) is not None:
                            ends.setdefault(key, {})[which] = ((t_ms or 0) / 1000, float(value))
                    break
    out = {}
    for key, seen in ends.items():
        if "last" not in seen:
            continue
        (t1, last), (t0, first) = seen["last"], seen.get("first", seen["last"])
        rate = (last - first) / (t1 - t0) if t1 > t0 else 0.0
        end = datetime.fromtimestamp(t1 + (100.0 - last) / rate, timezone.utc) if rate > 0 and last < 100 else None
        out[key] = (last, end)
    return out


def _cleared(watch: _Watched, meaning: tuple[str, str] | None, active: float | None) -> tuple[str, str] | None:
    """A status whose profile names an `active` TruthValue beside it is over once that says false: a Dell SC alert
    the array has cleared keeps its row and its status, and is ok. An `active` not read says nothing: the status
    stands (a firmware without the column must not hide a critical alert)."""
    if meaning is None or not watch.metric.active or active is None or active == 1:
        return meaning
    return "ok", "cleared"


def _series(group: dict) -> tuple:
    """A series' measurement and tags, without its field: what a status and the lag beside it share."""
    keep = [(k, v) for k, v in group.items() if k == "_measurement" or not k.startswith("_")]
    return tuple(sorted((k, v) for k, v in keep if k not in ("result", "table")))


def _number(value) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _concern(watch: _Watched, newest: dict, series: tuple, behind: float | None) -> tuple[str, float | None]:
    """(what wants looking at in an ok part, its snapshot reserve used): a replication behind by the built-in lag
    alert's level; a volume whose snapshot reserve is used past the array's own warning level."""
    if watch.metric.name != "status":
        return "", None
    if behind is not None and behind >= REPLICATION_LAG_S:
        return "lagging", None
    used, warning = newest.get((series, RESERVE_USED)), newest.get((series, RESERVE_WARNING))
    if used is None or warning is None:
        return "", None
    return ("near its reserve" if used >= warning else ""), used


def counts(found: list[Part]) -> list[tuple[str, int]]:
    """(state, how many parts are in it) for every state but ok that some part is in, the worst first; then the ok
    parts that want looking at ("lagging", "near its reserve")."""
    states = [(s, n) for s in reversed(STATES) if s != "ok" and (n := sum(p.state == s for p in found))]
    ok = [p.concern for p in found if p.state == "ok" and getattr(p, "concern", "")]  # PartState rows have none
    return states + [(c, ok.count(c)) for c in dict.fromkeys(ok)]


def _kind(watch: _Watched) -> str:
    kind = dict(watch.static).get("kind", "") or watch.measurement
    return f"{LABELS.get(kind, kind)} {FIELDS.get(watch.metric.name, watch.metric.name)}".strip()


def _named(watch: _Watched, tags: dict) -> str:
    """A part as the page, its PartState row and its alert target name it ("Disk eql-member-1 1"), within a row's
    255 characters."""
    return f"{_kind(watch)} {watch.part(tags)}"[:255]


def readings(profile: Profile | None, samples: list) -> list[tuple[str, str, str]]:
    """(part, state, the array's word) of every watched status in one poll's samples (collectors.samples.Sample), a
    part named as the page names it ("Disk 1")."""
    found = []
    for watch in watched(profile):
        for sample in samples:
            if not watch.holds(getattr(sample, "measurement", None), sample.tags):
                continue
            meaning = watch.metric.state_of(_number(sample.fields.get(watch.metric.name)))
            meaning = _cleared(watch, meaning, _number(sample.fields.get(watch.metric.active)))
            if meaning is not None:
                found.append((_named(watch, sample.tags), *meaning))
    return found


def word_event_parts(profile: Profile | None, samples: list) -> set[str]:
    """The parts (named as `readings` names them) whose status says `word_events`: a change of their word alone (a
    control module's role, primary to secondary: a failover) is an event on the timeline."""
    found = set()
    for watch in watched(profile):
        if watch.metric.word_events:
            for sample in samples:
                if watch.holds(getattr(sample, "measurement", None), sample.tags):
                    found.add(_named(watch, sample.tags))
    return found


def states_in(profile: Profile | None, samples: list) -> list[tuple[str, str]]:
    """(part, state) of every watched status in one poll's samples: what an alert rule on the array's health
    watches."""
    return [(part, state) for part, state, _ in readings(profile, samples)]
