"""URL routes."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from monitor.core import oidc
from monitor.graphs import api, views
from monitor.graphs.trees import views as tree_views
from monitor.health import views as health_views
from monitor.topology import views as topology_views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("pollers/", health_views.page, name="pollers"),
    path("pollers/history", health_views.history, name="pollers-history"),
    path("metrics", health_views.prometheus, name="metrics"),
    path("search/", views.search, name="search"),
    path("ports/unused/", topology_views.unused_ports, name="unused-ports"),
    path("ports/", topology_views.port_inventory, name="port-inventory"),
    path("map/", topology_views.network_map, name="map"),
    path("devices/<int:device_id>/", views.device_detail, name="device"),
    path("graphs/<int:graph_id>/", views.graph_detail, name="graph"),
    path("trees/", tree_views.tree_index, name="trees"),
    path("trees/<int:tree_id>/", tree_views.tree_page, name="tree"),
    path("trees/<int:tree_id>/nodes/<int:node_id>/", tree_views.tree_page, name="tree-node"),
    path("dashboard/", tree_views.dashboard, name="dashboard"),
    path("dashboard/pin", tree_views.pin, name="dashboard-pin"),
    path("dashboard/items/<int:item_id>/remove", tree_views.unpin, name="dashboard-unpin"),
    path("dashboard/items/<int:item_id>/<str:direction>", tree_views.move, name="dashboard-move"),
    path("api/", include("monitor.restapi.urls")),
    path("api/series", api.series_batch, name="series-batch"),
    path("api/graphs/<int:object_id>/series", api.series_json, name="graph-series"),
    path("api/graphs/<int:object_id>/series.csv", api.series_csv, name="graph-csv"),
    path("api/aggregates/<int:object_id>/series", api.series_json, {"kind": "aggregate"}, name="aggregate-series"),
    path("api/aggregates/<int:object_id>/series.csv", api.series_csv, {"kind": "aggregate"}, name="aggregate-csv"),
    path("api/devices/<int:device_id>/heatmap", api.heatmap, name="device-heatmap"),
    path("oidc/authenticate/", oidc.start, name="oidc_authentication_init"),
    path("oidc/callback/", oidc.callback, name="oidc_authentication_callback"),
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("alerts/", include("monitor.alerts.urls")),
    path("", include("monitor.events.urls")),
    path("storage/", include("monitor.storage.urls")),
    path("admin/", admin.site.urls),
]
