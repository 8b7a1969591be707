"""The Celery application; configuration comes from Django settings (CELERY_*)."""

import os

from celery import Celery, signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "monitor.settings")

app = Celery("monitor")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(
    ["monitor.polling", "monitor.alerts", "monitor.health", "monitor.events", "monitor.graphs", "monitor.devices"]
)


@signals.worker_init.connect
@signals.worker_process_init.connect
def tune_garbage_collector(**kwargs) -> None:
    """Pollers make many short-lived objects: collect cycles rarely, never among what is loaded (each pool child)."""
    from collectors.procs import tune_gc_for_polling

    tune_gc_for_polling()


@signals.worker_init.connect
def yield_the_cpu_to_pages(**kwargs) -> None:
    """Pollers run at MONITOR_WORKER_NICE (pool children inherit it): pages and InfluxDB win a contended CPU."""
    from django.conf import settings

    from collectors.procs import lower_priority

    lower_priority(settings.MONITOR_WORKER_NICE)


@signals.worker_init.connect
def refuse_broken_profiles(**kwargs) -> None:
    """Workers validate device profiles once at start, like the web server's system check."""
    from monitor.devices.profiles import problems

    found = problems()
    if found:
        raise RuntimeError("device profiles have problems:\n" + "\n".join(found))
