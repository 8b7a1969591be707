"""The Django project and app: devices, graphs, pages and Celery tasks."""

from monitor.celery import app as celery_app

__all__ = ["celery_app"]
