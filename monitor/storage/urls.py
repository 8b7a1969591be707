"""Storage routes, included under /storage/."""

from django.urls import path

from monitor.storage import views

app_name = "storage"
urlpatterns = [
    path("arrays/<int:device_id>/", views.array_page, name="array"),
    path("arrays/<int:device_id>/path/", views.path_page, name="path"),
    path("api/arrays/<int:device_id>/path", views.path_api, name="path-api"),
]
