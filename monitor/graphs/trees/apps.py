"""App configuration for graph trees and dashboards: devices given a tree path are placed in it; a directory sign-in
records the account for its API tokens' group checks."""

from django.apps import AppConfig


class TreesConfig(AppConfig):
    name = "monitor.graphs.trees"
    label = "trees"
    verbose_name = "Graph trees and dashboards"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from monitor.devices.importing import tree_path_given
        from monitor.graphs.trees import receivers
        from monitor.restapi import directory

        tree_path_given.connect(receivers.on_tree_path_given, dispatch_uid="trees-place")
        user_logged_in.connect(directory.on_login, dispatch_uid="trees-directory-login")
