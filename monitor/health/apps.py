"""App configuration: the pollers' health page, /metrics, its template tags and its once-a-minute sampling task."""

from django.apps import AppConfig


class HealthConfig(AppConfig):
    name = "monitor.health"
    label = "health"
    verbose_name = "Poller health"

    def ready(self) -> None:
        from monitor.health import tasks  # noqa: F401 - registers the Celery task
