"""URL routes of the alerts pages, included under /alerts/."""

from django.urls import path

from monitor.alerts import mailbox, views

app_name = "alerts"
urlpatterns = [
    path("", views.current, name="current"),
    path("<int:state_id>/acknowledge", views.acknowledge, name="acknowledge"),
    path("history/", views.history, name="history"),
    path("rules/new/", views.rule_edit, name="rule-new"),
    path("rules/<int:rule_id>/", views.rule_edit, name="rule-edit"),
    path("maintenance/new/", views.maintenance_new, name="maintenance-new"),
    path("devices/<int:device_id>/defaults", views.device_defaults, name="device-defaults"),
    path("mail/", mailbox.captured, name="mailbox"),
]
