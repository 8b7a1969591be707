"""The monitor's own events: reboots seen in sysUpTime, port renames, speed and link changes, devices added and
rediscovered (hung off polls_finished, the inventory's signal and the device rows)."""

from __future__ import annotations

import logging

from monitor.events.record import make, record, store

log = logging.getLogger(__name__)


def _uptime(seconds) -> str:
    if not isinstance(seconds, int | float):
        return ""
    minutes = int(seconds // 60)
    return f" (up {minutes // 60} h {minutes % 60} min)" if minutes >= 60 else f" (up {minutes} min)"


def on_polls_finished(sender, polls: list, **kwargs) -> None:
    """A reboot (sysUpTime grew less than the time since the last poll) is an event of its device."""
    rows = [
        make(
            poll.device.pk, "reboot", "Rebooted: sysUpTime went back" + _uptime(getattr(poll.device, "uptime_s", None))
        )
        for poll in polls
        if getattr(poll, "rebooted", False)
    ]
    if rows:
        try:
            store(rows)
        except Exception as exc:
            log.warning("reboot events not recorded: %s", exc)


def on_inventory_changed(sender, device, changes: list[dict], **kwargs) -> None:
    """Ports renamed, speeds changed, links down or up (seen by polls), a rediscovery: one event each."""
    rows = []
    for change in changes:
        kind = change["kind"]
        if kind == "renamed":
            rows.append(
                make(
                    device.pk,
                    "port_renamed",
                    f"ifIndex {change['if_index']} renamed: {change['old']} → {change['new']}",
                    port=change["new"],
                )
            )
        elif kind == "speed_bps":
            old, new = _speed(change["old"]), _speed(change["new"])
            rows.append(
                make(device.pk, "speed_changed", f"Speed of {change['port']}: {old} → {new}", port=change["port"])
            )
        elif kind == "oper_up" and change["old"] is not None and change["new"] is not None:
            up = bool(change["new"])
            text = f"{change['port']} {'came up' if up else 'went down'} (seen by a poll)"
            rows.append(make(device.pk, "port_up" if up else "port_down", text, port=change["port"]))
        elif kind == "rediscovered":
            was = f" (was {change['old']})" if change.get("old") and change["old"] != change["new"] else ""
            rows.append(make(device.pk, "rediscovered", f"Rediscovered: profile {change['new'] or 'none'}{was}"))
    if rows:
        try:
            store(rows)
        except Exception as exc:
            log.warning("port events of %s not recorded: %s", device.pk, exc)


def _speed(bps) -> str:
    if not bps:
        return "unknown"
    for factor, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if bps >= factor:
            return f"{bps / factor:g} {unit}"
    return f"{bps} bit/s"


def on_device_saved(sender, instance, created: bool, raw: bool = False, **kwargs) -> None:
    """A new device row is an event of its own (not a fixture load)."""
    if created and not raw:
        record(instance.pk, "device_added", f"Device {instance.name} added ({instance.host})")
