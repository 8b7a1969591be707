"""App configuration: the latency unit and the path refresh hang off the polls_finished signal."""

from django.apps import AppConfig


class StorageConfig(AppConfig):
    name = "monitor.storage"
    label = "storage"
    verbose_name = "Storage"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from monitor.polling.signals import polls_finished
        from monitor.storage import receivers, tasks  # noqa: F401 - tasks registers the Celery tasks

        polls_finished.connect(receivers.on_polls_finished, dispatch_uid="storage-polls")
