"""GET /api/hosts/?q=<MAC, IP or host name>: where a host is plugged in, and was, on the switches the reader sees."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import permissions, serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from monitor.graphs.access import Access
from monitor.topology import hosts, names, vendors

MAX_QUERY = 64


class PlaceSerializer(serializers.Serializer):
    switch = serializers.IntegerField(source="switch_id")
    switch_name = serializers.CharField(source="switch.name")
    port = serializers.CharField()
    vlan = serializers.IntegerField(allow_null=True)
    first_seen = serializers.DateTimeField()
    last_seen = serializers.DateTimeField()


class HostSearch(APIView):
    """Where a host was seen on a switch's edge port (never an uplink), the newest first: the first is where it is
    plugged in now, the others where it was (at most 100), with the vendor its MAC's OUI names (Wireshark's list,
    shipped with the `manuf` package). The query is a MAC address (aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff,
    aabb.ccdd.eeff or aabbccddeeff), an IP address (the MAC a device's ARP cache last resolved it to) or a host name
    (the MAC of the first of its addresses, by this machine's resolver, that a cache holds; `addresses` lists those
    looked up). Only devices the reader may see are searched. An address no cache holds answers no MAC and no
    place; where caches disagree, the MAC seen last (then the lowest) is the one followed."""

    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "q", str, required=True, description="a MAC address in any common notation, an IP or a host name"
            )
        ],
        responses=inline_serializer(
            "HostSearch",
            {
                "query": serializers.CharField(),
                "mac": serializers.CharField(allow_null=True),
                "vendor": serializers.CharField(allow_null=True),
                "addresses": serializers.ListField(child=serializers.CharField()),
                "places": PlaceSerializer(many=True),
            },
        ),
    )
    def get(self, request: Request) -> Response:
        query = request.query_params.get("q", "").strip()
        if not query:
            raise ValidationError({"q": "name a MAC, an IP address or a host name: q=aa:bb:cc:dd:ee:ff or q=10.0.0.42"})
        if len(query) > MAX_QUERY:
            raise ValidationError({"q": f"at most {MAX_QUERY} characters"})
        if hosts.mac_of(query) is None and not hosts.is_ip(query) and not names.is_name(query):
            raise ValidationError({"q": "not a MAC, IP address or host name (aa:bb:cc:dd:ee:ff, aabb.ccdd.eeff, "
                                        "10.0.0.42, fileserver.example.com...)"})  # fmt: skip
        found = hosts.search(query, Access(request.user).devices())
        made_by = vendors.vendor(found.mac) if found.mac else None
        places = PlaceSerializer(found.places, many=True).data
        body = {"query": query, "mac": found.mac, "vendor": made_by, "addresses": found.addresses, "places": places}
        return Response(body)
