"""System check: the trap catalogue (traps.yaml) is checked once at start, like the device profiles."""

from django.core.checks import Error, register


@register()
def check_trap_catalog(app_configs, **kwargs) -> list[Error]:
    from monitor.events.catalog import problems

    return [Error(message, id="events.E001", hint="Fix monitor/events/traps.yaml.") for message in problems()]
