"""System checks: the trap catalogue (traps.yaml) and the trap relays, checked once at start like the device
profiles."""

from django.conf import settings
from django.core.checks import Error, register


@register()
def check_trap_catalog(app_configs, **kwargs) -> list[Error]:
    from monitor.events.catalog import problems

    return [Error(message, id="events.E001", hint="Fix monitor/events/traps.yaml.") for message in problems()]


@register()
def check_trap_relays(app_configs, **kwargs) -> list[Error]:
    """Each EVENTS_TRAP_RELAYS entry must be an address or a name that resolves: one that is neither would never
    match, and the relay's traps would be dropped as another device's (credential_mismatch) without a word."""
    from monitor.events.sources import resolve

    return [
        Error(
            f"EVENTS_TRAP_RELAYS entry {relay!r} is neither an IP address nor a name that resolves",
            id="events.E002",
            hint="List the relays' addresses (IPv4 or IPv6) or DNS names, comma-separated.",
        )
        for relay in settings.EVENTS_TRAP_RELAYS
        if not resolve(relay)
    ]
