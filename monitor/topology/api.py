"""GET /api/hosts/?q=<MAC or IP>: where a host is plugged in, and where it was, on the switches the reader may see."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from monitor.graphs.access import Access
from monitor.topology import hosts, vendors

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
    newest first: the first is where it is plugged in now, the others where it was (at most 100), with the vendor its
    OUI names (Wireshark's list, shipped with the `manuf` package); only devices the
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
                "vendor": serializers.CharField(allow_null=True),
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
        made_by = vendors.vendor(mac) if mac else None
        places = PlaceSerializer(rows, many=True).data
        return Response({"query": query, "mac": mac, "vendor": made_by, "places": places})
