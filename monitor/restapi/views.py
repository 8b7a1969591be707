"""The REST API (Django REST framework): devices (list, add, change, delete, rediscover, ports, graphs), graphs and
trees, each limited to what the user may read (per-tree grants, as the pages); changes need the model permissions
the admin asks for, and adding or changing a device tests it first, with the admin form's messages."""

from __future__ import annotations

from django.db.models import QuerySet
from django.views.decorators.debug import sensitive_variables
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from monitor.devices.saving import save_device
from monitor.graphs.access import Access
from monitor.models import Device
from monitor.restapi import serializers as s

PERMISSION = {"create": "add", "update": "change", "partial_update": "change", "rediscover": "change"}


def paged(view: viewsets.GenericViewSet, rows: QuerySet, serializer: type) -> Response:
    """One page of an action's rows, as every list of the API is paged (monitor/restapi/pagination.py)."""
    page = view.paginate_queryset(rows)
    return view.get_paginated_response(serializer(page, many=True).data)


class DevicePermission(permissions.IsAuthenticated):
    """Reading follows the trees a user may read; writing needs the model permission (the admin's)."""

    def has_permission(self, request, view) -> bool:
        if not super().has_permission(request, view):
            return False
        verb = "delete" if view.action == "destroy" else PERMISSION.get(view.action)
        return verb is None or request.user.has_perm(f"monitor.{verb}_device")


API_SKIP = 'send "skip_test": true'  # how an API client saves a device that cannot be reached now


class DeviceViewSet(viewsets.ModelViewSet):
    serializer_class = s.DeviceSerializer
    lookup_value_converter = "int"
    permission_classes = [DevicePermission]

    def get_queryset(self) -> QuerySet:
        return Access(self.request.user).devices().order_by("name")

    @sensitive_variables("serializer")  # its repr() shows the request's data, secrets included
    def _save(self, request: Request, instance: Device | None) -> Response:
        serializer = self.get_serializer(instance, data=request.data, partial=instance is not None)
        serializer.is_valid(raise_exception=True)  # types first (a string where a number goes, unknown choices)
        device, errors = save_device(dict(serializer.validated_data), instance, skip_hint=API_SKIP)
        if errors:
            raise ValidationError(errors)
        answer = self.get_serializer(device).data
        return Response(answer, status=status.HTTP_200_OK if instance else status.HTTP_201_CREATED)

    def create(self, request: Request, *args, **kwargs) -> Response:
        return self._save(request, None)

    def update(self, request: Request, *args, **kwargs) -> Response:
        return self._save(request, self.get_object())

    @extend_schema(request=None, responses=s.DeviceSerializer)
    @action(detail=True, methods=["post"])
    def rediscover(self, request: Request, pk=None) -> Response:
        """Rediscover the device (profile, identity, ports) at its next poll."""
        device = self.get_object()
        Device.objects.filter(pk=device.pk).update(rediscover=True)
        device.refresh_from_db()
        return Response(self.get_serializer(device).data)

    @extend_schema(responses=s.PortSerializer(many=True))
    @action(detail=True, methods=["get"])
    def ports(self, request: Request, pk=None) -> Response:
        """The device's ports as the last poll or discovery found them."""
        device = self.get_object()
        return paged(self, device.interfaces.order_by("if_index", "id"), s.PortSerializer)

    @extend_schema(responses=s.GraphSerializer(many=True))
    @action(detail=True, methods=["get"])
    def graphs(self, request: Request, pk=None) -> Response:
        """The device's graphs, each with the URL of its series."""
        device = self.get_object()
        readable = Access(request.user).graphs().filter(device=device).order_by("position", "id")
        return paged(self, readable, s.GraphSerializer)


class GraphViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.GraphSerializer
    lookup_value_converter = "int"
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self) -> QuerySet:
        return Access(self.request.user).graphs().order_by("device_id", "position", "id")


class TreeViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    serializer_class = s.TreeSerializer
    lookup_value_converter = "int"
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self) -> QuerySet:
        return Access(self.request.user).trees()

    @extend_schema(responses=s.NodeSerializer(many=True))
    @action(detail=True, methods=["get"])
    def nodes(self, request: Request, pk=None) -> Response:
        """Every node of the tree (headers, devices, graphs, aggregates), parents before children."""
        tree = self.get_object()
        return paged(self, tree.nodes.order_by("parent_id", "position", "id"), s.NodeSerializer)
