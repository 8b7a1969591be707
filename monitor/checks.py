"""Django system checks: device profiles are validated once at start, never during a poll."""

from django.core.checks import Error, register


@register()
def check_profiles(app_configs, **kwargs) -> list[Error]:
    """Every problem in a profile file, naming the file and the field."""
    from monitor.devices.profiles import problems

    return [Error(message, id="monitor.E001", hint="Fix the profile file, then restart.") for message in problems()]
