"""Routes of the events pages and API (included from monitor/urls.py)."""

from django.urls import path

from monitor.events import api, views

urlpatterns = [
    path("events/", views.events_page, name="events"),
    path("devices/<int:device_id>/events/", views.device_events, name="device-events"),
    path("api/events/", api.EventList.as_view(), name="api-events"),
    path("api/events/markers", api.markers, name="event-markers"),
]
