"""App configuration: the monitor's own events hang off the poll path's and the inventory's signals."""

from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "monitor.events"
    label = "events"
    verbose_name = "Events"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from monitor.devices.inventory import inventory_changed
        from monitor.events import checks, own, tasks  # noqa: F401 - checks and Celery tasks register themselves
        from monitor.models import Device
        from monitor.polling.signals import polls_finished

        polls_finished.connect(own.on_polls_finished, dispatch_uid="events-reboots")
        inventory_changed.connect(own.on_inventory_changed, dispatch_uid="events-inventory")
        post_save.connect(own.on_device_saved, sender=Device, dispatch_uid="events-device-added")
