"""The topology API: GET /api/hosts/?q=<MAC or IP> (where a host is plugged in, and where it was) and GET /api/map/
(the live map's devices and links), both of what the reader may see."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from monitor.graphs.access import Access
from monitor.graphs.timerange import PRESETS, RangeError, parse_range
from monitor.graphs.trees.models import TreeNode
from monitor.topology import hosts
from monitor.topology.mapdata import map_data

MAX_QUERY = 64


class PlaceSerializer(serializers.Serializer):
    switch = serializers.IntegerField(source="switch_id")
    switch_name = serializers.CharField(source="switch.name")
    port = serializers.CharField()
    vlan = serializers.IntegerField(allow_null=True)
    first_seen = serializers.DateTimeField()
    last_seen = serializers.DateTimeField()


class HostSearch(APIView):
    """Where a MAC address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff, aabb.ccdd.eeff or aabbccddeeff), or the MAC an IP
    address was last resolved to by a device's ARP cache, was seen on a switch's edge port (never an uplink), the
    newest first: the first is where it is plugged in now, the others where it was (at most 100); only devices the
    reader may see are searched. An IP address no cache holds answers no MAC and no place; where caches disagree,
    the MAC seen last (then the lowest) is the one followed."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("q", str, required=True, description="a MAC address in any common notation, or an IP")
        ],
        responses=inline_serializer(
            "HostSearch",
            {
                "query": serializers.CharField(),
                "mac": serializers.CharField(allow_null=True),
                "places": PlaceSerializer(many=True),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        if not query:
            raise ValidationError({"q": "name a MAC or IP address: q=aa:bb:cc:dd:ee:ff or q=10.0.0.42"})
        if len(query) > MAX_QUERY:
            raise ValidationError({"q": f"at most {MAX_QUERY} characters"})
        if hosts.mac_of(query) is None and not hosts.is_ip(query):
            raise ValidationError({"q": "not a MAC or IP address (aa:bb:cc:dd:ee:ff, aabb.ccdd.eeff, 10.0.0.42...); "
                                        "names are not searchable yet"})  # fmt: skip
        mac, rows = hosts.search(query, Access(request.user).devices())
        return Response({"query": query, "mac": mac, "places": PlaceSerializer(rows, many=True).data})


class MapNodeSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(["switch", "array", "other"])
    status = serializers.CharField()
    url = serializers.CharField()


class NetworkMap(APIView):
    """The live map's data over a time range (`range`, or `start` and `end` as every graph takes them): the devices
    the reader may see (`tree`: those of one readable tree) and the links between two of them, each with both
    directions' mean and peak bit rate and % of its speed over the range, its discards and errors, and whether it is
    gone (docs/topology.md, "The map")."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("range", str, enum=list(PRESETS), description="a preset window ending now (default 1d)"),
            OpenApiParameter("start", str, description="now-36h, epoch seconds or ISO 8601"),
            OpenApiParameter("end", str, description="as start; default now"),
            OpenApiParameter("tree", int, description="only the devices of this graph tree"),
        ],
        responses=inline_serializer(
            "NetworkMap",
            {
                "start": serializers.DateTimeField(),
                "end": serializers.DateTimeField(),
                "figures_error": serializers.CharField(),
                "levels": serializers.DictField(child=serializers.FloatField()),
                "nodes": MapNodeSerializer(many=True),
                "edges": serializers.ListField(child=serializers.DictField()),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        try:
            window = parse_range(params.get("start"), params.get("end"), params.get("range"))
        except RangeError as exc:
            raise ValidationError({"range": str(exc)}) from None
        access = Access(request.user)
        devices = access.devices()
        if params.get("tree"):
            if not params["tree"].isascii() or not params["tree"].isdigit() or len(params["tree"]) > 18:
                raise ValidationError({"tree": "a graph tree's id"})
            tree = get_object_or_404(access.trees(), pk=int(params["tree"]))
            devices = devices.filter(pk__in=TreeNode.objects.filter(tree=tree, kind="device").values("device_id"))
        return Response(map_data(devices, window.start, window.end, window.now))
