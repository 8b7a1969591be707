"""App configuration of the network's topology (hosts seen on switch ports)."""

from django.apps import AppConfig


class TopologyConfig(AppConfig):
    name = "monitor.topology"
    label = "topology"
    verbose_name = "Topology"
    default_auto_field = "django.db.models.BigAutoField"
