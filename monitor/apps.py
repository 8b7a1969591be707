"""App configuration."""

from django.apps import AppConfig


class MonitorConfig(AppConfig):
    name = "monitor"
    verbose_name = "SNMP monitor"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from monitor import checks  # noqa: F401 (registers the system checks)
        from monitor.devices import admin  # noqa: F401 (the device admin lives in monitor/devices/)
        from monitor.devices.inventory import forget_on_edit
        from monitor.models import Device, Interface

        for model in (Device, Interface):
            post_save.connect(forget_on_edit, sender=model, dispatch_uid=f"inventory-forget-{model.__name__}")
