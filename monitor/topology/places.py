"""Where each user put devices on the map (the whole map, or one tree's): kept per user on the server, so a layout
someone arranged is theirs on any browser, and nobody else's."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet

from monitor.topology.models import MapPlace

MAX_PLACES = 100  # places one request may keep (the page sends one a drag)
LIMIT = 1_000_000.0  # a coordinate's bound either way, in the map's own units (a 500-device layout spans ~20,000)


def places_of(user, tree, devices: set[int]) -> dict[str, dict[str, float]]:
    """{device id: {"x", "y"}} the user kept on this map, for the `devices` it shows (none of a device they lost)."""
    rows = MapPlace.objects.filter(user=user, tree=tree, device_id__in=devices).values_list("device_id", "x", "y")
    return {str(device): {"x": x, "y": y} for device, x, y in rows}


def keep(user, tree, places: dict[int, tuple[float, float]]) -> None:
    """Keep each device's place (moving it when kept before), in one transaction."""
    with transaction.atomic():
        for device, (x, y) in places.items():
            MapPlace.objects.update_or_create(user=user, tree=tree, device_id=device, defaults={"x": x, "y": y})


def forget(user, tree) -> int:
    """Forget the user's places on this map (laid out again); how many there were."""
    return MapPlace.objects.filter(user=user, tree=tree).delete()[0]


def unknown(devices: QuerySet, wanted: set[int]) -> list[int]:
    """The ids among `wanted` that are not devices of this map (unknown, or not the user's to read: the same)."""
    return sorted(wanted - set(devices.filter(pk__in=wanted).values_list("pk", flat=True)))
