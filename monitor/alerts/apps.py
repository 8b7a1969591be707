"""App configuration: evaluation hangs off the polls_finished signal, so polling stays unaware of alerts."""

from django.apps import AppConfig


class AlertsConfig(AppConfig):
    name = "monitor.alerts"
    label = "alerts"
    verbose_name = "Alerts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from monitor.alerts import checks, evaluator, eventrules, tasks, timeline  # noqa: F401 - checks, tasks register
        from monitor.alerts.models import Event, Maintenance
        from monitor.events.signals import events_stored
        from monitor.polling.signals import polls_finished

        polls_finished.connect(evaluator.on_polls_finished, dispatch_uid="alerts-evaluate")
        events_stored.connect(eventrules.on_events_stored, dispatch_uid="alerts-event-rules")
        post_save.connect(timeline.on_alert_event, sender=Event, dispatch_uid="alerts-timeline")
        post_save.connect(timeline.on_maintenance, sender=Maintenance, dispatch_uid="alerts-maintenance-timeline")
