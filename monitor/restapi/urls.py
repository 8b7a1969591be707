"""Routes of the REST API, and its OpenAPI schema at /api/schema/."""

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import SimpleRouter

from monitor.restapi import views
from monitor.topology.api import HostSearch
from monitor.topology.mapapi import MapPlaces, NetworkMap

router = SimpleRouter(use_regex_path=False)  # path converters (<int:pk>), no format suffixes: JSON only
router.register("devices", views.DeviceViewSet, basename="api-device")
router.register("graphs", views.GraphViewSet, basename="api-graph")
router.register("trees", views.TreeViewSet, basename="api-tree")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("hosts/", HostSearch.as_view(), name="api-hosts"),
    path("map/", NetworkMap.as_view(), name="api-map"),
    path("map/places/", MapPlaces.as_view(), name="api-map-places"),
    path("", include(router.urls)),
]
