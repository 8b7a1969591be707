"""App configuration: evaluation hangs off the poll_finished signal, so polling stays unaware of alerts."""

from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "monitor.alerts"
    label = "alerts"
    verbose_name = "Alerts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from monitor.alerts import evaluator, tasks  # noqa: F401 - tasks registers the Celery tasks
        from monitor.signals import poll_finished

        poll_finished.connect(evaluator.on_poll_finished, dispatch_uid="alerts-evaluate")
