"""The Django project: core, timeseries, devices, polling, graphs and alerts, each a package; imports flow that way."""

from monitor.celery import app as celery_app

__all__ = ["celery_app"]
