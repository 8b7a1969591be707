"""App configuration for graph trees and dashboards: devices given a tree path are placed in it."""

from django.apps import AppConfig


class TreesConfig(AppConfig):
    name = "monitor.graphs.trees"
    label = "trees"
    verbose_name = "Graph trees and dashboards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from monitor.devices.importing import tree_path_given
        from monitor.graphs.trees import receivers

        tree_path_given.connect(receivers.on_tree_path_given, dispatch_uid="trees-place")
