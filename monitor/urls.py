"""URL routes."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import path

from monitor import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("devices/<int:device_id>/", views.device_detail, name="device"),
    path("api/graphs/<int:graph_id>/series", views.graph_series, name="graph-series"),
    path("login/", auth_views.LoginView.as_view(template_name="registration/login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
]
