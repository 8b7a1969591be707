"""App configuration: evaluation hangs off the polls_finished signal, so polling stays unaware of alerts."""

from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "monitor.alerts"
    label = "alerts"
    verbose_name = "Alerts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from monitor.alerts import evaluator, tasks  # noqa: F401 - tasks registers the Celery tasks
        from monitor.polling.signals import polls_finished

        polls_finished.connect(evaluator.on_polls_finished, dispatch_uid="alerts-evaluate")
