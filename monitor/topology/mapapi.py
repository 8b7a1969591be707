"""The map's API: GET /api/map/ (the devices a reader may see, the links between them and their utilisation over a
range, and where the reader put the devices), POST and DELETE /api/map/places/ (keep or forget those places)."""

from __future__ import annotations

import math

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from monitor.graphs.access import Access
from monitor.graphs.timerange import PRESETS, RangeError, parse_range
from monitor.graphs.trees.models import Tree, TreeNode
from monitor.topology import places
from monitor.topology.mapdata import map_data

MAX_ID = 2**63 - 1
TREE = OpenApiParameter("tree", int, description="the map of this graph tree's devices (default: every device)")


def map_devices(access: Access, tree_id: int | str | None):
    """(the tree, or None for the whole map; the devices of that map the reader may see): 404 for a tree they may
    not read, 400 for a tree that is not an id."""
    if tree_id in (None, ""):
        return None, access.devices()
    text = str(tree_id)
    if not text.isascii() or not text.isdigit() or int(text) > MAX_ID:
        raise ValidationError({"tree": "a graph tree's id"})
    tree: Tree = get_object_or_404(access.trees(), pk=int(text))
    placed = TreeNode.objects.filter(tree=tree, kind="device").values("device_id")
    return tree, access.devices().filter(pk__in=placed)


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
    gone; and where the reader put devices on this map (docs/topology.md, "The map")."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("range", str, enum=list(PRESETS), description="a preset window ending now (default 1d)"),
            OpenApiParameter("start", str, description="now-36h, epoch seconds or ISO 8601"),
            OpenApiParameter("end", str, description="as start; default now"),
            TREE,
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
                "places": serializers.DictField(child=serializers.DictField(child=serializers.FloatField())),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        try:
            window = parse_range(params.get("start"), params.get("end"), params.get("range"))
        except RangeError as exc:
            raise ValidationError({"range": str(exc)}) from None
        tree, devices = map_devices(Access(request.user), params.get("tree"))
        data = map_data(devices, window.start, window.end, window.now)
        data["places"] = places.places_of(request.user, tree, {int(node["id"]) for node in data["nodes"]})
        return Response(data)


class MapPlaceSerializer(serializers.Serializer):
    device = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    x = serializers.FloatField(min_value=-places.LIMIT, max_value=places.LIMIT)
    y = serializers.FloatField(min_value=-places.LIMIT, max_value=places.LIMIT)

    def validate(self, attrs: dict) -> dict:
        if not (math.isfinite(attrs["x"]) and math.isfinite(attrs["y"])):
            raise ValidationError("x and y must be numbers")
        return attrs


class MapPlacesSerializer(serializers.Serializer):
    tree = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False, allow_null=True)
    places = MapPlaceSerializer(many=True, allow_empty=False, max_length=places.MAX_PLACES)


class MapPlaces(APIView):
    """Where the caller put devices on a map (`tree`, else the whole map), kept for them alone: POST keeps places
    (at most 100 a request, of devices of that map they may read), DELETE forgets the map's places (laid out
    again)."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(request=MapPlacesSerializer, responses={204: None})
    def post(self, request: Request) -> Response:
        given = MapPlacesSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        tree, devices = map_devices(Access(request.user), given.validated_data.get("tree"))
        wanted = {place["device"]: (place["x"], place["y"]) for place in given.validated_data["places"]}
        strangers = places.unknown(devices, set(wanted))
        if strangers:
            raise ValidationError({"places": f"not devices of this map: {', '.join(map(str, strangers[:10]))}"})
        places.keep(request.user, tree, wanted)
        return Response(status=204)

    @extend_schema(parameters=[TREE], responses={204: None})
    def delete(self, request: Request) -> Response:
        tree, _ = map_devices(Access(request.user), request.query_params.get("tree"))
        places.forget(request.user, tree)
        return Response(status=204)
