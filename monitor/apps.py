"""App configuration."""

from django.apps import AppConfig


class MonitorConfig(AppConfig):
    name = "monitor"
    verbose_name = "SNMP monitor"

    def ready(self) -> None:
        from monitor import checks, ratelimit  # noqa: F401 (registers the system checks and login counting)
