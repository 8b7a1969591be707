"""App configuration for graph trees and dashboards."""

from django.apps import AppConfig


class TreesConfig(AppConfig):
    name = "monitor.graphs.trees"
    label = "trees"
    verbose_name = "Graph trees and dashboards"
    default_auto_field = "django.db.models.BigAutoField"
