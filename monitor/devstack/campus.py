"""The demo's campus (issue 42): a core and a second access switch around the story pair, on an snmpsim agent of
their own, so the map has a network to draw, a MAC or IP search finds servers, and pausing the story pair's agent
(`manage.py demo_outage`) shows one alert for the access switch that names the array behind it."""

from __future__ import annotations

from pathlib import Path

from monitor.devstack import fleet, services
from monitor.devstack.processes import Process

STORY_PID = "story-agent.pid"  # in var/fleet: the agent of pc6248-demo and eql-demo, which demo_outage pauses
RULE = "Demo: any device not answering for 3 polls"


def start_agents(var: Path, story_port: int, campus_port: int, logs: Path) -> list[Process]:
    """The story pair's agent (with the control file the demo's story moves) and the campus agent."""
    story_data, campus_data = var / "fleet" / "data", var / "fleet" / "campus-data"
    for device in fleet.demo_fleet():
        device.write(story_data)
    for device in fleet.campus_fleet():
        device.write(campus_data)
    story = services.start_snmpsim(story_data, story_port, logs, control_file=var / "fleet" / "control.json")
    (var / "fleet" / STORY_PID).write_text(f"{story.popen.pid}\n")
    return [story, services.start_snmpsim(campus_data, campus_port, logs, name="snmpsim-campus")]


def ensure_devices(story_port: int, campus_port: int, poll_interval: int, admin) -> None:
    """Every demo device at its agent's port (kept up to date if the ports change), the core as the poller's side of
    the network (an override in the admin's Topology > Upstream devices), and one alert rule for every device."""
    from monitor.alerts.models import Rule
    from monitor.models import Device
    from monitor.topology.models import Upstream

    for sims, port in ((fleet.demo_fleet(), story_port), (fleet.campus_fleet(), campus_port)):
        for sim in sims:
            device, created = Device.objects.get_or_create(
                name=sim.sys_name,
                defaults={"host": "127.0.0.1", "port": port, "snmp_version": "2c", "community": sim.community,
                          "poll_interval_s": poll_interval, "timeout_s": 1.0, "retries": 1},
            )  # fmt: skip
            if not created and device.port != port:
                Device.objects.filter(pk=device.pk).update(port=port)
    core = Device.objects.get(name=fleet.campus_fleet()[0].sys_name)
    Upstream.objects.get_or_create(device=core, defaults={"parent": None})
    rule, created = Rule.objects.get_or_create(
        name=RULE,
        defaults={"metric": "not_answering", "scope": Rule.Scope.ALL, "fire_level": 0.5, "clear_level": 0.5,
                  "for_polls": 3},
    )  # fmt: skip
    if created:
        rule.recipient_users.add(admin)


def campus_devices() -> list:
    from monitor.models import Device

    return list(Device.objects.filter(name__in=[sim.sys_name for sim in fleet.campus_fleet()]).order_by("name"))
