"""What the REST API shows of devices, ports, graphs and trees; secrets are write-only and never shown."""

from __future__ import annotations

from rest_framework import serializers

from monitor.core.secrets import masked
from monitor.devices.forms import DeviceForm
from monitor.graphs.trees.models import Tree, TreeNode
from monitor.models import DISCOVERY_FIELDS, POLL_STATUS_FIELDS, Device, Graph, Interface

SECRETS = ("community", "v3_auth_key", "v3_priv_key")
READ_ONLY = ("id", *DISCOVERY_FIELDS, *POLL_STATUS_FIELDS)  # what discovery and the polls write


class SecretCharField(serializers.CharField):
    """A write-only secret, read as a Secret (masked in tracebacks and debug pages); spaces kept as typed."""

    def __init__(self, **kwargs):
        super().__init__(write_only=True, required=False, allow_blank=True, trim_whitespace=False, **kwargs)

    def to_internal_value(self, data):
        return masked(super().to_internal_value(data))


class DeviceSerializer(serializers.ModelSerializer):
    """Reads a device; writes go through the device form (monitor.devices.saving), so checks and messages are the
    admin's. `skip_test` saves a device that cannot be reached now."""

    community = SecretCharField()
    v3_auth_key = SecretCharField()
    v3_priv_key = SecretCharField()
    skip_test = serializers.BooleanField(write_only=True, required=False, default=False)
    page = serializers.SerializerMethodField()

    class Meta:
        model = Device
        fields = [*READ_ONLY, *DeviceForm._meta.fields, "skip_test", "page"]
        read_only_fields = READ_ONLY

    def get_page(self, device: Device) -> str:
        return f"/devices/{device.pk}/"


class PortSerializer(serializers.ModelSerializer):
    class Meta:
        model = Interface
        fields = ["id", "name", "if_index", "alias", "speed_bps", "oper_up", "hc_counters", "graphed", "last_seen"]


class GraphSerializer(serializers.ModelSerializer):
    series = serializers.SerializerMethodField()

    class Meta:
        model = Graph
        fields = ["id", "device", "template", "instance", "title", "position", "series"]

    def get_series(self, graph: Graph) -> str:
        return f"/api/graphs/{graph.pk}/series"


class NodeSerializer(serializers.ModelSerializer):
    class Meta:
        model = TreeNode
        fields = ["id", "parent", "kind", "title", "device", "graph", "aggregate", "position"]


class TreeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tree
        fields = ["id", "name"]
